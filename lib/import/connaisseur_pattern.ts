/**
 * Connaisseur's image policy patterns, read as Connaisseur reads them, and their translation to
 * toolkit's repository patterns (lib/policy/pattern.ts).
 *
 * Connaisseur (internal/config/config.go `MatchingRule`, at sse-secure-systems/connaisseur
 * 0c40cab) wraps a pattern in `*…*` and matches it as a gobwas glob (`*` matches any run,
 * `/` included) against the image's full name as go-containerregistry spells it
 * (`index.docker.io/library/nginx:latest`, a tag `latest` when none is given, `@sha256:…` when a
 * digest is): a pattern matches wherever it occurs in the name. Among the matching rules the
 * most specific wins (internal/policy/match.go): more `/`-components, then the longer common
 * prefix with the image's component, leftmost first, then the longer component; on a full tie
 * the later rule.
 *
 * toolkit anchors a pattern at the registry host and picks an exact name, then the most literal
 * characters. {@linkcode translateConnaisseurPattern} keeps what a pattern covers after its
 * start (a tail `:*` is every tag and digest of the repository, which a toolkit pattern without
 * a tag already is; another tail gets the `*` Connaisseur adds) and says where the start
 * differs; {@linkcode connaisseurChoice} replays Connaisseur's choice so that an importer can
 * show, image by image, where the two choices differ.
 *
 * @module
 */
import { Glob } from "../glob.ts";
import type { ImageReference } from "../image/mod.ts";
import { patternProblem } from "../policy/mod.ts";

/** A Connaisseur pattern in toolkit's terms. */
export type TranslatedPattern =
  | {
    readonly pattern: string;
    /** How the toolkit pattern covers other images than Connaisseur's; undefined when exact. */
    readonly difference?: string;
  }
  | { readonly refused: string };

/** Glob syntax of gobwas/glob that toolkit's patterns do not have. */
const UNSUPPORTED_GLOB = /[?[\]{}\\!]/;

function looksLikeHost(component: string): boolean {
  return component.includes(".") || component.includes(":") || component === "localhost";
}

/**
 * The toolkit pattern for Connaisseur pattern `source`, or why there is none (glob syntax
 * beyond `*`, a digest, a pattern no image name can match).
 */
export function translateConnaisseurPattern(source: string): TranslatedPattern {
  const trimmed = source.trim();
  if (trimmed === "") return { refused: "is empty" };
  const unsupported = UNSUPPORTED_GLOB.exec(trimmed);
  if (unsupported) {
    return {
      refused: `uses the glob syntax ${
        JSON.stringify(unsupported[0])
      }, which toolkit's patterns do not have (only *)`,
    };
  }
  if (trimmed.includes("@")) {
    return {
      refused:
        "names a digest (@sha256:…): toolkit's patterns match the repository and tag, never the digest; pin the digest in the workload instead",
    };
  }
  // The tail: `:*` is "any tag or digest", which a toolkit pattern without a tag already is;
  // otherwise Connaisseur's trailing `*` is kept.
  let body = trimmed;
  let tail = "*";
  if (body.endsWith(":*")) {
    body = body.slice(0, -2);
    tail = "";
  } else if (body.endsWith("*")) {
    tail = "";
  }
  if (body.replaceAll("*", "") === "") return checked("*", undefined);
  const slash = body.indexOf("/");
  const first = slash < 0 ? body : body.slice(0, slash);
  const anywhere = `Connaisseur matches ${
    JSON.stringify(source)
  } anywhere in the image name (as *${trimmed}*, against index.docker.io/… for Docker Hub)`;
  if (first.startsWith("*") || first.endsWith("*")) {
    if (slash < 0) return checked(`*${body.replace(/^\*+/, "")}${tail}`, undefined);
    return checked(
      `${body}${tail}`,
      `${anywhere}; toolkit matches ${
        JSON.stringify(first)
      } against the registry host only and the rest from the start of the repository path`,
    );
  }
  if (looksLikeHost(first)) {
    const pattern = slash < 0 ? `${body}/*` : `${body}${tail}`;
    return checked(
      pattern,
      `${anywhere}, e.g. also other.example/${body}… or x${body}…; toolkit anchors it at the registry host ${
        JSON.stringify(first)
      }`,
    );
  }
  if (slash < 0) {
    // No host and no `/`: toolkit matches it against the whole name, as Connaisseur does.
    return checked(`*${body}${tail}`, undefined);
  }
  return checked(
    `*/*${body}${tail}`,
    `${anywhere}; toolkit matches it within the repository path of any registry, so a match spanning the registry host (a host ending in ${
      JSON.stringify(first)
    }) is not covered`,
  );
}

function checked(pattern: string, difference: string | undefined): TranslatedPattern {
  const problem = patternProblem(pattern);
  if (problem !== undefined) {
    return { refused: `becomes the toolkit pattern "${pattern}", which ${problem}` };
  }
  return difference === undefined ? { pattern } : { pattern, difference };
}

/**
 * The name Connaisseur matches patterns against: go-containerregistry's full name, Docker Hub
 * as `index.docker.io`, `:latest` when the reference has neither tag nor digest.
 */
export function connaisseurImageName(image: ImageReference): string {
  const domain = image.domain === "docker.io" ? "index.docker.io" : image.domain;
  const tag = image.tag ?? (image.digest === undefined ? "latest" : undefined);
  return `${domain}/${image.path}${tag === undefined ? "" : `:${tag}`}${
    image.digest === undefined ? "" : `@${image.digest}`
  }`;
}

/** Whether Connaisseur's pattern matches `name` (a {@linkcode connaisseurImageName}). */
export function connaisseurMatches(pattern: string, name: string): boolean {
  return new Glob(`*${pattern}*`).matches(name);
}

interface Specificity {
  readonly lengths: readonly number[];
  readonly prefixes: readonly number[];
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function specificity(pattern: string, name: string): Specificity {
  const components = pattern.split("/");
  const imageComponents = name.split("/");
  return {
    lengths: components.map((c) => c.length),
    prefixes: components.map((c, i) => commonPrefix(c, imageComponents[i] ?? "")),
  };
}

/** True when `a` beats `b` as Connaisseur's match.go compares them (ties go to `a`). */
function beats(a: Specificity, b: Specificity): boolean {
  if (a.lengths.length !== b.lengths.length) return a.lengths.length > b.lengths.length;
  for (let i = 0; i < a.prefixes.length; i++) {
    if (a.prefixes[i] !== b.prefixes[i]) return a.prefixes[i]! > b.prefixes[i]!;
  }
  for (let i = 0; i < a.lengths.length; i++) {
    if (a.lengths[i] !== b.lengths[i]) return a.lengths[i]! > b.lengths[i]!;
  }
  return true;
}

/**
 * The index of the rule Connaisseur applies to `name` among `patterns` (its "most specific
 * match"), or undefined when none matches (Connaisseur then denies).
 */
export function connaisseurChoice(patterns: readonly string[], name: string): number | undefined {
  // Connaisseur starts from the match of an empty pattern: one component of length 0.
  const none: Specificity = { lengths: [0], prefixes: [0] };
  let best: { index: number; specificity: Specificity } | undefined;
  for (let i = 0; i < patterns.length; i++) {
    const pattern = patterns[i]!;
    if (!connaisseurMatches(pattern, name)) continue;
    const mine = specificity(pattern, name);
    if (beats(mine, best?.specificity ?? none)) best = { index: i, specificity: mine };
  }
  return best?.index;
}
