/**
 * The admission fuzz in its long mode, run by `deno task bench`: many more reviews and raw
 * bodies than the unit suite's run of `tests/admission/fuzz_test.ts`, through the same harness
 * (the webhook's handler and the real decision path, in-process), judged by the same oracle;
 * then the fuzz of policy patterns, choices and identity rules (`_pattern_fuzz.ts`) with many
 * more patterns than `tests/admission/pattern_fuzz_test.ts`.
 * It prints its figures and every failure with the seed that replays it, and exits 1 on a
 * failure.
 *
 * - `TOOLKIT_FUZZ_SEED=<n>`: the seed (default: the time, printed);
 * - `TOOLKIT_FUZZ_REVIEWS`, `TOOLKIT_FUZZ_BODIES`: the sizes (default 50,000 and 10,000);
 * - `TOOLKIT_FUZZ_ALL_CLASSES=1`: also the classes of `KNOWN_OPEN_CLASSES` (known defects).
 *
 * @module
 */
import { describeFailure, runAdmissionFuzz } from "../admission/_fuzz_harness.ts";
import { KNOWN_OPEN_CLASSES } from "../admission/_fuzz_generator.ts";
import { runPatternFuzz } from "../admission/_pattern_fuzz.ts";

// deno-lint-ignore no-console
const print = console.log;

function envNumber(name: string, fallback: number): number {
  const text = Deno.env.get(name);
  const n = text === undefined || text === "" ? fallback : Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number`);
  return n;
}

const allClasses = Deno.env.get("TOOLKIT_FUZZ_ALL_CLASSES") === "1";
const seed = envNumber("TOOLKIT_FUZZ_SEED", Date.now() >>> 0);
const report = await runAdmissionFuzz({
  seed,
  reviews: envNumber("TOOLKIT_FUZZ_REVIEWS", 50_000),
  bodies: envNumber("TOOLKIT_FUZZ_BODIES", 10_000),
  allowed: (name) => allClasses || !KNOWN_OPEN_CLASSES.includes(name),
  maxFailures: 50,
});

const seconds = report.ms / 1000;
print("## Admission fuzz, long mode\n");
print(
  "| Seed | Reviews | Raw bodies | Images | Admitted | Denied | Pinned | Time (s) | Reviews/s | Failures |",
);
print(
  "| ---- | ------- | ---------- | ------ | -------- | ------ | ------ | -------- | --------- | -------- |",
);
print(
  `| ${report.seed} | ${report.reviews} | ${report.bodies} | ${report.images} | ${report.admitted} | ${report.denied} | ${report.patched} | ${
    seconds.toFixed(1)
  } | ${Math.round((report.reviews + report.bodies) / seconds)} | ${report.failures.length} |`,
);
print(
  `\nClasses not generated (known open defects): ${
    allClasses ? "none (TOOLKIT_FUZZ_ALL_CLASSES=1)" : KNOWN_OPEN_CLASSES.join(", ") || "none"
  }`,
);
const patterns = runPatternFuzz({ seed, patterns: 20_000, imagesPerPattern: 20, maxFailures: 50 });
print("\n## Policy pattern and identity rule fuzz, long mode\n");
print(
  "| Seed | Patterns | Matches | Matched | Choices | Identity rules | Most steps | Of the bound | Time (s) | Failures |",
);
print(
  "| ---- | -------- | ------- | ------- | ------- | -------------- | ---------- | ------------ | -------- | -------- |",
);
print(
  `| ${patterns.seed} | ${patterns.patterns} | ${patterns.matches} | ${patterns.matched} | ${patterns.selections} | ${patterns.identities} | ${patterns.maxSteps} | ${
    Math.round(patterns.maxBoundShare * 100)
  } % | ${(patterns.ms / 1000).toFixed(1)} | ${patterns.failures.length} |`,
);
for (const failure of patterns.failures) print(`${failure.kind}: ${failure.detail}`);
if (report.failures.length > 0) {
  print(`\nFailures by class: ${JSON.stringify([...report.failuresByClass])}\n`);
  for (const failure of report.failures) print(`${describeFailure(failure)}\n`);
}
if (report.failures.length > 0 || patterns.failures.length > 0) Deno.exit(1);
