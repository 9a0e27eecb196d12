/**
 * The fuzz of repository patterns, policy choices and identity rules (see `_pattern_fuzz.ts`):
 * every match agrees with a plain reference and stays within the linear step bound.
 *
 * - `TOOLKIT_FUZZ_SEED=<n>` replays a run; `TOOLKIT_FUZZ=long` runs many more patterns (as
 *   `deno task bench` does).
 *
 * @module
 */
import assert from "node:assert/strict";
import { runPatternFuzz } from "./_pattern_fuzz.ts";

const long = Deno.env.get("TOOLKIT_FUZZ") === "long";
const seed = Number(Deno.env.get("TOOLKIT_FUZZ_SEED") || (long ? Date.now() >>> 0 : 20261125));

Deno.test("policy patterns match as the reference does, in linear steps, and choose alike (fuzz)", () => {
  const report = runPatternFuzz({
    seed,
    patterns: long ? 20_000 : 1500,
    imagesPerPattern: long ? 20 : 8,
  });
  assert.deepEqual(
    report.failures,
    [],
    `seed ${seed}: ${report.failures.map((f) => `${f.kind}: ${f.detail}`).join("\n")}`,
  );
  // The run exercised both outcomes, long names, and the choice and identity checks.
  assert.ok(report.matched > 50 && report.matched < report.matches - 50, JSON.stringify(report));
  assert.ok(report.selections > 1000 && report.identities > 500, JSON.stringify(report));
});
