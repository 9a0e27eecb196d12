/**
 * `enable --lookaside SCOPE=URL`: the ConfigMap `toolkit-registries-d` that the in-cluster
 * webhook mounts as its registries.d really leads it to an HTTP lookaside store. The webhook
 * runs here (no kubelet) with the ConfigMap's files, read back from the real API server, as its
 * `--registries.d`; the signatures are made by the real skopeo and gpg and served over HTTP by
 * a static file server (standing in for nginx or S3 hosting).
 */
import assert from "node:assert/strict";
import { e2eSkipReason, freePort, startCluster, startGpg, startRegistry } from "../env/mod.ts";
import { serveDirectory } from "../fakes/static_file_server.ts";
import { context, runEnable } from "./_context.ts";
import { keySecretManifest as keySecret } from "../../cli/image_security/key_secret.ts";
import {
  createNamespaces,
  dryRunPod,
  eventually,
  kubectlOk,
  podManifest,
  startWebhook,
} from "../admission/_webhook.ts";

Deno.test({
  name: "enable --lookaside: the webhook finds signatures in an HTTP store through the ConfigMap",
  ignore: e2eSkipReason() !== undefined,
  fn: async () => {
    await using cluster = await startCluster();
    await using registry = await startRegistry();
    await using gpg = await startGpg();
    await using store = serveDirectory(gpg.sigstore);
    const signer = await gpg.generateKey({ type: "ed25519" });
    const signed = `${registry.host}/team/app:1`;
    const digest = await gpg.pushImage(signed, { signBy: signer.fingerprint });
    const unsigned = `${registry.host}/team/unsigned:1`;
    await gpg.pushImage(unsigned, { content: "unsigned" });
    await createNamespaces(cluster, ["apps"]);

    const work = await Deno.makeTempDir({ prefix: "toolkit-lookaside-" });
    try {
      const port = freePort();
      const { io, ctx } = context(work);
      const code = await runEnable({
        kubeconfig: cluster.kubeconfigPath,
        "webhook-url": `https://127.0.0.1:${port}/admit`,
        // The webhook is started below, with the files written to tls/.
        "verify-url": false,
        "tls-dir": "tls",
        default: "deny",
        lookaside: [`${registry.host}/team=${store.url}`],
      }, ctx);
      assert.equal(code, 0, io.err());
      assert.match(io.out(), /ConfigMap "toolkit-system\/toolkit-registries-d" created/);
      await kubectlOk(
        cluster,
        ["apply", "-f", "-"],
        JSON.stringify(keySecret("image-signing-keys", "toolkit-system", signer.publicKeyArmored)),
      );

      // What the Deployment mounts at /etc/toolkit/registries.d.
      const configMap = JSON.parse(
        await kubectlOk(cluster, [
          "get",
          "configmap",
          "toolkit-registries-d",
          "-n",
          "toolkit-system",
          "-o",
          "json",
        ]),
      );
      const registriesD = `${work}/registries.d`;
      await Deno.mkdir(registriesD);
      for (const [name, text] of Object.entries(configMap.data as Record<string, string>)) {
        await Deno.writeTextFile(`${registriesD}/${name}`, text);
      }
      const deployment = JSON.parse(
        await kubectlOk(cluster, [
          "get",
          "deployment",
          "toolkit-webhook",
          "-n",
          "toolkit-system",
          "-o",
          "json",
        ]),
      );
      const container = deployment.spec.template.spec.containers[0];
      assert.ok(container.args.includes("--registries.d=/etc/toolkit/registries.d"));
      assert.ok(
        container.volumeMounts.some((m: { mountPath: string }) =>
          m.mountPath === "/etc/toolkit/registries.d"
        ),
      );

      await using _webhook = await startWebhook([
        "--kubeconfig",
        cluster.kubeconfigPath,
        "--namespace",
        "toolkit-system",
        "--insecure-registry",
        registry.host,
        "--registries.d",
        registriesD,
      ], {
        port,
        certFile: `${work}/tls/tls.crt`,
        keyFile: `${work}/tls/tls.key`,
        caPem: await Deno.readTextFile(`${work}/tls/ca.crt`),
      });
      await eventually("the API server to call the webhook", async () => {
        const r = await dryRunPod(cluster, "probe", "apps", unsigned);
        return r.stderr.includes("no signature exists");
      });

      const admitted = await cluster.kubectl(["create", "-f", "-"], {
        stdin: podManifest("signed", "apps", { containers: [signed] }),
      });
      assert.equal(admitted.code, 0, admitted.stderr);
      assert.equal(
        await kubectlOk(cluster, [
          "get",
          "pod",
          "signed",
          "-n",
          "apps",
          "-o",
          "jsonpath={.spec.containers[0].image}",
        ]),
        `${registry.host}/team/app@${digest}`,
      );
      const hex = digest.replace("sha256:", "");
      assert.ok(
        store.requests.some((path) => path === `/team/app@sha256=${hex}/signature-1`),
        `the signature was read over HTTP: ${store.requests.join(", ")}`,
      );
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
