/**
 * What `toolkit image-security enable` installs really enforces: the real kube-apiserver calls
 * the webhook (`webhook/main.ts`, a real process outside the cluster) through the
 * MutatingWebhookConfiguration `enable --webhook-url` made, with the serving certificate
 * `enable --tls-dir` wrote. Images are pushed and signed with the real skopeo and gpg into the
 * distribution registry; the signing key goes in with `image-security key-secret`.
 *
 * The story: `--default warn` without the signing keys Secret admits with a warning; `--default
 * deny` without it denies with the reason; with it, a signed Pod is admitted and pinned and an
 * unsigned one denied with Portieris's message; `status` reports the installation;
 * `rotate-certs` keeps admission working through the reload; after `disable` the API server no
 * longer calls the webhook.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, freePort, startCluster, startGpg, startRegistry } from "../env/mod.ts";
import {
  context,
  runDisable,
  runEnable,
  runKeySecret,
  runRotateCerts,
  runStatus,
} from "./_context.ts";
import {
  createNamespaces,
  dryRunPod,
  eventually,
  kubectlOk,
  podManifest,
  startWebhook,
} from "../admission/_webhook.ts";

const NAMESPACE = "toolkit-system";
const HOOK = "image-security.toolkit.dev";

Deno.test({
  name: "enable --webhook-url really enforces: warn, deny, signed admitted, rotate, disable",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    await using registry = await startRegistry();
    await using gpg = await startGpg();
    const signer = await gpg.generateKey({ type: "ed25519" });
    const signed = `${registry.host}/shop/web:1`;
    const signedDigest = await gpg.pushImage(signed, { signBy: signer.fingerprint });
    const unsigned = `${registry.host}/shop/unsigned:1`;
    await gpg.pushImage(unsigned, { content: "unsigned" });
    await createNamespaces(cluster, ["shop"]);

    const work = await Deno.makeTempDir({ prefix: "toolkit-enforce-" });
    const tlsDir = `${work}/tls`;
    const port = freePort();
    const url = `https://127.0.0.1:${port}/admit`;
    const kube = { kubeconfig: cluster.kubeconfigPath };
    // The first enable runs before the webhook is started with the files it writes (so its URL
    // is not checked); the later ones check that the running webhook serves the certificate.
    let started = false;
    const enable = async (defaultAction: string) => {
      const { io, ctx } = context(work);
      const code = await runEnable(
        {
          ...kube,
          "webhook-url": url,
          "tls-dir": "tls",
          default: defaultAction,
          replicas: 1,
          "verify-url": started,
        },
        ctx,
      );
      assert.equal(code, 0, io.err());
      return io;
    };
    const create = (name: string, image: string) =>
      cluster.kubectl(["create", "-f", "-"], {
        stdin: podManifest(name, "shop", { containers: [image] }),
      });
    const imageOf = (name: string) =>
      kubectlOk(cluster, [
        "get",
        "pod",
        name,
        "-n",
        "shop",
        "-o",
        "jsonpath={.spec.containers[0].image}",
      ]);

    try {
      const first = await enable("warn");
      assert.match(first.err(), /Serving certificate written to tls/);
      assert.match(
        first.err(),
        /Warning: The default policy checks signatures against the keys in Secret "toolkit-system\/image-signing-keys", which does not exist: every image no other policy covers is admitted with a warning/,
      );
      assert.equal((await Deno.stat(`${tlsDir}/tls.key`)).mode! & 0o777, 0o600);

      await using webhook = await startWebhook([
        "--kubeconfig",
        cluster.kubeconfigPath,
        "--namespace",
        NAMESPACE,
        "--insecure-registry",
        registry.host,
        "--registries.d",
        gpg.registriesD,
      ], {
        port,
        certFile: `${tlsDir}/tls.crt`,
        keyFile: `${tlsDir}/tls.key`,
        caPem: await Deno.readTextFile(`${tlsDir}/ca.crt`),
      });
      started = true;
      const webhookCalls = async () =>
        (await webhook.logLines()).filter((l) => l.msg === "review").length;
      // The API server picks the configuration up asynchronously.
      await eventually("the API server to call the webhook", async () => {
        const r = await dryRunPod(cluster, "probe", "shop", unsigned);
        return r.stderr.includes("warn mode, admitted anyway");
      });

      await t.step("--default warn without the keys Secret admits with a warning", async () => {
        const r = await create("warned", unsigned);
        assert.equal(r.code, 0, r.stderr);
        assert.match(
          r.stderr,
          /Warning: warn mode, admitted anyway: .*Cannot read key Secret "toolkit-system\/image-signing-keys": it does not exist/,
        );
        assert.equal(await imageOf("warned"), unsigned);
      });

      await t.step("--default deny without the keys Secret denies with the reason", async () => {
        const io = await enable("deny");
        assert.match(io.err(), /every image no other policy covers is DENIED until it exists/);
        await eventually("the deny policy to reach the webhook", async () => {
          const r = await dryRunPod(cluster, "probe", "shop", signed);
          return r.code !== 0;
        });
        const r = await create("no-keys", signed);
        assert.notEqual(r.code, 0);
        assert.match(
          r.stderr,
          new RegExp(
            `admission webhook "${HOOK}" denied the request: .*Cannot read key Secret "toolkit-system/image-signing-keys": it does not exist`,
          ),
        );
      });

      await t.step("with the signing key stored, a signed Pod is admitted and pinned", async () => {
        await Deno.writeTextFile(`${work}/signer.pub.asc`, signer.publicKeyArmored);
        const { io, ctx } = context(work);
        const code = await runKeySecret(
          { ...kube, name: "image-signing-keys", namespace: NAMESPACE, key: "signer.pub.asc" },
          ctx,
        );
        assert.equal(code, 0, io.err());
        const again = await enable("deny");
        assert.doesNotMatch(again.err(), /Warning/);
        await eventually("the key Secret to reach the webhook", async () => {
          const r = await dryRunPod(cluster, "probe", "shop", signed);
          return r.code === 0;
        });
        const r = await create("signed", signed);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(await imageOf("signed"), `${registry.host}/shop/web@${signedDigest}`);
      });

      await t.step("an unsigned Pod is denied with the exact message", async () => {
        const r = await create("unsigned", unsigned);
        assert.notEqual(r.code, 0);
        assert.equal(
          r.stderr.trim(),
          `Error from server (Forbidden): error when creating "STDIN": admission webhook "${HOOK}" denied the request: ` +
            `policy denied the request: A signature was required, but no signature exists (container "app" at spec.containers[0], image "${unsigned}")`,
        );
      });

      await t.step("status reports the installation", async () => {
        const { io, ctx } = context();
        assert.equal(await runStatus({ ...kube, output: "json" }, ctx), 0);
        const status = JSON.parse(io.out());
        assert.equal(status.enabled, true);
        assert.equal(status.endpoint, url);
        assert.ok(status.certificate.names.includes("127.0.0.1"));
        assert.ok(status.objects.every((o: { present: boolean }) => o.present));
        assert.deepEqual(status.replicas.desired, 1);
      });

      await t.step("rotate-certs keeps admission working before and after the reload", async () => {
        const oldCert = await Deno.readTextFile(`${tlsDir}/tls.crt`);
        const oldCa = await Deno.readTextFile(`${tlsDir}/ca.crt`);
        const before = await webhookCalls();
        const { io, ctx } = context(work);
        assert.equal(await runRotateCerts({ ...kube, "tls-dir": "tls" }, ctx), 0, io.err());
        const newCert = await Deno.readTextFile(`${tlsDir}/tls.crt`);
        assert.notEqual(newCert, oldCert);
        // The webhook still serves the old certificate until it reloads: the caBundle keeps the
        // old CA, so the API server goes on calling it. Files were rewritten by rename, so the
        // webhook sees them at its next check (300 ms here).
        const newCa = await Deno.readTextFile(`${tlsDir}/ca.crt`);
        await eventually(
          "the webhook to serve the new certificate",
          () => webhook.isReady({ certPem: newCa }),
        );
        assert.equal(await webhook.isReady({ certPem: oldCa }), false);
        const r = await create("after-rotation", signed);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(await imageOf("after-rotation"), `${registry.host}/shop/web@${signedDigest}`);
        const denied = await create("unsigned-after-rotation", unsigned);
        assert.notEqual(denied.code, 0);
        assert.match(denied.stderr, /no signature exists/);
        assert.ok((await webhookCalls()) > before);
      });

      await t.step("after disable, the API server no longer calls the webhook", async () => {
        const { io, ctx } = context();
        assert.equal(await runDisable({ ...kube }, ctx), 0, io.err());
        assert.match(io.out(), /MutatingWebhookConfiguration "toolkit-image-security" deleted/);
        await eventually("the API server to drop the webhook", async () => {
          const r = await dryRunPod(cluster, "probe", "shop", unsigned);
          return r.code === 0;
        });
        const calls = await webhookCalls();
        const r = await create("after-disable", unsigned);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(await imageOf("after-disable"), unsigned);
        assert.equal(await webhookCalls(), calls, "the webhook was not called");
      });
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
