/**
 * `image-security audit` and `rollout` end to end: workloads created in the real kube-apiserver
 * before enforcement (kube-controller-manager makes the Deployments' ReplicaSets and Pods and the
 * Job's Pods; nothing is scheduled, they exist), images in the real distribution registry signed
 * by the real gpg. The audit reports each workload once, and exactly the images the webhook then
 * denies; `rollout --enforce` refuses while the audit finds violations and enforces once they
 * are gone.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import {
  CONTROLLER_NAMESPACE,
  deploymentManifest,
  dryRunPod,
  eventually,
  kubectlOk,
  podManifest,
} from "./_webhook.ts";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";
import type { AuditedImage } from "../../lib/audit/mod.ts";

function batch(kind: "Job" | "CronJob", name: string, namespace: string, image: string): string {
  const template = {
    spec: { restartPolicy: "Never", containers: [{ name: "task", image }] },
  };
  return JSON.stringify({
    apiVersion: "batch/v1",
    kind,
    metadata: { name, namespace },
    spec: kind === "Job"
      ? { template }
      : { schedule: "0 3 * * *", jobTemplate: { spec: { template } } },
  });
}

Deno.test({
  name: "audit reports each running workload once and exactly the images the webhook denies",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld();
    const { cluster, registry, gpg } = world;
    const signer = await world.signer();
    const stranger = await world.signer();
    const reg = registry.host;
    const app = `${reg}/e2e/app:1`;
    await gpg.pushImage(app, { signBy: signer.fingerprint });
    const tool = `${reg}/e2e/tool:1`;
    await gpg.pushImage(tool, { signBy: signer.fingerprint, content: "tool" });
    const unsigned = `${reg}/e2e/unsigned:1`;
    await gpg.pushImage(unsigned, { content: "unsigned" });
    const foreign = `${reg}/e2e/foreign:1`;
    await gpg.pushImage(foreign, { signBy: stranger.fingerprint, content: "foreign" });

    await world.namespaces("dev", "clean");
    await world.keySecret("signer", signer.publicKeyArmored);
    await world.clusterPolicy([{
      name: `${reg}/e2e/*`,
      policy: { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } },
    }]);

    // What runs before enforcement is switched on.
    const create = (manifest: string) => kubectlOk(cluster, ["create", "-f", "-"], manifest);
    await create(deploymentManifest("web", "dev", { containers: [app], init: [tool] }, 2));
    await create(deploymentManifest("legacy", "dev", unsigned));
    await create(podManifest("solo", "dev", { containers: [app, foreign] }));
    await create(batch("CronJob", "nightly", "dev", unsigned));
    await create(deploymentManifest("site", "clean", app));
    await create(batch("Job", "once", "clean", tool));
    await eventually("the controller manager's ReplicaSets and Pods", async () => {
      const pods = await kubectlOk(cluster, ["get", "pods", "-A", "-o", "name"]);
      return pods.split("\n").filter((l) => l.startsWith("pod/")).length >= 6;
    }, 60_000);

    const toolkit = async (args: string[]) => {
      const io = bufferedIO({ env: { KUBECONFIG: cluster.kubeconfigPath } });
      const status = await runCli([
        "image-security",
        ...args,
        "--controller-namespace",
        CONTROLLER_NAMESPACE,
        "--insecure-registry",
        reg,
        "--registries.d",
        gpg.registriesD,
      ], commandContext(io));
      return { status, out: io.out(), err: io.err() };
    };

    let audited: AuditedImage[] = [];
    await t.step("the audit reports each workload once, owners for what they own", async () => {
      const run = await toolkit(["audit", "-A", "-o", "json"]);
      assert.equal(run.status, 1, run.err);
      audited = JSON.parse(run.out).images;
      const rows = audited.map((a) =>
        `${a.namespace} ${a.workload.kind}/${a.workload.name} ${a.container} ${a.verdict}`
      ).sort();
      assert.deepEqual(rows, [
        "clean Deployment/site app pass",
        "clean Job/once task pass",
        "dev CronJob/nightly task fail",
        "dev Deployment/legacy app fail",
        "dev Deployment/web app pass",
        "dev Deployment/web init:init0 pass",
        "dev Pod/solo app pass",
        "dev Pod/solo app1 fail",
      ]);
      const foreignRow = audited.find((a) => a.image === foreign)!;
      assert.match(foreignRow.message, /^policy denied the request: /);
      assert.equal(foreignRow.policy, "ClusterImagePolicy/default");
    });

    await t.step("the webhook denies exactly the images the audit says would be", async () => {
      await world.startWebhook({ probe: { namespace: "dev", image: unsigned } });
      let i = 0;
      for (const row of audited) {
        const r = await dryRunPod(cluster, `probe-${i++}`, row.namespace, row.image);
        const deniedByWebhook = r.code !== 0;
        assert.equal(
          deniedByWebhook,
          row.verdict === "fail" || row.verdict === "error",
          `${row.namespace} ${row.image}: ${r.stderr}`,
        );
        if (deniedByWebhook) {
          assert.ok(r.stderr.includes(row.message), `${r.stderr}\nshould include ${row.message}`);
        }
      }
    });

    await t.step("rollout refuses to enforce while the audit finds violations", async () => {
      const refused = await toolkit(["rollout", "-n", "dev", "--enforce"]);
      assert.equal(refused.status, 1, refused.err);
      assert.match(refused.err, /Not enforcing namespace "dev": 3 running images would be denied/);
      const labels = await kubectlOk(cluster, [
        "get",
        "namespace",
        "dev",
        "-o",
        "jsonpath={.metadata.labels.toolkit\\.dev/enforcement}",
      ]);
      assert.equal(labels, "");
      const clean = await toolkit(["rollout", "-n", "clean", "--enforce", "-o", "json"]);
      assert.equal(clean.status, 0, clean.err);
      assert.equal(JSON.parse(clean.out).results[0].outcome, "updated");
    });

    await t.step("once the violations are gone, rollout enforces", async () => {
      await kubectlOk(cluster, ["delete", "deployment", "legacy", "-n", "dev", "--wait=false"]);
      await kubectlOk(cluster, ["delete", "cronjob", "nightly", "-n", "dev"]);
      await kubectlOk(cluster, ["delete", "pod", "solo", "-n", "dev", "--wait=false"]);
      // The garbage collector removes the legacy ReplicaSet and its Pods (no kubelet: a Pod
      // without a node is deleted at once).
      await eventually("the legacy Pods gone", async () => {
        const pods = await kubectlOk(cluster, ["get", "pods", "-n", "dev", "-o", "name"]);
        return !pods.includes("legacy") && !pods.includes("solo");
      }, 60_000);
      const run = await toolkit(["rollout", "-n", "dev", "--enforce"]);
      assert.equal(run.status, 0, run.err);
      assert.match(run.err, /labelled toolkit\.dev\/enforcement=enforce/);
    });

    await t.step("the webhook follows the namespace's label", async () => {
      // The webhook runs --mode enforce; a namespace labelled warn admits with a warning.
      const back = await toolkit(["rollout", "-n", "dev", "--warn"]);
      assert.equal(back.status, 0, back.err);
      let i = 0;
      await eventually("the webhook warns in dev", async () => {
        const r = await dryRunPod(cluster, `warned-${i++}`, "dev", unsigned);
        return r.code === 0 && /warn mode, admitted anyway/.test(r.stderr);
      });
      const again = await toolkit(["rollout", "-n", "dev", "--enforce"]);
      assert.equal(again.status, 0, again.err);
      await eventually("the webhook denies in dev again", async () => {
        const r = await dryRunPod(cluster, `denied-${i++}`, "dev", unsigned);
        return r.code !== 0 && r.stderr.includes("A signature was required");
      });
    });
  },
});
