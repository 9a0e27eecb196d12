/**
 * What Kyverno's two image-verification sources (`kyverno.io/v1` ClusterPolicy/Policy
 * `verifyImages` and `policies.kyverno.io` ImageValidatingPolicy) share when imported: the
 * findings list of one rule, image reference globs translated to toolkit's patterns, Kyverno's
 * wildcard identities as regular expressions, key material as key Secrets, and the trust roots
 * keyless and tlog-required requirements name.
 *
 * Kyverno's `imageReferences` are matched with `wildcard.Match` (github.com/IGLOU-EU/go-wildcard,
 * `*` any run of characters, `/` included; `?` one character) against the whole reference
 * `registry/path:tag` (or `registry/path@digest` when the image has a digest, its tag dropped),
 * the registry added (`docker.io`) but no `library/` for Docker Hub official images. An
 * ImageValidatingPolicy's `glob` is github.com/gobwas/glob without separators (`*` also crosses
 * `/`; `?`, `[…]`, `{a,b}` and `**` too) over the image as written in the Pod.
 *
 * @module
 */
import type { ImportFinding, ImportSource } from "./types.ts";
import { objectName } from "./naming.ts";
import { keySecretObject } from "./objects.ts";
import { PREDICATE_TYPE_SHORT_NAMES, predicateTypeURI } from "../policy/mod.ts";

/**
 * What names an imported document: its `metadata.name` (else `document-INDEX`), its namespace
 * when its kind is a namespaced one (`metadata.namespace`, else `default`), and the source the
 * report gives its rules.
 */
export function documentSource(
  doc: Obj,
  index: number,
  namespaced: boolean,
): { readonly name: string; readonly namespace?: string; readonly source: ImportSource } {
  const metadata = objAt(doc, "metadata");
  const name = stringAt(metadata, "name") ?? `document-${index}`;
  const namespace = namespaced ? stringAt(metadata, "namespace") ?? "default" : undefined;
  const source: ImportSource = {
    apiVersion: String(doc.apiVersion),
    kind: String(doc.kind),
    name,
    ...(namespace ? { namespace } : {}),
    document: index,
  };
  return namespace === undefined ? { name, source } : { name, namespace, source };
}

/** The findings of one rule, collected in order. */
export class Findings {
  readonly list: ImportFinding[] = [];
  /** Set by {@linkcode refuse}. */
  refused = false;

  add(kind: ImportFinding["kind"], path: string, reason: string): void {
    this.list.push({ path, kind, reason });
  }
  unmapped(path: string, reason: string): void {
    this.add("unmapped", path, reason);
  }
  weaker(path: string, reason: string): void {
    this.add("weaker", path, reason);
  }
  stronger(path: string, reason: string): void {
    this.add("stronger", path, reason);
  }
  refuse(path: string, reason: string): void {
    this.refused = true;
    this.add("refused", path, reason);
  }
}

/** A JSON object (not an array), or undefined. */
export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object at `key`, or an empty one. */
export function objAt(o: Obj, key: string): Obj {
  const value = o[key];
  return isObj(value) ? value : {};
}

/** The list at `key`, or an empty one. */
export function listAt(o: Obj, key: string): unknown[] {
  const value = o[key];
  return Array.isArray(value) ? value : [];
}

/** The string at `key`, or undefined (an empty string counts as absent, as in Kyverno). */
export function stringAt(o: Obj, key: string): string | undefined {
  const value = o[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** True when the field is set to something other than null/empty. */
export function present(o: Obj, key: string): boolean {
  const value = o[key];
  if (value === undefined || value === null || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObj(value)) return Object.keys(value).length > 0;
  return true;
}

/**
 * Reports every field of `o` not in `handled` as unmapped, so that no source field goes
 * silently: the importer's field table (docs/migration.md) lists the handled ones.
 */
export function reportUnknown(
  f: Findings,
  o: Obj,
  handled: readonly string[],
  path: string,
): void {
  for (const key of Object.keys(o)) {
    if (handled.includes(key) || !present(o, key)) continue;
    f.unmapped(`${path}.${key}`, "not read by the importer: no toolkit equivalent");
  }
}

const DOCKER_HUB_HOSTS = ["docker.io", "index.docker.io", "registry-1.docker.io"];

/**
 * Translates one Kyverno image glob to toolkit's pattern (lib/policy/pattern.ts), or refuses it
 * (undefined, with a finding) when no pattern means the same. `flavour` says which Kyverno
 * matcher wrote it: `wildcard` (ClusterPolicy `imageReferences`) or `glob` (IVP).
 */
export function translateImagePattern(
  pattern: string,
  path: string,
  f: Findings,
  flavour: "wildcard" | "glob",
): string | undefined {
  const text = pattern.trim();
  if (text === "") {
    f.refuse(path, "an empty image pattern matches nothing");
    return undefined;
  }
  if (text.includes("?")) {
    f.refuse(path, `"?" (one character) has no equivalent in toolkit's patterns ("*" only)`);
    return undefined;
  }
  if (flavour === "glob" && /[[\]{}\\]/.test(text)) {
    f.refuse(path, "character classes, alternatives and escapes of the glob have no equivalent");
    return undefined;
  }
  if (flavour === "glob" && text.includes("**")) {
    // gobwas "**" is "*" without separators: the same.
  }
  const collapsed = text.replace(/\*+/g, "*");
  if (collapsed === "*") return "*";
  const slash = collapsed.indexOf("/");
  if (slash < 0) {
    f.refuse(
      path,
      "a pattern without a registry host never matches in Kyverno (images are matched with their registry); toolkit would read it as a Docker Hub name",
    );
    return undefined;
  }
  const host = collapsed.slice(0, slash);
  let rest = collapsed.slice(slash + 1);
  if (host.includes("*")) {
    f.weaker(
      path,
      `"*" in the registry part also matched across "/" in Kyverno; toolkit matches the registry host on its own, so images whose path merely contains "${
        host.replaceAll("*", "")
      }" are not governed by this rule`,
    );
  }
  if (!/[.:]/.test(host) && host !== "localhost" && !host.includes("*")) {
    f.refuse(
      path,
      `"${host}" is not a registry host: Kyverno adds docker.io to the image before matching, so this pattern never matches`,
    );
    return undefined;
  }
  if (DOCKER_HUB_HOSTS.includes(host.toLowerCase())) {
    const first = rest.split("/")[0];
    if (!rest.includes("/") || first === "*") {
      // Kyverno sees `nginx` as docker.io/nginx, toolkit as docker.io/library/nginx.
      if (!rest.startsWith("*")) {
        rest = `library/${rest}`;
        f.stronger(
          path,
          "Kyverno matched Docker Hub official images without library/ (docker.io/nginx) and docker.io/library/nginx separately; toolkit reads both spellings as docker.io/library/…, so the rule governs both",
        );
      } else {
        f.stronger(
          path,
          "toolkit reads Docker Hub official images as docker.io/library/… (Kyverno as docker.io/…): the pattern governs both spellings",
        );
      }
    }
  }
  // The tag part: Kyverno's `repo:*` matches every tagged reference of repo, but not a reference
  // by digest (its string is repo@sha256:…); toolkit's `repo:*` is the same (digest-only
  // references are matched by path alone). `repo*` matches tags and digests in both.
  if (/@/.test(rest)) {
    f.refuse(
      path,
      "a digest in the pattern has no equivalent (toolkit's patterns name repositories and tags)",
    );
    return undefined;
  }
  if (flavour === "glob") {
    f.stronger(
      path,
      "the IVP glob is matched against the image as written in the Pod (nginx stays nginx); toolkit normalises the image first (docker.io/library/nginx), so short names are governed too",
    );
  }
  return `${host}/${rest}`;
}

/** Escapes a text for toolkit's (RE2-subset) regular expressions. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, (c) => (c === "/" || c === "-" ? c : `\\${c}`));
}

/** Kyverno's wildcard identity (`*` any run, `?` one character), anchored, as a regexp. */
export function wildcardToRegExp(text: string): string {
  let out = "^";
  for (const c of text) {
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else out += escapeRegExp(c);
  }
  return `${out}$`;
}

/** One keyless identity, exact or as a regexp, from Kyverno's wildcard-or-exact fields. */
export function identityField(
  field: "issuer" | "subject",
  exact: string | undefined,
  regexp: string | undefined,
): Record<string, string> {
  if (regexp !== undefined) return { [`${field}RegExp`]: regexp };
  if (exact === undefined) return { [`${field}RegExp`]: ".*" };
  if (exact.includes("*") || exact.includes("?")) {
    return { [`${field}RegExp`]: wildcardToRegExp(exact) };
  }
  return { [field]: exact };
}

/** The PEM blocks of a text, or undefined when it holds none. */
export function pemBlocks(text: string): string[] | undefined {
  const blocks = text.match(/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g);
  return blocks && blocks.length > 0 ? blocks.map((b) => b.trim()) : undefined;
}

const PUBLIC_GOOD_HOSTS = ["rekor.sigstore.dev", "fulcio.sigstore.dev"];

/** Whether a Rekor/Fulcio URL is the public-good instance (or absent: Kyverno's default). */
export function isPublicGood(url: string | undefined): boolean {
  if (url === undefined) return true;
  try {
    return PUBLIC_GOOD_HOSTS.includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** What an importer collects while converting one rule: objects besides the policy. */
export class RuleObjects {
  readonly extra: Record<string, unknown>[] = [];
  readonly #names = new Set<string>();

  constructor(
    readonly source: ImportSource,
    /** Where this rule's key Secrets and trust roots live. */
    readonly namespace: string,
    /** The base of the names (`<policy>-<rule>`). */
    readonly base: string,
  ) {}

  /** A key Secret holding `pem` (one or more PEM keys); its name. */
  keySecret(suffix: string, pem: string): string {
    const name = objectName(this.base, suffix);
    if (!this.#names.has(name)) {
      this.#names.add(name);
      this.extra.push(keySecretObject(name, this.namespace, pem, this.source));
    }
    return name;
  }
}

/**
 * A Kyverno predicate type as toolkit's `predicateType`, or undefined (refused, with a finding).
 * Kyverno compares the statement's predicateType with the text exactly; toolkit reads a URI, or
 * one of cosign's short names as the URI cosign writes.
 */
export function predicateType(value: string, path: string, f: Findings): string | undefined {
  if (Object.hasOwn(PREDICATE_TYPE_SHORT_NAMES, value)) {
    f.unmapped(
      path,
      `toolkit reads "${value}" as cosign's short name of ${
        PREDICATE_TYPE_SHORT_NAMES[value]
      }; Kyverno compared the statement's predicateType with "${value}" itself`,
    );
    return value;
  }
  if (predicateTypeURI(value) === undefined) {
    f.refuse(
      path,
      `"${value}" is not a URI: toolkit's predicate types are URIs (Kyverno compared the text exactly, so only statements with this very predicateType matched)`,
    );
    return undefined;
  }
  return value;
}

/** What one attestor entry trusts: requirement fields, and its PEM keys when given inline. */
export interface AttestorTrust {
  readonly fields: Record<string, unknown>;
  /** PEM keys inline (so that "any one of" entries can share one Secret). */
  readonly pems?: readonly string[];
}

/**
 * The trust of a key in the Secret `namespace/name` an attestor names (at `path`), its Rekor
 * settings `tlog`; reported `unmapped`, as toolkit reads the Secret's `key` entry, not cosign's.
 */
export function secretKeyTrust(
  name: string,
  namespace: string | undefined,
  tlog: Record<string, unknown>,
  path: string,
  f: Findings,
): AttestorTrust {
  f.unmapped(
    path,
    `toolkit reads the key from the Secret's "key" entry (Kyverno read "cosign.pub"): copy it there`,
  );
  return {
    fields: {
      keySecret: name,
      ...(namespace ? { keySecretNamespace: namespace } : {}),
      ...tlog,
    },
  };
}

/**
 * The trust of one requirement that any one of `trusts` satisfies, where toolkit's meaning is
 * exactly Kyverno's: inline keys (with the same Rekor settings) in one Secret, or keyless
 * identities of one trust root (and one tlog setting). Otherwise the reason there is none.
 */
export function anyOfTrusts(
  trusts: readonly AttestorTrust[],
): AttestorTrust | { readonly refused: string } {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (trusts.every((t) => t.pems !== undefined)) {
    const tlogs = trusts.map((t) => t.fields);
    if (!tlogs.every((t) => same(t, tlogs[0]))) {
      return {
        refused:
          "one of several keys with different Rekor settings: toolkit has one tlog setting per requirement",
      };
    }
    return { fields: tlogs[0] ?? {}, pems: trusts.flatMap((t) => t.pems ?? []) };
  }
  if (trusts.every((t) => isObj(t.fields.keyless))) {
    const first = trusts[0]?.fields ?? {};
    const roots = trusts.map((t) => (t.fields.keyless as Obj).trustRootRef);
    if (
      !roots.every((r) => same(r, roots[0])) || !trusts.every((t) => t.fields.tlog === first.tlog)
    ) {
      return {
        refused:
          "one of several keyless identities of different sigstore instances: toolkit has one trust root per requirement",
      };
    }
    const identities = trusts.flatMap((t) => (t.fields.keyless as Obj).identities as unknown[]);
    return { fields: { ...first, keyless: { trustRootRef: roots[0], identities } } };
  }
  if (trusts.every((t) => t.pems !== undefined || t.fields.keySecret !== undefined)) {
    return {
      refused:
        "one of several keys in different Secrets: a toolkit requirement reads one key Secret",
    };
  }
  return {
    refused: 'one of a key and a keyless identity: toolkit has no "any of" across requirements',
  };
}
