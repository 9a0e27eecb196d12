/**
 * The admission fuzz test: seeded, bounded reviews and raw bodies through the webhook's handler
 * and the real decision path (real keys, signatures, registry and lookaside store, all
 * in-process), each answer judged by an oracle that reads the policy from first principles.
 * See `_fuzz_world.ts`, `_fuzz_generator.ts` and `_fuzz_oracle.ts`.
 *
 * - `TOOLKIT_FUZZ_SEED=<n>` replays a run (a failure prints its seed).
 * - `TOOLKIT_FUZZ=long` runs the long mode (as `deno task bench` does): many more reviews.
 * - `TOOLKIT_FUZZ_REVIEWS`, `TOOLKIT_FUZZ_BODIES`, `TOOLKIT_FUZZ_MAX_FAILURES` change the bounds.
 * - `TOOLKIT_FUZZ_ALL_CLASSES=1` also generates the classes of {@linkcode KNOWN_OPEN_CLASSES}.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describeFailure, type FuzzReport, runAdmissionFuzz } from "./_fuzz_harness.ts";
import { KNOWN_OPEN_CLASSES } from "./_fuzz_generator.ts";

function envNumber(name: string): number | undefined {
  const text = Deno.env.get(name);
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number`);
  return n;
}

const long = Deno.env.get("TOOLKIT_FUZZ") === "long";
const allClasses = Deno.env.get("TOOLKIT_FUZZ_ALL_CLASSES") === "1";
const seed = envNumber("TOOLKIT_FUZZ_SEED") ?? (long ? Date.now() >>> 0 : 20261122);

function run(reviews: number, bodies: number) {
  return runAdmissionFuzz({
    seed,
    reviews,
    bodies,
    allowed: (name) => allClasses || !KNOWN_OPEN_CLASSES.includes(name),
    maxFailures: envNumber("TOOLKIT_FUZZ_MAX_FAILURES") ?? 20,
  });
}

function assertNoFailures(report: FuzzReport): void {
  const byClass = [...report.failuresByClass].sort((a, b) => b[1] - a[1]);
  assert.equal(
    report.failures.length,
    0,
    `seed ${report.seed}: ${report.failures.length} failures, by class ${
      JSON.stringify(byClass)
    }\n\n${report.failures.map(describeFailure).join("\n\n")}`,
  );
}

Deno.test("the webhook admits no image the policy forbids and pins only verified digests (fuzz)", async () => {
  const report = await run(envNumber("TOOLKIT_FUZZ_REVIEWS") ?? (long ? 50_000 : 4000), 0);
  assertNoFailures(report);
  // The run decided both ways: a fuzz that admits nothing (or everything) tests nothing.
  assert.ok(report.admitted > report.reviews / 10, `only ${report.admitted} admitted`);
  assert.ok(report.denied > report.reviews / 10, `only ${report.denied} denied`);
  assert.ok(report.patched > report.reviews / 50, `only ${report.patched} pinned`);
});

Deno.test("the webhook answers every raw body, with the uid whenever the review can be read (fuzz)", async () => {
  const report = await run(0, envNumber("TOOLKIT_FUZZ_BODIES") ?? (long ? 10_000 : 1000));
  assertNoFailures(report);
});
