/**
 * registries.d: where simple-signing signatures of an image are kept (the "lookaside" store),
 * configured the way containers/image (skopeo, podman, CRI-O) reads it.
 *
 * Every `*.yaml` file of the directory is read and merged. Each file may hold:
 *
 * ```yaml
 * default-docker:                 # used when no docker: scope matches
 *   lookaside: https://sigs.example.com/lookaside
 * docker:
 *   registry.example.com:5000/team:   # host[:port], a namespace or a repository
 *     lookaside: https://sigs.example.com/team      # read (and write when no staging URL)
 *     lookaside-staging: file:///srv/sigstore/team  # write only
 *     use-sigstore-attachments: true                # accepted; cosign attachments
 * ```
 *
 * `sigstore` and `sigstore-staging` are the older spellings of `lookaside` and
 * `lookaside-staging`. A scope (or `default-docker`) may be defined in one file only.
 *
 * A scope's registry host is read in its canonical spelling (`canonicalDomain` of lib/image), as
 * image references are: `REG.example.com:443/team` is the scope `reg.example.com/team`, and two
 * spellings of one scope are one scope (defined twice, an error).
 *
 * This module owns registries.d: its types, parsing, merging, the choice of a lookaside for an
 * image, and writing a file back ({@linkcode formatRegistriesYaml}, which lib/install uses for
 * the webhook's ConfigMap).
 *
 * @module
 */

import { parseYaml } from "../yaml.ts";
import { ToolkitError } from "../errors.ts";
import { canonicalDomain, type ImageReference, repositoryName } from "../image/mod.ts";

/** One section of registries.d: the lookaside URLs of one scope. */
export interface LookasideSection {
  /** Base URL to read signatures from (and to write to when there is no staging URL). */
  readonly lookaside?: string | undefined;
  /** Base URL to write signatures to. */
  readonly lookasideStaging?: string | undefined;
  /** Whether cosign-style `sha256-<hex>.sig` attachments are used (read, not acted on here). */
  readonly useSigstoreAttachments?: boolean | undefined;
  /** The file that defined the section. */
  readonly source: string;
}

/** A registries.d directory, merged. */
export interface RegistriesD {
  /** The `default-docker` section, if any file sets one. */
  readonly defaultDocker?: LookasideSection | undefined;
  /**
   * The `docker` scopes (`host[:port]`, `host[:port]/namespace`, `…/repo[:tag|@digest]`,
   * `*.domain`), their hosts in canonical form.
   */
  readonly docker: ReadonlyMap<string, LookasideSection>;
  /** Keys that were ignored (unknown names), with the file that holds them. */
  readonly warnings: readonly string[];
}

/** Which base URL applies to an image, and why. */
export interface LookasideSelection {
  /** The configured base URL (the repository path and digest are appended by the store). */
  readonly base: URL;
  /** The scope that matched: a `docker` key, or `default-docker`. */
  readonly scope: string;
  /** The file the scope comes from. */
  readonly source: string;
}

/** A registries.d file that cannot be read or used. */
export class RegistriesConfigError extends ToolkitError {
  /** The file (or directory) at fault. */
  readonly file: string;

  /** Creates the error for `file`. */
  constructor(file: string, detail: string, options?: ErrorOptions) {
    super(`Cannot load registries.d configuration "${file}": ${detail}`, options);
    this.name = "RegistriesConfigError";
    this.file = file;
  }
}

const SECTION_KEYS = new Set([
  "lookaside",
  "lookaside-staging",
  "sigstore",
  "sigstore-staging",
  "use-sigstore-attachments",
]);
const TOP_LEVEL_KEYS = new Set(["default-docker", "docker"]);
const SUPPORTED_SCHEMES = new Set(["file:", "http:", "https:"]);

/** Whether `v` is a plain object (a YAML mapping). */
function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads one URL-valued key; "" counts as unset, like containers/image. */
function urlValue(
  file: string,
  where: string,
  key: string,
  value: unknown,
): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") {
    throw new RegistriesConfigError(file, `${where}.${key} must be a URL string`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new RegistriesConfigError(file, `${where}.${key} is not a valid URL: "${value}"`, {
      cause,
    });
  }
  if (!SUPPORTED_SCHEMES.has(url.protocol)) {
    throw new RegistriesConfigError(
      file,
      `${where}.${key} has the unsupported scheme "${url.protocol}" (use file, http or https)`,
    );
  }
  return value;
}

/**
 * Parses one section, accepting both spellings. Where a section sets both, the current
 * spelling wins and a warning says so, as containers/image does.
 */
function parseSection(
  file: string,
  where: string,
  raw: unknown,
  warnings: string[],
): LookasideSection {
  if (raw === null || raw === undefined) return { source: file };
  if (!isMapping(raw)) throw new RegistriesConfigError(file, `${where} must be a mapping`);
  for (const key of Object.keys(raw)) {
    if (!SECTION_KEYS.has(key)) warnings.push(`${file}: ignored unknown key ${where}.${key}`);
  }
  const pick = (current: string, legacy: string): string | undefined => {
    const a = urlValue(file, where, current, raw[current]);
    const b = urlValue(file, where, legacy, raw[legacy]);
    if (a !== undefined && b !== undefined) {
      warnings.push(
        `${file}: ${where} sets both "${current}" and its older spelling "${legacy}"; using "${current}"`,
      );
    }
    return a ?? b;
  };
  const lookaside = pick("lookaside", "sigstore");
  const lookasideStaging = pick("lookaside-staging", "sigstore-staging");
  const attachments = raw["use-sigstore-attachments"];
  if (attachments !== undefined && attachments !== null && typeof attachments !== "boolean") {
    throw new RegistriesConfigError(
      file,
      `${where}.use-sigstore-attachments must be true or false`,
    );
  }
  const section: {
    lookaside?: string;
    lookasideStaging?: string;
    useSigstoreAttachments?: boolean;
    source: string;
  } = { source: file };
  if (lookaside !== undefined) section.lookaside = lookaside;
  if (lookasideStaging !== undefined) section.lookasideStaging = lookasideStaging;
  if (typeof attachments === "boolean") section.useSigstoreAttachments = attachments;
  return section;
}

/** A scope with its registry host in canonical form: `REG.example.com:443/x` → `reg.example.com/x`. */
function canonicalScope(scope: string): string {
  const slash = scope.indexOf("/");
  if (slash < 0) return canonicalDomain(scope);
  return `${canonicalDomain(scope.slice(0, slash))}${scope.slice(slash)}`;
}

/**
 * Parses the text of one registries.d file. `file` names it in errors and in
 * {@linkcode LookasideSection.source}.
 *
 * @throws {RegistriesConfigError} for YAML syntax errors, duplicate keys, wrong types, URLs that
 * do not parse or use another scheme than file, http or https.
 */
export function parseRegistriesYaml(text: string, file: string): RegistriesD {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (cause) {
    // An InputSyntaxError: "invalid YAML at line …, column …: …", never the text.
    throw new RegistriesConfigError(file, (cause as Error).message, { cause });
  }
  const warnings: string[] = [];
  const docker = new Map<string, LookasideSection>();
  if (doc === null || doc === undefined) return { docker, warnings };
  if (!isMapping(doc)) throw new RegistriesConfigError(file, "the top level must be a mapping");
  for (const key of Object.keys(doc)) {
    if (!TOP_LEVEL_KEYS.has(key)) warnings.push(`${file}: ignored unknown key ${key}`);
  }
  let defaultDocker: LookasideSection | undefined;
  if ("default-docker" in doc) {
    defaultDocker = parseSection(file, "default-docker", doc["default-docker"], warnings);
  }
  const scopes = doc["docker"];
  if (scopes !== undefined && scopes !== null) {
    if (!isMapping(scopes)) {
      throw new RegistriesConfigError(file, "docker must be a mapping of scopes");
    }
    const written = new Map<string, string>();
    for (const [scope, raw] of Object.entries(scopes)) {
      if (scope === "") throw new RegistriesConfigError(file, "docker has an empty scope");
      const canonical = canonicalScope(scope);
      const earlier = written.get(canonical);
      if (earlier !== undefined) {
        throw new RegistriesConfigError(
          file,
          `docker scopes "${earlier}" and "${scope}" are the same scope ("${canonical}")`,
        );
      }
      written.set(canonical, scope);
      docker.set(canonical, parseSection(file, `docker."${scope}"`, raw, warnings));
    }
  }
  return { defaultDocker, docker, warnings };
}

/** The keys of one section as a registries.d file spells them, in the order they are written. */
function sectionLines(section: LookasideSection, indent: string): string {
  const lines: string[] = [];
  if (section.lookaside !== undefined) {
    lines.push(`${indent}lookaside: ${JSON.stringify(section.lookaside)}\n`);
  }
  if (section.lookasideStaging !== undefined) {
    lines.push(`${indent}lookaside-staging: ${JSON.stringify(section.lookasideStaging)}\n`);
  }
  if (section.useSigstoreAttachments !== undefined) {
    lines.push(`${indent}use-sigstore-attachments: ${section.useSigstoreAttachments}\n`);
  }
  return lines.join("");
}

/**
 * The text of one registries.d file holding `config` (its `warnings` and the sections'
 * `source` are not written): what {@linkcode parseRegistriesYaml} reads back as `config`.
 * Scopes and URLs are written as JSON strings, which YAML reads as they are.
 */
export function formatRegistriesYaml(
  config: Pick<RegistriesD, "defaultDocker" | "docker">,
): string {
  let text = "";
  if (config.defaultDocker !== undefined) {
    text += `default-docker:\n${sectionLines(config.defaultDocker, "  ")}`;
  }
  if (config.docker.size > 0) {
    text += "docker:\n";
    for (const [scope, section] of config.docker) {
      text += `  ${JSON.stringify(scope)}:\n${sectionLines(section, "    ")}`;
    }
  }
  return text;
}

/**
 * Merges parsed files in order.
 *
 * @throws {RegistriesConfigError} when `default-docker` or one `docker` scope is defined in
 * two files.
 */
export function mergeRegistriesD(parts: readonly RegistriesD[]): RegistriesD {
  let defaultDocker: LookasideSection | undefined;
  const docker = new Map<string, LookasideSection>();
  const warnings: string[] = [];
  for (const part of parts) {
    warnings.push(...part.warnings);
    if (part.defaultDocker !== undefined) {
      if (defaultDocker !== undefined) {
        throw new RegistriesConfigError(
          part.defaultDocker.source,
          `"default-docker" is already defined in "${defaultDocker.source}"`,
        );
      }
      defaultDocker = part.defaultDocker;
    }
    for (const [scope, section] of part.docker) {
      const earlier = docker.get(scope);
      if (earlier !== undefined) {
        throw new RegistriesConfigError(
          section.source,
          `docker scope "${scope}" is already defined in "${earlier.source}"`,
        );
      }
      docker.set(scope, section);
    }
  }
  return { defaultDocker, docker, warnings };
}

/**
 * Loads every `*.yaml` file of a registries.d directory (in name order) and merges them. A
 * directory that does not exist gives an empty configuration, as in containers/image.
 *
 * @throws {RegistriesConfigError} when a file cannot be read or is invalid, or two files define
 * the same scope.
 */
export async function loadRegistriesD(dir: string): Promise<RegistriesD> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.endsWith(".yaml") && !entry.isDirectory) names.push(entry.name);
    }
  } catch (cause) {
    if (cause instanceof Deno.errors.NotFound) return { docker: new Map(), warnings: [] };
    throw new RegistriesConfigError(dir, "the directory cannot be read", { cause });
  }
  names.sort();
  const parts: RegistriesD[] = [];
  for (const name of names) {
    const file = `${dir.replace(/\/+$/, "")}/${name}`;
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (cause) {
      // Removed between listing and reading: skip, as containers/image does.
      if (cause instanceof Deno.errors.NotFound) continue;
      throw new RegistriesConfigError(file, "the file cannot be read", { cause });
    }
    parts.push(parseRegistriesYaml(text, file));
  }
  return mergeRegistriesD(parts);
}

/**
 * The `docker` scopes that can apply to `ref`, most specific first, as containers/image
 * searches them: the full reference with its digest, then with its tag, the repository, each
 * parent namespace up to `host[:port]`, then wildcard domains (`*.example.com`, `*.com`, on the
 * host without its port).
 */
export function candidateScopes(ref: ImageReference): string[] {
  const name = repositoryName(ref);
  const scopes: string[] = [];
  if (ref.digest !== undefined) scopes.push(`${name}@${ref.digest}`);
  if (ref.tag !== undefined) scopes.push(`${name}:${ref.tag}`);
  let current = name;
  for (;;) {
    scopes.push(current);
    const slash = current.lastIndexOf("/");
    if (slash < 0) break;
    current = current.slice(0, slash);
  }
  const colon = current.indexOf(":");
  let host = colon >= 0 ? current.slice(0, colon) : current;
  for (let dot = host.indexOf("."); dot >= 0; dot = host.indexOf(".")) {
    host = host.slice(dot + 1);
    scopes.push(`*.${host}`);
  }
  return scopes;
}

/** The URL a section gives for reading or writing, "" falling through like containers/image. */
function sectionURL(section: LookasideSection, mode: "read" | "write"): string | undefined {
  if (mode === "write" && section.lookasideStaging !== undefined) return section.lookasideStaging;
  return section.lookaside;
}

/**
 * Chooses the lookaside base URL for `ref`: the most specific `docker` scope that sets a URL
 * for `mode`, else `default-docker`. Reading uses `lookaside`; writing uses
 * `lookaside-staging` when the scope sets it, else `lookaside`. Returns undefined when nothing
 * is configured (containers/image then falls back to `file:///var/lib/containers/sigstore`, or
 * `~/.local/share/containers/sigstore` when not root).
 */
export function selectLookaside(
  config: RegistriesD,
  ref: ImageReference,
  mode: "read" | "write",
): LookasideSelection | undefined {
  for (const scope of candidateScopes(ref)) {
    const section = config.docker.get(scope);
    if (section === undefined) continue;
    const url = sectionURL(section, mode);
    if (url !== undefined) return { base: new URL(url), scope, source: section.source };
  }
  if (config.defaultDocker !== undefined) {
    const url = sectionURL(config.defaultDocker, mode);
    if (url !== undefined) {
      return { base: new URL(url), scope: "default-docker", source: config.defaultDocker.source };
    }
  }
  return undefined;
}

/** Whether `use-sigstore-attachments` is on for `ref` (most specific scope that sets it). */
export function usesSigstoreAttachments(config: RegistriesD, ref: ImageReference): boolean {
  for (const scope of candidateScopes(ref)) {
    const value = config.docker.get(scope)?.useSigstoreAttachments;
    if (value !== undefined) return value;
  }
  return config.defaultDocker?.useSigstoreAttachments ?? false;
}
