/**
 * PolicyReports end to end, against kube-apiserver and kube-controller-manager (Deployments →
 * ReplicaSets → Pods): two webhook processes run the report controller (`--policy-reports`, a
 * resync of seconds); one holds the Lease and writes one `wgpolicyk8s.io/v1alpha2` PolicyReport
 * per namespace for the running workloads (a signed and an unsigned Deployment), which changes
 * after a signature is deleted from the lookaside store and after a policy changes. Outcomes are
 * asserted, never timings.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import {
  clusterRoleBindingManifest,
  clusterRoleManifest,
  defaultInstallOptions,
  leaseRoleBindingManifest,
  leaseRoleManifest,
  serviceAccountManifest,
} from "../../lib/install/mod.ts";
import { startWebhook } from "./_webhook.ts";
import { startWorld } from "./_world.ts";
import {
  CONTROLLER_NAMESPACE,
  deploymentManifest,
  eventually,
  kubectlOk,
  podManifest,
} from "./_webhook.ts";

interface Report {
  metadata: { annotations?: Record<string, string>; managedFields?: unknown[] };
  summary?: Record<string, number>;
  results?: Array<{
    result: string;
    policy: string;
    source: string;
    resources: Array<{ kind: string; name: string }>;
    properties: Record<string, string>;
  }>;
}

Deno.test({
  name: "PolicyReports follow the running workloads, a deleted signature and a policy change",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld({ cluster: { crds: ["toolkit", "policyreport"] } });
    const { cluster, registry, gpg } = world;
    const signer = await world.signer();
    const reg = registry.host;
    const signed = `${reg}/e2e/app:1`;
    const signedDigest = await gpg.pushImage(signed, { signBy: signer.fingerprint });
    const unsigned = `${reg}/e2e/unsigned:1`;
    await gpg.pushImage(unsigned, { content: "unsigned" });
    await world.namespaces("team");
    await world.keySecret("signer", signer.publicKeyArmored);
    await world.clusterPolicy([{
      name: `${reg}/e2e/*`,
      policy: { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } },
    }]);
    // Running before enforcement: created before the webhook is registered.
    await world.apply(deploymentManifest("signed", "team", signed));
    await world.apply(deploymentManifest("unsigned", "team", unsigned));
    await world.apply(podManifest("lone", "team", { containers: [unsigned] }));

    const args = [
      "--policy-reports",
      "--reports-resync=3s",
      "--reports-debounce=200ms",
      "--reports-registry-rate=50",
    ];
    const first = await world.startWebhook({ probe: { namespace: "team", image: unsigned }, args });
    // A second replica: the same flags, another identity.
    const second = world.use(
      await startWebhook(
        [
          "--kubeconfig",
          cluster.kubeconfigPath,
          "--namespace",
          CONTROLLER_NAMESPACE,
          "--insecure-registry",
          reg,
          "--registries.d",
          gpg.registriesD,
          ...args,
        ],
        undefined,
        {},
      ),
    );
    const replicas = [first, second];
    /** Each replica's `toolkit_reports_leader` gauge. */
    const leaders = async () =>
      await Promise.all(replicas.map(async (webhook) => {
        const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
        try {
          const text = await (await fetch(`https://127.0.0.1:${webhook.port}/metrics`, { client }))
            .text();
          return /^toolkit_reports_leader (\d)$/m.exec(text)?.[1];
        } finally {
          client.close();
        }
      }));
    const identityOf = async (webhook: typeof first) =>
      (await webhook.logLines()).find((l) => l.msg === "started")?.reportsIdentity as string;

    const report = async (): Promise<Report | undefined> => {
      const r = await cluster.kubectl([
        "get",
        "policyreports.wgpolicyk8s.io",
        "toolkit-image-policy",
        "-n",
        "team",
        "-o",
        "json",
      ]);
      return r.code === 0 ? JSON.parse(r.stdout) : undefined;
    };
    const verdictOf = (r: Report | undefined, kind: string, name: string) =>
      r?.results?.find((x) => x.resources[0]?.kind === kind && x.resources[0]?.name === name)
        ?.result;

    await t.step("a report appears: the signed Deployment passes, the unsigned fail", async () => {
      await eventually("the report of namespace team", async () => {
        const r = await report();
        return verdictOf(r, "Deployment", "signed") === "pass" &&
          verdictOf(r, "Deployment", "unsigned") === "fail" &&
          verdictOf(r, "Pod", "lone") === "fail";
      }, 90_000);
      const r = (await report())!;
      // The Deployments' ReplicaSets and Pods are reported as their Deployments, once.
      assert.deepEqual(
        r.results!.map((x) => `${x.resources[0]!.kind}/${x.resources[0]!.name}`).sort(),
        ["Deployment/signed", "Deployment/unsigned", "Pod/lone"],
      );
      assert.equal(
        r.results!.find((x) => x.resources[0]!.name === "lone")!.properties.image,
        unsigned,
      );
      assert.ok(r.results!.every((x) => x.source === "toolkit"));
      assert.ok(r.summary!.fail! >= 1 && r.summary!.pass! >= 1, JSON.stringify(r.summary));
    });

    const holder = async () =>
      JSON.parse(
        await kubectlOk(cluster, [
          "get",
          "lease",
          "toolkit-policy-reports",
          "-n",
          CONTROLLER_NAMESPACE,
          "-o",
          "json",
        ]),
      ).spec.holderIdentity as string;

    await t.step("one replica writes it: the Lease holder", async () => {
      const identities = await Promise.all(replicas.map(identityOf));
      assert.equal(new Set(identities).size, 2, "two identities");
      const leading = await holder();
      assert.ok(identities.includes(leading), leading);
      // One replica leads, the other stands by.
      assert.deepEqual(
        (await leaders()).sort(),
        ["0", "1"],
      );
      const r = JSON.parse(
        await kubectlOk(cluster, [
          "get",
          "policyreports.wgpolicyk8s.io",
          "toolkit-image-policy",
          "-n",
          "team",
          "-o",
          "json",
          "--show-managed-fields",
        ]),
      ) as Report;
      assert.equal(r.metadata.annotations?.["toolkit.dev/reporter"], leading);
      const managers = (r.metadata.managedFields ?? []) as Array<{ manager: string }>;
      assert.deepEqual([...new Set(managers.map((m) => m.manager))], ["toolkit"]);
    });

    await t.step("a deleted signature shows at the next resync", async () => {
      const hex = signedDigest.replace("sha256:", "");
      let removed = 0;
      const walk = async (dir: string) => {
        for await (const entry of Deno.readDir(dir)) {
          const path = `${dir}/${entry.name}`;
          if (entry.isDirectory && entry.name.includes(hex)) {
            await Deno.remove(path, { recursive: true });
            removed++;
          } else if (entry.isDirectory) await walk(path);
        }
      };
      await walk(gpg.sigstore);
      assert.ok(removed > 0, "the signature was found in the lookaside store");
      await eventually(
        "the signed Deployment to fail",
        async () => verdictOf(await report(), "Deployment", "signed") === "fail",
        90_000,
      );
    });

    await t.step("a policy change shows: a policy that allows the repository", async () => {
      await world.clusterPolicy([{
        name: `${reg}/e2e/*`,
        policy: { simple: { requirements: [{ type: "insecureAcceptAnything" }] } },
      }]);
      await eventually("every Deployment to pass", async () => {
        const r = await report();
        return verdictOf(r, "Deployment", "signed") === "pass" &&
          verdictOf(r, "Deployment", "unsigned") === "pass";
      }, 90_000);
    });

    await t.step("the leader stops: it releases the Lease and the standby writes", async () => {
      const leading = await holder();
      const identities = await Promise.all(replicas.map(identityOf));
      const index = identities.indexOf(leading);
      await replicas[index]!.stop();
      const standby = identities[1 - index]!;
      await eventually(
        "the standby to hold the Lease",
        async () => await holder() === standby,
        60_000,
      );
      // A workload goes (a deletion is not reviewed, the stopped webhook is not called): the new
      // leader audits and writes.
      await kubectlOk(cluster, ["delete", "deployment", "unsigned", "-n", "team"]);
      await eventually("the report written by the new leader", async () => {
        const r = await report();
        return r?.metadata.annotations?.["toolkit.dev/reporter"] === standby &&
          verdictOf(r, "Deployment", "unsigned") === undefined &&
          verdictOf(r, "Deployment", "signed") === "pass";
      }, 90_000);
    });

    await t.step(
      "the installed RBAC lets the webhook do this, and writes no other Lease",
      async () => {
        const options = defaultInstallOptions({ namespace: CONTROLLER_NAMESPACE });
        for (
          const object of [
            serviceAccountManifest(options),
            clusterRoleManifest(),
            clusterRoleBindingManifest(options),
            leaseRoleManifest(options),
            leaseRoleBindingManifest(options),
          ]
        ) await world.apply(JSON.stringify(object));
        const can = async (...args: string[]) =>
          (await cluster.kubectl([
            "auth",
            "can-i",
            `--as=system:serviceaccount:${CONTROLLER_NAMESPACE}:toolkit-webhook`,
            ...args,
          ])).stdout.trim();
        const lease = ["leases.coordination.k8s.io", "-n", CONTROLLER_NAMESPACE];
        assert.equal(await can("watch", "pods", "-A"), "yes");
        assert.equal(await can("list", "deployments.apps", "-A"), "yes");
        assert.equal(await can("watch", "cronjobs.batch", "-A"), "yes");
        assert.equal(await can("patch", "policyreports.wgpolicyk8s.io", "-n", "team"), "yes");
        assert.equal(await can("delete", "policyreports.wgpolicyk8s.io", "-n", "team"), "yes");
        assert.equal(await can("create", ...lease), "yes");
        assert.equal(
          await can("update", `${lease[0]}/toolkit-policy-reports`, ...lease.slice(1)),
          "yes",
        );
        assert.equal(await can("update", `${lease[0]}/other`, ...lease.slice(1)), "no");
        assert.equal(await can("update", "leases.coordination.k8s.io", "-n", "kube-system"), "no");
        assert.equal(await can("update", "deployments.apps", "-n", "team"), "no");
      },
    );
  },
});
