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
import { oracleParse } from "./_fuzz_oracle.ts";

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

Deno.test("the fuzz oracle reads registry spellings as the network dials them", () => {
  const read = (image: string) => {
    const ref = oracleParse(image);
    return ref && `${ref.registry}/${ref.repository}${ref.tag ? `:${ref.tag}` : ""}`;
  };
  assert.equal(read("LOCALHOST:05000/signed/app:1"), "localhost:5000/signed/app:1");
  assert.equal(read("Registry.Example.COM:443/signed/app"), "registry.example.com/signed/app");
  assert.equal(read("registry.example.com./signed/app"), "registry.example.com/signed/app");
  assert.equal(read("127.000.000.001:5001/signed/app"), "127.0.0.1:5001/signed/app");
  assert.equal(read("Registry-1.Docker.IO/team/app"), "docker.io/team/app");
  assert.equal(read("nginx:1"), "docker.io/library/nginx:1");
  assert.equal(read("index.docker.io/nginx"), "docker.io/library/nginx");
  for (
    const image of ["fuzz:pw@localhost:5000/a", "r.example#x/a", "R.example/A", "a@md5:00", ""]
  ) {
    assert.equal(oracleParse(image), undefined, image);
  }
});

Deno.test("the fuzz catches a webhook that admits what it denies or pins the wrong digest", async () => {
  const admitsAll = await runAdmissionFuzz({
    seed,
    reviews: 300,
    bodies: 0,
    allowed: () => true,
    maxFailures: 1000,
    mutateEvaluator: (evaluator) => ({
      evaluate: async (request) => {
        const decision = await evaluator.evaluate(request);
        return { ...decision, allowed: true, outcome: "allow", reasons: [] };
      },
    }),
  });
  const kinds = new Set(admitsAll.failures.map((f) => f.failure));
  assert.ok(kinds.has("unsigned-admitted"), JSON.stringify([...kinds]));
  assert.ok(kinds.has("unreadable-admitted"), JSON.stringify([...kinds]));
  const wrongPin = await runAdmissionFuzz({
    seed,
    reviews: 300,
    bodies: 0,
    allowed: (name) => !KNOWN_OPEN_CLASSES.includes(name),
    maxFailures: 1000,
    mutateEvaluator: (evaluator) => ({
      evaluate: async (request) => {
        const decision = await evaluator.evaluate(request);
        const patch = decision.patch.map((op) => ({
          ...op,
          value: op.value.replace(/@sha256:[0-9a-f]{4}/, "@sha256:0000"),
        }));
        return { ...decision, patch };
      },
    }),
  });
  assert.ok(wrongPin.failures.some((f) => f.failure === "bad-pin"));
});

Deno.test("the fuzz catches a webhook that admits what attestations or multiArch deny", async () => {
  // Admits every review denied only for an attestation or an index's platforms: the oracle must
  // call one of them an unsigned admit (the first review that fails ends the run).
  const report = await runAdmissionFuzz({
    seed,
    reviews: 3000,
    bodies: 0,
    allowed: (name) => !KNOWN_OPEN_CLASSES.includes(name),
    maxFailures: 1,
    mutateEvaluator: (evaluator) => ({
      evaluate: async (request) => {
        const decision = await evaluator.evaluate(request);
        const scoped = /: (?:attestation |every platform of the index |neither the index nor)/;
        if (decision.allowed || !decision.reasons.every((r) => scoped.test(r))) return decision;
        return { ...decision, allowed: true, outcome: "allow", reasons: [] };
      },
    }),
  });
  assert.ok(
    report.failures.some((f) =>
      f.failure === "unsigned-admitted" && /attested\/|multi\//.test(f.message)
    ),
    JSON.stringify(report.failures),
  );
});
