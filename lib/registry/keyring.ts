/**
 * Which stored credentials apply to an image, by the host rules of Kubernetes' credential
 * provider (`pkg/credentialprovider/keyring.go`):
 *
 * - A key may be a bare host (`quay.io`), a host with a port (`localhost:5000`), a host with a
 *   path (`quay.io/team`), or a URL with a scheme (`https://index.docker.io/v1/`). The scheme is
 *   dropped, and a leading `/v1/` or `/v2/` path is the registry's API root, not a namespace.
 * - Hosts are compared in their canonical spelling (`canonicalDomain` of lib/image): case does
 *   not matter, `:0443` and `:443` are the bare host, and `docker.io`, `index.docker.io` and
 *   `registry-1.docker.io` are one registry.
 * - The port must be the same on both sides: `localhost` does not match `localhost:5000`.
 * - A key with a path matches only repositories at or under that path (`quay.io/team` matches
 *   `quay.io/team/app`, not `quay.io/teammate/app`; Kubernetes compares plain string prefixes
 *   here, toolkit compares whole path components).
 * - `*` and `?` glob within one label of the host: `*.example.com` matches `a.example.com`, not
 *   `a.b.example.com` or `example.com`.
 *
 * All matching credentials are returned, the most specific first: a longer key path first, then
 * keys without wildcards, then in the order the entries were given (so the order of a pod's
 * `imagePullSecrets` is kept). The registry client tries them in that order.
 *
 * @module
 */

import { Glob } from "../glob.ts";
import { canonicalDomain } from "../image/mod.ts";
import type { Credential, CredentialEntry } from "./credentials.ts";

/** Looks up the credentials for a repository. */
export interface CredentialStore {
  /**
   * Returns the credentials to try for `repository` (a path such as `team/app`) on `registry`
   * (a host with an optional port, as in an image reference), most specific first; empty when
   * none apply.
   */
  lookup(registry: string, repository: string): readonly Credential[];
}

/** A registry location split for matching. */
interface Location {
  labels: string[];
  port: string;
  /** "" or "/a/b" without a trailing slash. */
  path: string;
}

/** A parsed keyring entry. */
interface KeyringEntry {
  location: Location;
  wildcards: number;
  credential: Credential;
  order: number;
}

/** Splits `host[:port]` (or `[v6]:port`) into a lowercased host and a port ("" when none). */
function splitHostPort(authority: string): { host: string; port: string } {
  if (authority.startsWith("[")) {
    const end = authority.indexOf("]");
    if (end > 0) {
      const rest = authority.slice(end + 1);
      return {
        host: authority.slice(0, end + 1).toLowerCase(),
        port: rest.startsWith(":") ? rest.slice(1) : "",
      };
    }
  }
  const colon = authority.lastIndexOf(":");
  if (colon >= 0 && /^\d*$/.test(authority.slice(colon + 1))) {
    return { host: authority.slice(0, colon).toLowerCase(), port: authority.slice(colon + 1) };
  }
  return { host: authority.toLowerCase(), port: "" };
}

/** Parses a credential key or an image location; undefined when it has no host. */
function parseLocation(value: string, isKey: boolean): Location | undefined {
  let s = value.trim();
  if (isKey) s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  const slash = s.indexOf("/");
  let authority = slash >= 0 ? s.slice(0, slash) : s;
  let path = slash >= 0 ? s.slice(slash) : "";
  const at = authority.lastIndexOf("@");
  if (at >= 0) authority = authority.slice(at + 1);
  path = path.replace(/[?#].*$/, "");
  if (isKey && (path.startsWith("/v1/") || path.startsWith("/v2/"))) path = path.slice(3);
  path = path.replace(/\/+$/, "");
  const { host, port } = splitHostPort(canonicalDomain(authority));
  if (host === "") return undefined;
  return { labels: host.split("."), port, path };
}

/**
 * Matches one host label against a glob label (`*` any run, `?` one character), in linear time
 * (lib/glob.ts): keys come from pull secrets, which namespace owners write.
 */
function labelMatches(glob: string, label: string): boolean {
  if (!glob.includes("*") && !glob.includes("?")) return glob === label;
  return new Glob(glob, { questionMark: true }).matches(label);
}

function locationMatches(key: Location, target: Location): boolean {
  if (key.port !== target.port) return false;
  if (key.labels.length !== target.labels.length) return false;
  if (key.path !== "" && target.path !== key.path && !target.path.startsWith(`${key.path}/`)) {
    return false;
  }
  return key.labels.every((glob, i) => labelMatches(glob, target.labels[i]!));
}

/**
 * Whether a credential key (`quay.io/team`, `*.example.com`, `https://index.docker.io/v1/`)
 * applies to `repository` on `registry`, by the rules described in this module.
 */
export function credentialKeyMatches(key: string, registry: string, repository: string): boolean {
  const keyLocation = parseLocation(key, true);
  const target = parseLocation(`${registry}/${repository}`, false);
  return keyLocation !== undefined && target !== undefined && locationMatches(keyLocation, target);
}

/** A set of credentials with their keys, looked up by registry and repository. */
export interface Keyring extends CredentialStore {
  /** The number of usable entries (entries whose key has no host are dropped). */
  readonly size: number;
}

/**
 * Creates a keyring from entries in priority order (for a pod: the entries of its first pull
 * secret, then of the second, …).
 */
export function createKeyring(entries: Iterable<CredentialEntry>): Keyring {
  const parsed: KeyringEntry[] = [];
  let order = 0;
  for (const entry of entries) {
    const location = parseLocation(entry.key, true);
    if (location === undefined) continue;
    const wildcards = location.labels.filter((l) => l.includes("*") || l.includes("?")).length;
    parsed.push({ location, wildcards, credential: entry.credential, order: order++ });
  }
  return {
    size: parsed.length,
    lookup(registry: string, repository: string): readonly Credential[] {
      const target = parseLocation(`${registry}/${repository}`, false);
      if (target === undefined) return [];
      const matches = parsed.filter((e) => locationMatches(e.location, target));
      matches.sort((a, b) =>
        b.location.path.length - a.location.path.length || a.wildcards - b.wildcards ||
        a.order - b.order
      );
      const seen = new Set<string>();
      const result: Credential[] = [];
      for (const match of matches) {
        const id = `${match.credential.username}\u0000${match.credential.password}`;
        if (seen.has(id)) continue;
        seen.add(id);
        result.push(match.credential);
      }
      return result;
    },
  };
}

/** A store that returns the same credential for every registry (`--creds`). */
export function staticCredentials(credential: Credential): CredentialStore {
  return { lookup: () => [credential] };
}
