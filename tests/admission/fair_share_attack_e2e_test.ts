/**
 * Attack 3 of issue #33 against the real webhook process (`_attack_flood.ts`): while the
 * namespace "flood" sends a 256-image review every second whose images are on a registry that
 * never answers, another namespace's correctly signed images keep being admitted, with fresh
 * verdicts and with cached ones, and the webhook's memory stays under the chart's limit.
 *
 * Nothing here depends on the machine's speed but the webhook's own budget (`--budget 3s`):
 * counts of admissions and the peak resident memory.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { CHART_MEMORY_LIMIT } from "./_attack.ts";
import { floodAttack } from "./_attack_flood.ts";

Deno.test({
  name:
    "one namespace flooding a silent registry leaves another namespace's signed images admitted",
  ignore: e2eSkipReason(["docker-registry", "gpg", "skopeo", "openssl"]) !== undefined,
  fn: async () => {
    const figures = await floodAttack({ budgetMs: 3000, victimReviews: 20 });
    assert.ok(figures.floodDenied > 0, figures.note);
    assert.equal(figures.floodAdmitted, 0, "no image of the silent registry is admitted");
    assert.ok(
      figures.coldAdmitted >= 19,
      `cold: ${figures.coldAdmitted} of ${figures.reviews} admitted`,
    );
    assert.ok(
      figures.warmAdmitted >= 19,
      `warm: ${figures.warmAdmitted} of ${figures.reviews} admitted`,
    );
    assert.ok(
      figures.peakRssMiB * 1024 * 1024 < CHART_MEMORY_LIMIT,
      `peak RSS ${figures.peakRssMiB} MiB`,
    );
  },
});
