/**
 * Matching image references against repository name patterns.
 *
 * A pattern is an image name in which `*` matches any run of characters. Both sides are
 * normalised first (`nginx` is `docker.io/library/nginx`), and the registry host is matched
 * on its own: the pattern's host part (before its first `/`) is matched against the image's
 * host only, so `*.trusted.example.com/*` never matches
 * `attacker.com/x.trusted.example.com/…`. The path part is matched against the repository
 * path, and, when the image has a tag, also against `path:tag`: a pattern without a tag
 * covers every tag and every digest of its repository. A pattern without any `/` is matched
 * against the whole normalised name (`*` matches every image).
 *
 * @module
 */
import { type CacheStats, TtlCache } from "../cache.ts";
import type { ImageReference } from "../image/mod.ts";

/** A parsed repository pattern. */
export interface RepositoryPattern {
  /** The pattern as written in the policy. */
  readonly source: string;
  /** The host part (`docker.io`, `*.icr.io`), or undefined for a whole-name pattern. */
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

/** Parses a pattern, normalising Docker Hub short names like image references. */
export function parsePattern(source: string): RepositoryPattern {
  const trimmed = source.trim();
  const specificity = trimmed.replaceAll("*", "").length;
  const exact = !trimmed.includes("*");
  const slash = trimmed.indexOf("/");
  if (slash < 0) {
    if (!exact) return { source, path: trimmed, specificity, exact };
    // A bare name such as "nginx" or "nginx:1.25" is a Docker Hub official image.
    return { source, host: "docker.io", path: `library/${trimmed}`, specificity, exact };
  }
  const first = trimmed.slice(0, slash);
  if (!looksLikeHost(first)) {
    return { source, host: "docker.io", path: trimmed, specificity, exact };
  }
  const host = first === "index.docker.io" ? "docker.io" : first;
  return { source, host, path: trimmed.slice(slash + 1), specificity, exact };
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

/** True when the image matches the pattern. */
export function patternMatches(pattern: RepositoryPattern, image: ImageReference): boolean {
  const candidates = [image.path];
  if (image.tag !== undefined) candidates.push(`${image.path}:${image.tag}`);
  if (pattern.host === undefined) {
    return candidates.some((c) => globMatch(pattern.path, `${image.domain}/${c}`));
  }
  if (!globMatch(pattern.host, image.domain)) return false;
  return candidates.some((c) => globMatch(pattern.path, c));
}
