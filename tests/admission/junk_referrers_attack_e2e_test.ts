/**
 * The referrers attacks of issue #33 (4 and 8) against the real `webhook/main.ts` process, at the
 * release's runtime flags and default budget (tests/admission/_attack_referrers.ts):
 *
 * - images signed by the real cosign (a legacy `.sig` one, a bundle one) on go-containerregistry's
 *   registry with the referrers API, each then given 80 junk referrers (artifacts of another
 *   type, bundles of garbage, bundle-typed artifacts that are no bundle), and an image whose
 *   fallback index lists a referrer since deleted beside a valid one: all admitted;
 * - a registry answering every referrers call with a million bytes of `{}` and never answering
 *   the fallback tag, 16 and then 128 images in one review: denied with a reason, not "internal
 *   error", the webhook's peak resident memory under the chart's limit.
 *
 * Only what does not depend on the machine's speed is asserted; the figures are printed (and
 * measured by the bench).
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { CHART_MEMORY_LIMIT } from "./_attack.ts";
import { runHugeReferrersAttack, runJunkReferrersAttack } from "./_attack_referrers.ts";

// The figures go to the test's output; the bench measures them properly.
// deno-lint-ignore no-console
const report = (line: string) => console.log(line);
const MiB = 1024 * 1024;

Deno.test({
  name: "junk referrers never hide a valid cosign signature, legacy or bundle",
  ignore: e2eSkipReason(["docker-registry", "referrers-registry", "cosign", "skopeo"]) !==
    undefined,
  fn: async () => {
    const { figures, cases } = await runJunkReferrersAttack();
    report(JSON.stringify(figures));
    assert.equal(cases.length, 3);
    for (const { name, answer } of cases) {
      assert.equal(answer.status, 200, `${name}: ${answer.message}`);
      assert.equal(answer.allowed, true, `${name}: ${answer.message}`);
    }
    assert.ok(figures.peakRssMiB * MiB < CHART_MEMORY_LIMIT, `peak RSS ${figures.peakRssMiB} MiB`);
  },
});

// A million bytes of {} (attack 4 as reported), and as many as fit under the bound on bytes.
for (const [images, objects] of [[16, 333_260], [128, 333_260], [128, 43_000]] as const) {
  Deno.test({
    name:
      `${images} images whose referrers answers are ${objects} {} are denied within the memory limit`,
    ignore: e2eSkipReason(["openssl"]) !== undefined,
    fn: async () => {
      const { figures, answer, referrersAnswers } = await runHugeReferrersAttack(images, objects);
      report(JSON.stringify(figures));
      assert.equal(answer.status, 200, answer.message ?? "");
      assert.equal(answer.allowed, false);
      assert.doesNotMatch(answer.message ?? "", /internal error/i);
      // Each image is denied for the bound its answer met, or, on a machine too loaded to get
      // through all of them, for the review's budget: never for an error of the webhook.
      const reason = objects > 100_000
        ? /the referrers list was not used: .*larger than|within the time budget/
        : /the referrers list was not used: .*holds more than 4096 JSON values|within the time budget/;
      assert.match(answer.message ?? "", reason);
      assert.ok(referrersAnswers > 0, "the referrers API was asked");
      assert.ok(
        figures.peakRssMiB * MiB < CHART_MEMORY_LIMIT,
        `peak RSS ${figures.peakRssMiB} MiB`,
      );
    },
  });
}
