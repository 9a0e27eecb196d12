/**
 * Image references (`registry.example.com:5000/team/app:1.2@sha256:…`), parsed and normalised by
 * the grammar of the distribution reference library (the one Docker, containerd and
 * containers/image use):
 *
 * ```text
 * reference        := name [ ":" tag ] [ "@" digest ]
 * name             := [domain "/"] path
 * domain           := host [":" port]
 * host             := domain-name | "[" IPv6 "]"
 * domain-name      := component ("." component)*      component := [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?
 * path             := path-component ("/" path-component)*
 * path-component   := [a-z0-9]+ (([._]|__|-+) [a-z0-9]+)*
 * tag              := [\w][\w.-]{0,127}
 * digest           := algorithm ":" hex               (sha256, sha384, sha512; lowercase hex)
 * ```
 *
 * The parser is written by hand on top of small anchored expressions, so it runs in linear time
 * on any input and fails only with {@linkcode InvalidReferenceError}. A digest algorithm the
 * grammar accepts but toolkit does not support (`md5`, `constructor`) fails with
 * `unsupported digest algorithm "…"`.
 *
 * The registry host of a parsed reference is canonical ({@linkcode canonicalDomain}): one
 * spelling per registry, so that policies, pull secrets and lookaside scopes compare hosts as
 * plain strings. Upper case stays invalid in the repository path.
 *
 * @module
 */

import { ToolkitError } from "../errors.ts";
import { quoteInput } from "../quote.ts";

/** A parsed, normalised image reference. */
export interface ImageReference {
  /**
   * Registry host with an optional port: `docker.io`, `localhost:5000`, `[::1]:5000`; canonical
   * ({@linkcode canonicalDomain}) when parsed.
   */
  readonly domain: string;
  /** Repository path inside the registry: `library/nginx`. */
  readonly path: string;
  /** The tag, when the reference has one. */
  readonly tag?: string | undefined;
  /** The manifest digest (`sha256:<64 hex>`), when the reference has one. */
  readonly digest?: string | undefined;
}

/** A string that is not a valid image reference; `reason` says which rule it breaks. */
export class InvalidReferenceError extends ToolkitError {
  /** The string that was parsed. */
  readonly input: string;
  /** Which rule the input breaks, e.g. `repository name must be lowercase`. */
  readonly reason: string;

  /** Creates the error for `input` with the broken rule in `reason`. */
  constructor(input: string, reason: string, options?: ErrorOptions) {
    // Any reference the parser looks at is quoted whole; a longer one by its first characters.
    super(
      `Cannot parse image reference "${quoteInput(input, MAX_REFERENCE_LENGTH)}": ${reason}`,
      options,
    );
    this.name = "InvalidReferenceError";
    this.input = input;
    this.reason = reason;
  }
}

/** The registry Docker Hub names are normalised to. */
const DEFAULT_DOMAIN = "docker.io";
/** The other names of Docker Hub (any case), normalised to {@linkcode DEFAULT_DOMAIN}. */
const DOCKER_HUB_ALIASES: ReadonlySet<string> = new Set([
  "index.docker.io",
  "registry-1.docker.io",
]);
/** The port of HTTPS, which is the bare host. */
const HTTPS_PORT = "443";
/** The namespace of official Docker Hub images. */
const OFFICIAL_REPO_PREFIX = "library/";
/** The tag `withDefaultTag()` adds. */
const DEFAULT_TAG = "latest";
/** Longest repository name (domain and path) accepted. */
const NAME_TOTAL_LENGTH_MAX = 255;
/**
 * Longest reference looked at: the longest valid one (a 255-character name, a 128-character
 * tag and a sha512 digest) is about 520 characters, so a longer string is refused before any
 * expression runs on it.
 */
export const MAX_REFERENCE_LENGTH = 1024;

const PATH_COMPONENT_REGEXP = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN_NAME_COMPONENT = "[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?";
const DOMAIN_REGEXP = new RegExp(
  `^(?:${DOMAIN_NAME_COMPONENT}(?:\\.${DOMAIN_NAME_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?$`,
);
const TAG_REGEXP = /^\w[\w.-]{0,127}$/;
const DIGEST_SYNTAX_REGEXP =
  /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
const IDENTIFIER_REGEXP = /^[a-f0-9]{64}$/;
const LOWER_HEX_REGEXP = /^[a-f0-9]+$/;

/**
 * Hex lengths of the digest algorithms the reference grammar supports. A Map, so that an
 * algorithm named like an Object property (`constructor`, `__proto__`) is simply unknown.
 */
const DIGEST_HEX_LENGTHS: ReadonlyMap<string, number> = new Map([
  ["sha256", 64],
  ["sha384", 96],
  ["sha512", 128],
]);

const REASON_EMPTY = "repository name must have at least one component";
const REASON_FORMAT = "invalid reference format";
const REASON_UPPERCASE = "repository name must be lowercase";
const REASON_TOO_LONG = `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`;

/** The parts of a reference as the grammar splits them, before any validation of the digest. */
interface RawParts {
  domain: string;
  path: string;
  tag: string | undefined;
  digest: string | undefined;
}

/** Splits `s` by the reference grammar; undefined when it does not match. */
function matchReference(s: string): RawParts | undefined {
  let rest = s;
  let digest: string | undefined;
  const at = s.indexOf("@");
  if (at >= 0) {
    digest = s.slice(at + 1);
    rest = s.slice(0, at);
    if (!DIGEST_SYNTAX_REGEXP.test(digest)) return undefined;
  }
  // A tag can hold neither "/" nor ":", and the last path component cannot hold ":", so the
  // tag separator can only be a ":" after the last "/".
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG_REGEXP.test(tag)) return undefined;
  }
  const name = matchName(rest);
  if (name === undefined) return undefined;
  return { ...name, tag, digest };
}

/** Splits a name into domain and path; the domain is "" when the first component is no host. */
function matchName(name: string): { domain: string; path: string } | undefined {
  const slash = name.indexOf("/");
  if (slash >= 0) {
    const domain = name.slice(0, slash);
    const path = name.slice(slash + 1);
    if (DOMAIN_REGEXP.test(domain) && isPath(path)) return { domain, path };
  }
  return isPath(name) ? { domain: "", path: name } : undefined;
}

/** Whether `s` is one or more valid path components joined by "/". */
function isPath(s: string): boolean {
  return s.split("/").every((component) => PATH_COMPONENT_REGEXP.test(component));
}

/** Returns why `digest` (already matching the digest syntax) is not a supported digest. */
function digestProblem(digest: string): string | undefined {
  const colon = digest.indexOf(":");
  const algorithm = digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  const length = DIGEST_HEX_LENGTHS.get(algorithm);
  if (length === undefined) return `unsupported digest algorithm "${algorithm}"`;
  if (hex.length !== length) return "invalid checksum digest length";
  if (!LOWER_HEX_REGEXP.test(hex)) return "invalid checksum digest format";
  return undefined;
}

/** Parses without normalisation (like the grammar's `Parse`): the domain may be "". */
function parseRaw(input: string, s: string): RawParts {
  if (s === "") throw new InvalidReferenceError(input, REASON_EMPTY);
  const parts = matchReference(s);
  if (parts === undefined) {
    const lower = s.toLowerCase();
    if (lower !== s && matchReference(lower) !== undefined) {
      throw new InvalidReferenceError(input, REASON_UPPERCASE);
    }
    throw new InvalidReferenceError(input, REASON_FORMAT);
  }
  const nameLength = parts.domain === ""
    ? parts.path.length
    : parts.domain.length + 1 + parts.path.length;
  if (nameLength > NAME_TOTAL_LENGTH_MAX) throw new InvalidReferenceError(input, REASON_TOO_LONG);
  if (parts.digest !== undefined) {
    const problem = digestProblem(parts.digest);
    if (problem !== undefined) throw new InvalidReferenceError(input, problem);
  }
  return parts;
}

/** Splits a familiar name into the Docker Hub domain or the explicit one, and the rest. */
function splitDockerDomain(name: string): { domain: string; remainder: string } {
  const slash = name.indexOf("/");
  if (slash < 0) return { domain: DEFAULT_DOMAIN, remainder: OFFICIAL_REPO_PREFIX + name };
  const first = name.slice(0, slash);
  const after = name.slice(slash + 1);
  let domain: string;
  let remainder: string;
  if (
    first === "localhost" || first.includes(".") || first.includes(":") ||
    // Upper case is not allowed in a path, so an upper-case first component is a host name.
    first.toLowerCase() !== first
  ) {
    [domain, remainder] = [first, after];
  } else {
    [domain, remainder] = [DEFAULT_DOMAIN, name];
  }
  if (canonicalDomain(domain) === DEFAULT_DOMAIN && !remainder.includes("/")) {
    remainder = OFFICIAL_REPO_PREFIX + remainder;
  }
  return { domain, remainder };
}

/** A domain the WHATWG URL parser may read as a host without taking any of it for more. */
const URL_HOST_REGEXP = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]+)?$/;

/** Splits `host[:port]` or `[v6][:port]`; the port is "" when there is none. */
function splitHostPort(domain: string): { host: string; port: string } {
  const colon = domain.lastIndexOf(":");
  if (colon < 0 || colon < domain.lastIndexOf("]")) return { host: domain, port: "" };
  return { host: domain.slice(0, colon), port: domain.slice(colon + 1) };
}

/**
 * Returns the one spelling of a registry host (`host[:port]`, as in image references), the one
 * a container runtime pulls from, so that a policy, a pull secret or a lookaside scope written for
 * a registry applies to every way of writing it:
 *
 * - host names are case-insensitive: `REG.Example.COM` is `reg.example.com`;
 * - a port is a number: `:05000` is `:5000`, and `:443` (HTTPS's) is the bare host, so
 *   `reg.example.com:0443` is `reg.example.com`;
 * - an IP address is written as the URL standard (and so `fetch`) reads it: `0177.0.0.1` and
 *   `2130706433` are `127.0.0.1`, `[0:0::1]` is `[::1]`;
 * - `docker.io`, `index.docker.io` and `registry-1.docker.io` (with `:443` or not) are
 *   `docker.io`;
 * - a host without `.` or `:` other than `localhost` keeps `:443` (`MYREG` is `myreg:443`), since
 *   `myreg/app` would name the Docker Hub repository `myreg/app`.
 *
 * `:443` is the bare host for every registry, including one listed as insecure (reached over
 * plain HTTP): such a registry cannot also serve on port 443 under another policy.
 *
 * Also used for patterns and keys that may hold `*` or `?` globs (`*.Example.com`,
 * `REG:*`): they are lower-cased and their numeric port normalised the same way. Never throws.
 */
export function canonicalDomain(domain: string): string {
  let canonical: string;
  if (URL_HOST_REGEXP.test(domain)) {
    try {
      canonical = new URL(`https://${domain}`).host;
    } catch {
      canonical = normalisePort(domain);
    }
  } else {
    canonical = normalisePort(domain);
  }
  const { host, port } = splitHostPort(canonical);
  if (port === "" && DOCKER_HUB_ALIASES.has(host)) return DEFAULT_DOMAIN;
  if (
    port === "" && host !== "" && !host.includes(".") && !host.startsWith("[") &&
    host !== "localhost" && !/[*?]/.test(host)
  ) {
    return `${host}:${HTTPS_PORT}`;
  }
  return canonical;
}

/** Lower-cases a domain and writes its numeric port without leading zeros, `:443` dropped. */
function normalisePort(domain: string): string {
  const { host, port } = splitHostPort(domain.toLowerCase());
  if (!/^[0-9]+$/.test(port)) return port === "" ? host : `${host}:${port}`;
  const number = port.replace(/^0+(?=[0-9])/, "");
  return number === HTTPS_PORT ? host : `${host}:${number}`;
}

/** Builds the public object, leaving out absent tag and digest. */
function build(
  domain: string,
  path: string,
  tag: string | undefined,
  digest: string | undefined,
): ImageReference {
  const ref: { domain: string; path: string; tag?: string; digest?: string } = { domain, path };
  if (tag !== undefined) ref.tag = tag;
  if (digest !== undefined) ref.digest = digest;
  return ref;
}

/**
 * Parses an image reference as written by users and in pod specs, and normalises it like
 * `ParseNormalizedNamed` of the reference grammar: `nginx` becomes `docker.io/library/nginx`,
 * `index.docker.io/x/y` becomes `docker.io/x/y`; the registry host is written in its one
 * canonical spelling ({@linkcode canonicalDomain}): `REG.example.com:0443/x` becomes
 * `reg.example.com/x`. No tag is added (see {@linkcode withDefaultTag}).
 *
 * @throws {InvalidReferenceError} when the input breaks the grammar (empty, upper case in the
 * path, a bad tag or digest, a name over 255 characters, a 64-character hex identifier, …).
 */
export function parseReference(input: string): ImageReference {
  if (typeof input !== "string") {
    throw new InvalidReferenceError(String(input), "reference must be a string");
  }
  if (input === "") throw new InvalidReferenceError(input, REASON_EMPTY);
  if (input.length > MAX_REFERENCE_LENGTH) {
    throw new InvalidReferenceError(
      input,
      `reference must not be more than ${MAX_REFERENCE_LENGTH} characters`,
    );
  }
  if (IDENTIFIER_REGEXP.test(input)) {
    throw new InvalidReferenceError(
      input,
      "cannot specify 64-byte hexadecimal strings as a repository name",
    );
  }
  const { domain, remainder } = splitDockerDomain(input);
  // The repository name ends at its tag or digest (a digest algorithm may hold upper case).
  const at = remainder.indexOf("@");
  const named = at >= 0 ? remainder.slice(0, at) : remainder;
  const colon = named.indexOf(":");
  const remote = colon >= 0 ? named.slice(0, colon) : named;
  if (remote.toLowerCase() !== remote) {
    throw new InvalidReferenceError(input, REASON_UPPERCASE);
  }
  const parts = parseRaw(input, `${domain}/${remainder}`);
  if (parts.domain === "") {
    // The grammar would keep e.g. "a_b.c/x" as a domain-less name; a registry host is needed.
    throw new InvalidReferenceError(input, `"${domain}" is not a valid registry host`);
  }
  const canonical = canonicalDomain(parts.domain);
  if (canonical.length + 1 + parts.path.length > NAME_TOTAL_LENGTH_MAX) {
    throw new InvalidReferenceError(input, REASON_TOO_LONG);
  }
  return build(canonical, parts.path, parts.tag, parts.digest);
}

/**
 * Parses the fully qualified reference stored in a signature's
 * `critical.identity.docker-reference`. The string must already be in normalised form:
 * `busybox`, `docker.io/busybox` or `index.docker.io/library/busybox:1` are rejected, only
 * `docker.io/library/busybox:1` is accepted.
 *
 * @throws {InvalidReferenceError} when the input is invalid or not in normalised form.
 */
export function parseDockerReference(input: string): ImageReference {
  const ref = parseReference(input);
  const canonical = formatReference(ref);
  if (canonical !== input) {
    throw new InvalidReferenceError(
      input,
      `repository name must be canonical (fully qualified: "${canonical}")`,
    );
  }
  return ref;
}

/** Returns `ref` with the tag `latest` when it has neither a tag nor a digest. */
export function withDefaultTag(ref: ImageReference): ImageReference {
  if (ref.tag !== undefined || ref.digest !== undefined) return ref;
  return build(ref.domain, ref.path, DEFAULT_TAG, undefined);
}

/** Returns the repository name with its domain: `docker.io/library/nginx`. */
export function repositoryName(ref: ImageReference): string {
  return `${ref.domain}/${ref.path}`;
}

/** Returns the full normalised reference: `name[:tag][@digest]`. */
export function formatReference(ref: ImageReference): string {
  let s = repositoryName(ref);
  if (ref.tag !== undefined) s += `:${ref.tag}`;
  if (ref.digest !== undefined) s += `@${ref.digest}`;
  return s;
}

/**
 * Returns the short name Docker shows: Docker Hub's domain and the `library/` namespace of
 * official images are left out (`nginx`, `user/app`), other registries keep their domain
 * (`localhost:5000/x`). Tag and digest are not included.
 */
export function familiarName(ref: ImageReference): string {
  if (ref.domain !== DEFAULT_DOMAIN) return repositoryName(ref);
  if (ref.path.startsWith(OFFICIAL_REPO_PREFIX)) {
    const rest = ref.path.slice(OFFICIAL_REPO_PREFIX.length);
    if (!rest.includes("/")) return rest;
  }
  return ref.path;
}

/**
 * Whether `s` is a supported manifest digest: `sha256:` with 64 lowercase hex characters,
 * `sha384:` with 96 or `sha512:` with 128.
 */
export function isDigest(s: string): boolean {
  if (typeof s !== "string") return false;
  const colon = s.indexOf(":");
  if (colon < 0) return false;
  const length = DIGEST_HEX_LENGTHS.get(s.slice(0, colon));
  const hex = s.slice(colon + 1);
  return length !== undefined && hex.length === length && LOWER_HEX_REGEXP.test(hex);
}
