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
import { Glob, type StepCounter } from "../glob.ts";
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
  /** The host part, compiled (linear-time matching, see lib/glob.ts). */
  readonly hostGlob?: Glob;
  /** The path part (or the whole-name pattern), compiled. */
  readonly pathGlob: Glob;
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
    if (!exact) return { source, path: trimmed, specificity, exact, pathGlob: new Glob(trimmed) };
    // A bare name such as "nginx" or "nginx:1.25" is a Docker Hub official image.
    return compiled(source, "docker.io", `library/${trimmed}`, specificity, exact);
  }
  const first = trimmed.slice(0, slash);
  if (!looksLikeHost(first)) {
    return compiled(source, "docker.io", trimmed, literalCharacters(trimmed), exact);
  }
  const host = canonicalDomain(first);
  const path = trimmed.slice(slash + 1);
  return compiled(source, host, path, literalCharacters(`${host}/${path}`), exact);
}

function compiled(
  source: string,
  host: string,
  path: string,
  specificity: number,
  exact: boolean,
): RepositoryPattern {
  return {
    source,
    host,
    path,
    specificity,
    exact,
    hostGlob: new Glob(host),
    pathGlob: new Glob(path),
  };
}

/**
 * The canonical host, and for a host without a port also with HTTPS's `:443`, which it implies:
 * a pattern `reg.example.com:*` covers `reg.example.com` (canonical for `reg.example.com:443`).
 */
function hostSpellings(domain: string): string[] {
  return /:[0-9]+$/.test(domain) ? [domain] : [domain, `${domain}:443`];
}

/**
 * The texts an image is matched against, made once for all the patterns tried on it: its host
 * spellings, its repository path with and without the tag, and the same as whole names.
 */
export interface MatchTexts {
  readonly hosts: readonly string[];
  readonly paths: readonly string[];
  readonly wholes: readonly string[];
}

/** The texts of {@linkcode MatchTexts} for `image`. */
export function matchTexts(image: ImageReference): MatchTexts {
  const paths = image.tag === undefined ? [image.path] : [image.path, `${image.path}:${image.tag}`];
  return {
    hosts: hostSpellings(image.domain),
    paths,
    wholes: paths.map((path) => `${image.domain}/${path}`),
  };
}

/**
 * The steps counted for trying one pattern, besides its character steps: the fixed work of a
 * try, so that a counter measures the work of many short tries too.
 */
export const STEPS_PER_TRY = 32;

/**
 * True when the image matches the pattern. Matching takes time linear in the pattern and the
 * name (see lib/glob.ts); `counter` receives the character steps taken.
 */
export function patternMatches(
  pattern: RepositoryPattern,
  image: ImageReference | MatchTexts,
  counter?: StepCounter,
): boolean {
  const texts = "hosts" in image ? image : matchTexts(image);
  if (counter) counter.steps += STEPS_PER_TRY;
  const { hostGlob, pathGlob } = pattern;
  if (hostGlob === undefined) return texts.wholes.some((c) => pathGlob.matches(c, counter));
  if (!texts.hosts.some((host) => hostGlob.matches(host, counter))) return false;
  return texts.paths.some((c) => pathGlob.matches(c, counter));
}

/** The longest repository pattern accepted (the CRD schema says the same). */
export const MAX_PATTERN_LENGTH = 512;

/**
 * The longest text a pattern is matched against: a 255-character name (registry and path), a
 * colon and a 128-character tag. A pattern with more literal characters can never match.
 */
export const MAX_MATCHED_NAME_LENGTH = 255 + 1 + 128;

/** Characters an image name or tag can hold, and `*`. */
function patternCharacter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) ||
    code === 46 || code === 95 || code === 45 || code === 47 || code === 58 || code === 42 ||
    code === 91 || code === 93; // . _ - / : * [ ]
}

/**
 * Why a repository pattern can never match an image name, or undefined when it can. Checked
 * when a policy is validated, so that a pattern is refused with its field path instead of
 * silently governing nothing: too long, characters no image name holds, a digest (patterns
 * match the repository and tag, never the digest), more literal characters than the longest
 * name, or upper case in the repository path (only registry hosts and tags may have it).
 */
export function patternProblem(source: string): string | undefined {
  if (source.length > MAX_PATTERN_LENGTH) {
    return `is ${source.length} characters long; a pattern has at most ${MAX_PATTERN_LENGTH}`;
  }
  const trimmed = source.trim();
  if (trimmed === "") return "is empty";
  for (let i = 0; i < trimmed.length; i++) {
    const code = trimmed.charCodeAt(i);
    if (code === 64) {
      return "holds a digest (@): a pattern matches the repository name and tag, never the digest";
    }
    if (!patternCharacter(code)) {
      return `holds ${
        JSON.stringify(trimmed[i])
      }, which no image name has (letters, digits, . _ - / : [ ] and * only)`;
    }
  }
  const literals = literalCharacters(trimmed);
  if (literals > MAX_MATCHED_NAME_LENGTH) {
    return `has ${literals} characters besides *; no image name and tag is longer than ${MAX_MATCHED_NAME_LENGTH}`;
  }
  const pattern = parsePattern(trimmed);
  if (pattern.host !== undefined) {
    const repository = pattern.path.split(":")[0]!;
    if (repository !== repository.toLowerCase()) {
      return `has upper case in the repository path "${repository}", which image names never have`;
    }
  }
  return undefined;
}
