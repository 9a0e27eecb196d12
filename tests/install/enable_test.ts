/**
 * `toolkit image-security enable | status | rotate-certs | disable` against a real
 * kube-apiserver: every object is created, a second run changes nothing, the dry-run manifests
 * pass the API server's own validation, and `disable` removes what `enable` made.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import { context, runDisable, runEnable, runRotateCerts, runStatus } from "./_context.ts";

Deno.test({
  name: "enable installs every object idempotently, status reports it and disable removes it",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster({ crds: ["toolkit"] });
    // Nothing listens there: object creation does not need the webhook, and the controller's
    // own namespace is exempt, so re-applying the Deployment is never sent to it. So the URL is
    // not checked before enforcement is switched on (--no-verify-url).
    const kube = { kubeconfig: cluster.kubeconfigPath, "verify-url": false };
    const url = "https://127.0.0.1:9/admit";

    await t.step("the dry-run manifests pass a server-side dry run", async () => {
      const { io, ctx } = context();
      assert.equal(
        await runEnable({ "dry-run": true, output: "yaml", "webhook-url": url }, ctx),
        0,
      );
      // A server-side dry run does not create the namespace its objects are in.
      const ns = await cluster.kubectl(["create", "namespace", "toolkit-system"]);
      assert.equal(ns.code, 0, ns.stderr);
      const result = await cluster.kubectl(["apply", "--dry-run=server", "-f", "-"], {
        stdin: io.out(),
      });
      assert.equal(result.code, 0, result.stderr);
    });

    await t.step("the first enable creates every object", async () => {
      const { io, ctx } = context();
      assert.equal(await runEnable({ ...kube, "webhook-url": url, default: "deny" }, ctx), 0);
      assert.match(io.out(), /MutatingWebhookConfiguration "toolkit-image-security" created/);
      assert.match(io.out(), /Deployment "toolkit-system\/toolkit-webhook" created/);
      const hooks = await cluster.kubectl(["get", "mutatingwebhookconfiguration", "-o", "json"]);
      const hook = JSON.parse(hooks.stdout).items[0].webhooks[0];
      assert.equal(hook.clientConfig.url, url);
      assert.equal(hook.failurePolicy, "Fail");
      assert.ok(hook.clientConfig.caBundle.length > 0);
    });

    await t.step("a second enable changes nothing", async () => {
      const { io, ctx } = context();
      assert.equal(await runEnable({ ...kube, "webhook-url": url, default: "deny" }, ctx), 0);
      const lines = io.out().trim().split("\n");
      assert.ok(lines.length >= 15);
      for (const line of lines) assert.match(line, / unchanged$/);
      assert.match(io.err(), /nothing changed/);
    });

    await t.step("status reports the installation", async () => {
      const { io, ctx } = context();
      assert.equal(await runStatus({ ...kube, output: "json" }, ctx), 0);
      const status = JSON.parse(io.out());
      assert.equal(status.enabled, true);
      assert.equal(status.endpoint, url);
      assert.ok(status.certificate.daysLeft > 300);
      assert.ok(status.objects.every((o: { present: boolean }) => o.present));
      assert.deepEqual(status.policies[""].sort(), [
        "default",
        "kubernetes-system-images",
        "toolkit-release",
      ]);
    });

    await t.step("rotate-certs makes a new certificate and keeps the old CA trusted", async () => {
      const before = await cluster.kubectl([
        "get",
        "secret",
        "-n",
        "toolkit-system",
        "toolkit-webhook-tls",
        "-o",
        "jsonpath={.data.tls\\.crt}",
      ]);
      const { ctx } = context();
      assert.equal(await runRotateCerts({ ...kube }, ctx), 0);
      const after = await cluster.kubectl([
        "get",
        "secret",
        "-n",
        "toolkit-system",
        "toolkit-webhook-tls",
        "-o",
        "jsonpath={.data.tls\\.crt}",
      ]);
      assert.notEqual(after.stdout, before.stdout);
      const hooks = await cluster.kubectl(["get", "mutatingwebhookconfiguration", "-o", "json"]);
      const bundle = atob(JSON.parse(hooks.stdout).items[0].webhooks[0].clientConfig.caBundle);
      assert.equal(bundle.match(/BEGIN CERTIFICATE/g)?.length, 2);
    });

    await t.step("disable removes the webhook and keeps policies and CRDs", async () => {
      const { ctx } = context();
      assert.equal(await runDisable({ ...kube }, ctx), 0);
      const hooks = await cluster.kubectl(["get", "mutatingwebhookconfiguration", "-o", "name"]);
      assert.equal(hooks.stdout.trim(), "");
      const deployments = await cluster.kubectl([
        "get",
        "deploy",
        "-n",
        "toolkit-system",
        "-o",
        "name",
      ]);
      assert.equal(deployments.stdout.trim(), "");
      const policies = await cluster.kubectl([
        "get",
        "clusterimagepolicies.toolkit.dev",
        "-o",
        "name",
      ]);
      assert.equal(policies.stdout.trim().split("\n").length, 3);
      const { io, ctx: statusCtx } = context();
      await runStatus({ ...kube, output: "json" }, statusCtx);
      assert.equal(JSON.parse(io.out()).enabled, false);
    });

    await t.step("disable --purge removes the policies, CRDs and namespace", async () => {
      const { ctx } = context();
      assert.equal(await runDisable({ ...kube, purge: true }, ctx), 0);
      const crds = await cluster.kubectl(["get", "crd", "-o", "name"]);
      assert.doesNotMatch(crds.stdout, /toolkit\.dev/);
      // It waited for the namespace controller: the namespace is gone, not Terminating.
      const ns = await cluster.kubectl(["get", "namespace", "toolkit-system"]);
      assert.match(ns.stderr, /NotFound/);
    });

    await t.step("enable right after disable --purge installs again", async () => {
      const { io, ctx } = context();
      assert.equal(await runEnable({ ...kube, "webhook-url": url }, ctx), 0, io.err());
      assert.match(io.out(), /Namespace "toolkit-system" created/);
    });

    await t.step(
      "an object the API server refuses does not stop the others, and enforcement stays off",
      async () => {
        // An immutable ConfigMap in the way: its update is refused (422).
        await cluster.kubectl(["delete", "mutatingwebhookconfiguration", "--all"]);
        await cluster.kubectl([
          "delete",
          "configmap",
          "-n",
          "toolkit-system",
          "toolkit-registries-d",
        ]);
        await cluster.kubectl(["create", "-f", "-"], {
          stdin: JSON.stringify({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "toolkit-registries-d", namespace: "toolkit-system" },
            immutable: true,
            data: { "other.yaml": "docker: {}\n" },
          }),
        });
        await cluster.kubectl([
          "delete",
          "serviceaccount",
          "-n",
          "toolkit-system",
          "toolkit-webhook",
        ]);
        const { io, ctx } = context();
        await assert.rejects(
          runEnable({ ...kube, "webhook-url": url, output: "json" }, ctx),
          /not switched on: 1 object\(s\) failed: ConfigMap "toolkit-system\/toolkit-registries-d" \(.*immutable/i,
        );
        // The one shape of results (docs/cli.md): results and failures, by kind and name.
        const report = JSON.parse(io.out());
        type Entry = { kind: string; namespace?: string; name: string; outcome?: string };
        const outcome = (kind: string, name: string) =>
          report.failures.some((o: Entry) => o.kind === kind && o.name === name)
            ? "failed"
            : report.results.find((o: Entry) => o.kind === kind && o.name === name)?.outcome;
        assert.equal(report.namespace, "toolkit-system");
        assert.equal(outcome("ConfigMap", "toolkit-registries-d"), "failed");
        assert.match(report.failures[0].error, /immutable/i);
        // The other objects were applied all the same; the webhook configuration was not.
        assert.equal(outcome("ServiceAccount", "toolkit-webhook"), "created");
        assert.equal(outcome("Deployment", "toolkit-webhook"), "unchanged");
        const hooks = await cluster.kubectl(["get", "mutatingwebhookconfiguration", "-o", "name"]);
        assert.equal(hooks.stdout.trim(), "");
      },
    );
  },
});

Deno.test({
  name: "enable --cert-manager hands the certificate to cert-manager (its real CRDs)",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster({ crds: ["cert-manager"] });
    const kube = { kubeconfig: cluster.kubeconfigPath };

    await t.step(
      "the Issuer and Certificate are created and the CA is left to the injector",
      async () => {
        const { io, ctx } = context();
        assert.equal(
          await runEnable({ ...kube, "cert-manager": true, wait: false }, ctx),
          0,
          io.err(),
        );
        assert.match(io.out(), /Issuer "toolkit-system\/toolkit-webhook" created/);
        assert.match(io.out(), /Certificate "toolkit-system\/toolkit-webhook" created/);
        assert.doesNotMatch(io.out(), /Secret "toolkit-system\/toolkit-webhook-tls"/);
        const certificate = JSON.parse(
          (await cluster.kubectl([
            "get",
            "certificates.cert-manager.io",
            "toolkit-webhook",
            "-n",
            "toolkit-system",
            "-o",
            "json",
          ])).stdout,
        );
        assert.equal(certificate.spec.secretName, "toolkit-webhook-tls");
        assert.deepEqual(certificate.spec.dnsNames, [
          "toolkit-webhook.toolkit-system.svc",
          "toolkit-webhook.toolkit-system.svc.cluster.local",
        ]);
        const hook = JSON.parse(
          (await cluster.kubectl([
            "get",
            "mutatingwebhookconfiguration",
            "toolkit-image-security",
            "-o",
            "json",
          ])).stdout,
        );
        assert.equal(
          hook.metadata.annotations["cert-manager.io/inject-ca-from"],
          "toolkit-system/toolkit-webhook",
        );
        assert.equal(hook.webhooks[0].clientConfig.caBundle, undefined);
      },
    );

    await t.step("rotate-certs leaves the certificate to cert-manager", async () => {
      const { ctx } = context();
      await assert.rejects(
        runRotateCerts({ ...kube }, ctx),
        /cert-manager manages them \(delete the Secret "toolkit-webhook-tls" to have cert-manager issue a new one\)/,
      );
    });

    await t.step("disable removes the Issuer and Certificate", async () => {
      const { io, ctx } = context();
      assert.equal(await runDisable({ ...kube }, ctx), 0);
      assert.match(io.out(), /Issuer "toolkit-system\/toolkit-webhook" deleted/);
      assert.match(io.out(), /Certificate "toolkit-system\/toolkit-webhook" deleted/);
    });
  },
});
