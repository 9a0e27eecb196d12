/**
 * `enable` switches enforcement on only once the webhook can answer: the webhook configuration
 * (failing closed) is applied after a replica of the Deployment is available. The real
 * kube-controller-manager makes the ReplicaSet and Pods; the Pods are started by the kubelet
 * stand-in (tests/env/kubelet.ts), as nothing can run containers here.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster, startPendingPods, waitFor } from "../env/mod.ts";
import { context, runEnable, runStatus } from "./_context.ts";

Deno.test({
  name: "enable waits for a ready webhook replica before switching enforcement on",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    const kube = { kubeconfig: cluster.kubeconfigPath };
    const webhookConfigurations = async () =>
      (await cluster.kubectl(["get", "mutatingwebhookconfigurations", "-o", "name"])).stdout.trim();

    await t.step("without a ready replica it stops before the webhook configuration", async () => {
      const { io, ctx } = context();
      await assert.rejects(
        runEnable({ ...kube, replicas: 2, "wait-timeout": 2 }, ctx),
        /The webhook is not ready after 2 s \(0\/2 replicas available\), so enforcement was not switched on: see kubectl -n toolkit-system describe deployment toolkit-webhook/,
      );
      assert.match(io.err(), /Waiting for the webhook to be ready before switching enforcement on/);
      assert.match(io.out(), /Deployment "toolkit-system\/toolkit-webhook" created/);
      assert.equal(await webhookConfigurations(), "");
    });

    await t.step("once a replica is ready, the webhook configuration is applied", async () => {
      const { io, ctx } = context();
      const enabled = runEnable({ ...kube, replicas: 2, "wait-timeout": 60 }, ctx);
      // enable is waiting before any Pod runs (started earlier, the Pods could be ready before
      // its first look, which would then never see 0/2).
      await waitFor(
        "enable to wait for the replicas",
        () => Promise.resolve(/0\/2 replicas available/.test(io.err())),
      );
      // The scheduler and kubelet's part, for the Pods the ReplicaSet made.
      let started = 0;
      await waitFor("the webhook's pods", async () => {
        started += await startPendingPods(cluster, "toolkit-system");
        return started >= 2;
      });
      assert.equal(await enabled, 0, io.err());
      assert.match(io.err(), /0\/2 replicas available/);
      assert.match(io.err(), /[12]\/2 replicas available/);
      assert.match(io.out(), /MutatingWebhookConfiguration "toolkit-image-security" created/);
      assert.equal(
        await webhookConfigurations(),
        "mutatingwebhookconfiguration.admissionregistration.k8s.io/toolkit-image-security",
      );
    });

    await t.step("status reports the ready replicas", async () => {
      const { io, ctx } = context();
      await waitFor("both replicas", async () => {
        const look = context();
        await runStatus({ ...kube, output: "json" }, look.ctx);
        return JSON.parse(look.io.out()).replicas.ready === 2;
      });
      assert.equal(await runStatus({ ...kube }, ctx), 0);
      assert.match(io.out(), /Replicas: 2\/2 ready/);
    });

    await t.step("--no-wait switches it on at once", async () => {
      await cluster.kubectl(["delete", "mutatingwebhookconfiguration", "toolkit-image-security"]);
      await cluster.kubectl([
        "scale",
        "deployment",
        "toolkit-webhook",
        "-n",
        "toolkit-system",
        "--replicas=0",
      ]);
      const { io, ctx } = context();
      assert.equal(await runEnable({ ...kube, replicas: 2, wait: false }, ctx), 0, io.err());
      assert.doesNotMatch(io.err(), /Waiting for the webhook/);
      assert.notEqual(await webhookConfigurations(), "");
    });
  },
});
