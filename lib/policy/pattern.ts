/**
 * Matching image references against repository name patterns.
 *
 * A pattern is an image name in which `*` matches any run of characters. Both sides are
 * normalised first (`nginx` is `docker.io/library/nginx`), and the registry host is written in
 * its one canonical spelling on both sides ({@linkcode canonicalDomain}: lower case, ports as
 * numbers, `:443` dropped, Docker Hub's names as `docker.io`), so `REG.example.com:0443/app` is
 * governed by the pattern `reg.example.com/*`. The registry host is matched on its own: the pattern's host part (before its first `/`) is matched against the image's
 * host only, so `*.trusted.example.com/*` never matches
 * `attacker.com/x.trusted.example.com/…`. The path part is matched against the repository
 * path, and, when the image has a tag, also against `path:tag`: a pattern without a tag
 * covers every tag and every digest of its repository. A pattern without any `/` is matched
 * against the whole normalised name (`*` matches every image).
 *
 * @module
 */
import { type CacheStats, TtlCache } from "../cache.ts";
import { canonicalDomain, type ImageReference } from "../image/mod.ts";

/** A parsed repository pattern. */
export interface RepositoryPattern {
  /** The pattern as written in the policy. */
  readonly source: string;
  /**
   * The host part in canonical form (`docker.io`, `*.icr.io`, `localhost:5000`), or undefined
   * for a whole-name pattern.
   */
  readonly host?: string;
  /** The path part (`library/nginx`, `team/*`, `app:1.*`), or the whole-name pattern. */
  readonly path: string;
  /** How specific the pattern is: its literal characters; higher wins. */
  readonly specificity: number;
  /** True when the pattern has no `*`: an exact name, which beats any wildcard. */
  readonly exact: boolean;
}

function looksLikeHost(component: string): boolean {
  return component.includes(".") || component.includes(":") || component === "localhost" ||
    component.includes("*") || component !== component.toLowerCase();
}

/** The number of literal characters of a pattern. */
function literalCharacters(pattern: string): number {
  return pattern.replaceAll("*", "").length;
}

/**
 * Parses a pattern, normalising Docker Hub short names like image references and writing its
 * host in canonical form. Specificity counts the literal characters of the pattern as written,
 * its host in canonical form (so `REG.EXAMPLE.COM:0443/*` scores as `reg.example.com/*`).
 */
export function parsePattern(source: string): RepositoryPattern {
  const trimmed = source.trim();
  const exact = !trimmed.includes("*");
  const slash = trimmed.indexOf("/");
  if (slash < 0) {
    const specificity = literalCharacters(trimmed);
    if (!exact) return { source, path: trimmed, specificity, exact };
    // A bare name such as "nginx" or "nginx:1.25" is a Docker Hub official image.
    return { source, host: "docker.io", path: `library/${trimmed}`, specificity, exact };
  }
  const first = trimmed.slice(0, slash);
  if (!looksLikeHost(first)) {
    const specificity = literalCharacters(trimmed);
    return { source, host: "docker.io", path: trimmed, specificity, exact };
  }
  const host = canonicalDomain(first);
  const path = trimmed.slice(slash + 1);
  const specificity = literalCharacters(`${host}/${path}`);
  return { source, host, path, specificity, exact };
}

/** Compiled globs (they come from policies), bounded by count and by the bytes of the globs. */
const globCache = new TtlCache<string, RegExp>({
  name: "glob",
  ttlMs: 24 * 3600_000,
  maxEntries: 4096,
  maxBytes: 4 * 1024 * 1024,
  sizeOf: (glob) => 4 * glob.length + 64,
});

/** The size and bounds of the compiled-glob cache, for metrics. */
export function globCacheStats(): CacheStats {
  return globCache.stats();
}

/** True when `text` matches the glob, where `*` matches any run of characters. */
export function globMatch(glob: string, text: string): boolean {
  let re = globCache.get(glob);
  if (!re) {
    const body = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&"))
      .join(".*");
    re = new RegExp(`^${body}$`, "s");
    globCache.set(glob, re);
  }
  return re.test(text);
}

/**
 * The canonical host, and for a host without a port also with HTTPS's `:443`, which it implies:
 * a pattern `reg.example.com:*` covers `reg.example.com` (canonical for `reg.example.com:443`).
 */
function hostSpellings(domain: string): string[] {
  return /:[0-9]+$/.test(domain) ? [domain] : [domain, `${domain}:443`];
}

/** True when the image matches the pattern. */
export function patternMatches(pattern: RepositoryPattern, image: ImageReference): boolean {
  const candidates = [image.path];
  if (image.tag !== undefined) candidates.push(`${image.path}:${image.tag}`);
  if (pattern.host === undefined) {
    return candidates.some((c) => globMatch(pattern.path, `${image.domain}/${c}`));
  }
  if (!hostSpellings(image.domain).some((host) => globMatch(pattern.host!, host))) return false;
  return candidates.some((c) => globMatch(pattern.path, c));
}
