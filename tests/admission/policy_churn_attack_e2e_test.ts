/**
 * Attack 7 of issue #33 against the real webhook process and kube-apiserver: a 512-repository
 * ImagePolicy rewritten as fast as the API server takes it for 10 s in one namespace, while
 * another namespace's signed image keeps being admitted, and the policy's last version is in
 * effect at the end (see `_attack_policy_churn.ts`). No timing is asserted.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { CHART_MEMORY_LIMIT } from "./_attack.ts";
import { policyChurnAttack } from "./_attack_policy_churn.ts";

Deno.test({
  name:
    "an ImagePolicy rewritten without pause delays no other namespace, and its last version wins",
  ignore: e2eSkipReason() !== undefined,
  fn: async () => {
    const { figures, other, versions, lastVersionInEffect } = await policyChurnAttack();
    assert.ok(versions > 1, `${versions} versions`);
    const admitted = other.filter((a) => a.allowed === true).length;
    assert.ok(
      admitted >= 19,
      `${admitted}/${other.length} admitted: ${other.find((a) => !a.allowed)?.message}`,
    );
    assert.ok(lastVersionInEffect, `version ${versions} is not the one in effect`);
    assert.ok(
      figures.peakRssMiB * 1024 * 1024 < CHART_MEMORY_LIMIT,
      `peak RSS ${figures.peakRssMiB} MiB`,
    );
    // deno-lint-ignore no-console
    console.log(JSON.stringify(figures));
  },
});
