/**
 * Attack 6 of issue #33 against the real webhook process and kube-apiserver: Pods naming 100
 * image pull Secrets of 1 MB each are denied naming the bound, before the Secrets are read, and
 * Pods naming 16 of them are denied naming the bound in bytes; the webhook's peak memory stays
 * under the chart's limit (see `_attack_pull_secrets.ts`).
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { CHART_MEMORY_LIMIT } from "./_attack.ts";
import { pullSecretsAttack } from "./_attack_pull_secrets.ts";

Deno.test({
  name: "pull Secrets named by a Pod are bounded in count and bytes: denied naming the bound",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined,
  fn: async () => {
    const { figures, hundred, sixteen } = await pullSecretsAttack();
    for (const answer of hundred) {
      assert.equal(answer.status, 200, answer.message ?? "");
      assert.equal(answer.allowed, false);
      assert.match(
        answer.message ?? "",
        /the Pod names 100 image pull Secrets; at most 16 are read per request/,
      );
    }
    for (const answer of sixteen) {
      assert.equal(answer.status, 200, answer.message ?? "");
      assert.equal(answer.allowed, false);
      assert.match(
        answer.message ?? "",
        /image pull Secret "tenant\/pull-0": it is larger than 256 KiB; at most 256 KiB of image pull Secrets are read per request/,
      );
    }
    assert.ok(
      figures.peakRssMiB * 1024 * 1024 < CHART_MEMORY_LIMIT,
      `peak RSS ${figures.peakRssMiB} MiB`,
    );
    // deno-lint-ignore no-console
    console.log(JSON.stringify(figures));
  },
});
