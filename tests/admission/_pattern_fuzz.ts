/**
 * The fuzz of what policy authors write that the webhook matches (test helper; used by
 * `pattern_fuzz_test.ts` and, in its long mode, by `tests/bench/admission_fuzz.ts`):
 *
 * - **Repository patterns**: random patterns (wildcards anywhere, literal pieces of random
 *   lengths over a small alphabet, so that near-matches abound, with and without a host and a
 *   tag) against random image names up to the longest legal ones (a 255-character name and a
 *   128-character tag). Each match is judged by a plain reference (dynamic programming over the
 *   documented decomposition into host and path, nothing shared with `lib/glob.ts`), and its
 *   steps by the linear bound (`STEPS_PER_TRY` plus about twice the text and the pattern for
 *   each text tried). A policy set's choice is judged by the reference choice (exact first, then
 *   most literal characters, then order), so the host index can never change a verdict.
 * - **Identity rules**: random `remapIdentity` prefixes and `matchRepository` rules against
 *   random images and signed identities, judged by a plain reading of containers/image's rules.
 *
 * @module
 */
import { parseReference } from "../../lib/image/mod.ts";
import type { ImageReference } from "../../lib/image/mod.ts";
import {
  type ImagePolicy,
  parsePattern,
  patternMatches,
  patternProblem,
  PolicySet,
  type RepositoryPattern,
  STEPS_PER_TRY,
} from "../../lib/policy/mod.ts";
import { matchIdentity, parseIdentityRule } from "../../lib/signature/mod.ts";
import { Rng } from "./_fuzz_generator.ts";

/** One disagreement, with what replays it. */
export interface PatternFuzzFailure {
  readonly kind: "match" | "steps" | "select" | "identity";
  readonly detail: string;
}

/** The figures of a run. */
export interface PatternFuzzReport {
  readonly seed: number;
  readonly patterns: number;
  readonly matches: number;
  readonly matched: number;
  readonly selections: number;
  readonly identities: number;
  /** The most steps one match took, and that bound's share used at most. */
  readonly maxSteps: number;
  readonly maxBoundShare: number;
  readonly failures: readonly PatternFuzzFailure[];
  readonly ms: number;
}

/** The plain reference glob: dynamic programming, `*` any run. */
export function referenceGlob(glob: string, text: string): boolean {
  let row = new Uint8Array(text.length + 1);
  row[0] = 1;
  for (let g = 0; g < glob.length; g++) {
    const next = new Uint8Array(text.length + 1);
    if (glob[g] === "*") {
      let any = 0;
      for (let j = 0; j <= text.length; j++) next[j] = any ||= row[j]!;
    } else {
      for (let j = 1; j <= text.length; j++) {
        next[j] = row[j - 1]! && glob[g] === text[j - 1] ? 1 : 0;
      }
    }
    row = next;
  }
  return row[text.length] === 1;
}

/** The reference reading of the documented rule, from the pattern's host and path. */
function referenceMatch(pattern: RepositoryPattern, image: ImageReference): boolean {
  const paths = image.tag === undefined ? [image.path] : [image.path, `${image.path}:${image.tag}`];
  if (pattern.host === undefined) {
    return paths.some((p) => referenceGlob(pattern.path, `${image.domain}/${p}`));
  }
  const hosts = /:[0-9]+$/.test(image.domain)
    ? [image.domain]
    : [image.domain, `${image.domain}:443`];
  return hosts.some((h) => referenceGlob(pattern.host!, h)) &&
    paths.some((p) => referenceGlob(pattern.path, p));
}

/** The most steps a match may take: per text tried, twice the text and the glob, and a try. */
function stepBound(pattern: RepositoryPattern, image: ImageReference): number {
  const paths = image.tag === undefined ? [image.path] : [image.path, `${image.path}:${image.tag}`];
  const texts = pattern.host === undefined
    ? paths.map((p) => `${image.domain}/${p}`.length + pattern.path.length)
    : [
      ...[image.domain, `${image.domain}:443`].map((h) => h.length + pattern.host!.length),
      ...paths.map((p) => p.length + pattern.path.length),
    ];
  return STEPS_PER_TRY + texts.reduce((sum, n) => sum + 2 * n + 4, 0);
}

const HOSTS = ["evil.io", "reg.example.com", "localhost:5000", "docker.io", "a.a.a"];
const ALPHABET = "aab/-.:";

/** A random image name, often near the longest legal one. */
function randomImage(rng: Rng): string {
  const host = rng.pick(HOSTS);
  const long = rng.chance(0.4);
  const pathLength = long ? 255 - host.length - 1 : 1 + rng.int(40);
  let path = "";
  while (path.length < pathLength) {
    const component = "a".repeat(1 + rng.int(long ? 60 : 8)) + (rng.chance(0.3) ? "b" : "");
    path += (path === "" ? "" : rng.pick(["/", "-", ".", "_"])) + component;
  }
  path = path.slice(0, pathLength).replace(/[^a-z0-9]+$/, "") || "a";
  const tag = rng.chance(0.6)
    ? ":" + ("a".repeat(long ? 120 : 1 + rng.int(6)) + (rng.chance(0.5) ? "b" : "")).slice(0, 128)
    : "";
  return `${host}/${path}${tag}`;
}

/** A random pattern: wildcards and literal pieces, with or without a host. */
function randomPattern(rng: Rng): string {
  const pieces: string[] = [];
  const count = 1 + rng.int(rng.chance(0.2) ? 60 : 8);
  for (let i = 0; i < count; i++) {
    pieces.push(
      rng.chance(0.5) ? "*" : Array.from({ length: 1 + rng.int(5) }, () => rng.pick([...ALPHABET]))
        .join(""),
    );
  }
  const body = pieces.join("");
  const withHost = rng.chance(0.6) ? `${rng.pick([...HOSTS, "*.io", "*", "evil.*"])}/` : "";
  return (withHost + body).slice(0, 512);
}

/** Runs the pattern and identity fuzz. */
export function runPatternFuzz(options: {
  readonly seed: number;
  readonly patterns: number;
  readonly imagesPerPattern: number;
  readonly maxFailures?: number;
}): PatternFuzzReport {
  const started = performance.now();
  const rng = new Rng(options.seed);
  const failures: PatternFuzzFailure[] = [];
  const maxFailures = options.maxFailures ?? 20;
  let matches = 0;
  let matched = 0;
  let maxSteps = 0;
  let maxBoundShare = 0;
  const valid: string[] = [];
  for (let p = 0; p < options.patterns && failures.length < maxFailures; p++) {
    const source = randomPattern(rng);
    if (patternProblem(source) !== undefined) continue;
    valid.push(source);
    const pattern = parsePattern(source);
    for (let i = 0; i < options.imagesPerPattern; i++) {
      const text = randomImage(rng);
      let image: ImageReference;
      try {
        image = parseReference(text);
      } catch {
        continue;
      }
      const counter = { steps: 0 };
      const got = patternMatches(pattern, image, counter);
      const want = referenceMatch(pattern, image);
      matches++;
      if (got) matched++;
      const bound = stepBound(pattern, image);
      maxSteps = Math.max(maxSteps, counter.steps);
      maxBoundShare = Math.max(maxBoundShare, counter.steps / bound);
      if (got !== want) {
        failures.push({ kind: "match", detail: `${JSON.stringify(source)} vs ${text}: ${got}` });
      } else if (counter.steps > bound) {
        failures.push({
          kind: "steps",
          detail: `${JSON.stringify(source)} vs ${text}: ${counter.steps} > ${bound}`,
        });
      }
    }
  }
  // Choices of a set: the index by host never changes which pattern wins.
  let selections = 0;
  for (let s = 0; s < Math.min(200, valid.length) && failures.length < maxFailures; s++) {
    const chosen = Array.from({ length: 1 + rng.int(40) }, () => rng.pick(valid));
    const policy: ImagePolicy = {
      kind: "ImagePolicy",
      name: "p",
      namespace: "dev",
      repositories: chosen.map((name, i) => ({
        name,
        policy: { mode: i % 2 ? "warn" : "enforce" },
      })),
    };
    const set = new PolicySet([policy]);
    const compiled = chosen.map((name, order) => ({ name, pattern: parsePattern(name), order }));
    for (let i = 0; i < 20; i++) {
      const text = randomImage(rng);
      let image: ImageReference;
      try {
        image = parseReference(text);
      } catch {
        continue;
      }
      selections++;
      const got = set.select("dev", image, text);
      let best: (typeof compiled)[number] | undefined;
      for (const c of compiled) {
        if (!referenceMatch(c.pattern, image)) continue;
        if (
          !best || (c.pattern.exact && !best.pattern.exact) ||
          (c.pattern.exact === best.pattern.exact &&
            c.pattern.specificity > best.pattern.specificity)
        ) {
          best = c;
        }
      }
      const gotPattern = got.policy === undefined ? undefined : "pattern" in got ? got.pattern : "";
      if (gotPattern !== best?.name) {
        failures.push({
          kind: "select",
          detail: `${text} among ${JSON.stringify(chosen)}: ${gotPattern} (want ${best?.name})`,
        });
      }
    }
  }
  // Identity rules: remapIdentity and matchRepository against a plain reading.
  let identities = 0;
  for (let i = 0; i < options.patterns && failures.length < maxFailures; i++) {
    let image: ImageReference;
    try {
      image = parseReference(randomImage(rng).replace(/:[^/]*$/, "") + ":1");
    } catch {
      continue;
    }
    const repo = `${image.domain}/${image.path}`;
    const cut = repo.lastIndexOf("/", 1 + rng.int(repo.length));
    const prefix = cut > 0 && rng.chance(0.8) ? repo.slice(0, cut) : rng.pick(HOSTS) + "/x";
    const signedPrefix = rng.pick(["quay.io/team", "signed.example.com", "reg.example.com/a/b"]);
    let rule;
    try {
      rule = parseIdentityRule({ type: "remapIdentity", prefix, signedPrefix });
    } catch {
      continue;
    }
    const remaps = repo === prefix || repo.startsWith(`${prefix}/`);
    const intended = remaps ? signedPrefix + repo.slice(prefix.length) : repo;
    const signed = rng.chance(0.5) ? `${intended}:1` : `${repo}:1`;
    identities++;
    const got = matchIdentity(rule, image, signed).matches;
    // A remapped name past 255 characters is not a valid name: nothing can match it.
    const want = signed === `${intended}:1` && intended.length <= 255;
    if (got !== want) {
      failures.push({
        kind: "identity",
        detail:
          `remapIdentity ${prefix} → ${signedPrefix}, image ${repo}:1, signed ${signed}: ${got}`,
      });
    }
  }
  return {
    seed: options.seed,
    patterns: valid.length,
    matches,
    matched,
    selections,
    identities,
    maxSteps,
    maxBoundShare,
    failures,
    ms: performance.now() - started,
  };
}
