/**
 * Attack 3 of issue #33 against the real webhook process (`_attack_flood.ts`): while the
 * namespace "flood" sends a 256-image review every second whose images are on a registry that
 * never answers, another namespace's correctly signed images keep being admitted, with fresh
 * verdicts and with cached ones, and the webhook's memory stays under the chart's limit.
 *
 * With one silent registry, the cap on one host keeps slots free for the victim's registry; with
 * four, the share between namespaces gives the victim the next slot the flood gives back.
 *
 * Nothing here depends on the machine's speed but the webhook's own budget (`--budget 3s`):
 * counts of admissions and the peak resident memory.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { CHART_MEMORY_LIMIT } from "./_attack.ts";
import { floodAttack } from "./_attack_flood.ts";

/** Runs the flood and asserts what does not depend on the machine's speed. */
async function assertVictimServed(silentHosts: number) {
  const figures = await floodAttack({ budgetMs: 3000, victimReviews: 20, silentHosts });
  assert.ok(figures.floodDenied > 0, figures.note ?? "");
  assert.equal(figures.floodAdmitted, 0, "no image of a silent registry is admitted");
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
}

const ignore = e2eSkipReason(["docker-registry", "gpg", "skopeo", "openssl"]) !== undefined;

Deno.test({
  name:
    "one namespace flooding a silent registry leaves another namespace's signed images admitted",
  ignore,
  fn: () => assertVictimServed(1),
});

Deno.test({
  name:
    "one namespace flooding 4 silent registries (no host cap reached) leaves another namespace its share",
  ignore,
  fn: () => assertVictimServed(4),
});
