/**
 * `toolkit image-security enable --client-auth` as docs/install.md, "Who may call the webhook",
 * tells it, against the real kube-apiserver and the real webhook process (`--webhook-url`):
 *
 * 1. `enable --api-server-config-dir` makes the client CA and writes the AdmissionConfiguration,
 *    its kubeconfig and the API server's certificate, the webhook not requiring it yet;
 * 2. kube-apiserver is restarted with those files (`--admission-control-config-file`);
 * 3. `enable --client-auth --tls-dir` writes the client CA for the webhook's `--client-ca`, checks
 *    the URL presenting the API server's certificate, and switches enforcement on.
 *
 * Then a signed Pod is admitted and an unsigned one denied through the API server, while a client
 * without the certificate is refused at the TLS handshake.
 */
import assert from "node:assert/strict";
import {
  e2eSkipReason,
  freePort,
  startCluster,
  startGpg,
  startRegistry,
  waitFor,
  webhookReady,
} from "../env/mod.ts";
import { context, runEnable, runKeySecret } from "./_context.ts";
import { createNamespaces, dryRunPod, eventually, startWebhook } from "../admission/_webhook.ts";

const NAMESPACE = "toolkit-system";

Deno.test({
  name:
    "enable --client-auth: the files it writes let the real kube-apiserver, and only it, call the webhook",
  ignore: e2eSkipReason() !== undefined,
  fn: async () => {
    const work = await Deno.makeTempDir({ prefix: "toolkit-client-auth-" });
    try {
      const apiServerDir = `${work}/apiserver`;
      const admissionFile = `${apiServerDir}/admission-configuration.yaml`;
      // kube-apiserver's flags are fixed when it starts: it starts with a configuration that
      // names no certificate yet, and is restarted once enable has written the real one.
      await Deno.mkdir(apiServerDir);
      await Deno.writeTextFile(
        `${apiServerDir}/webhook-kubeconfig.yaml`,
        "apiVersion: v1\nkind: Config\nusers: []\n",
      );
      await Deno.writeTextFile(
        admissionFile,
        `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: MutatingAdmissionWebhook
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: WebhookAdmissionConfiguration
      kubeConfigFile: ${apiServerDir}/webhook-kubeconfig.yaml
`,
      );
      await using cluster = await startCluster({
        apiServerFlags: [`--admission-control-config-file=${admissionFile}`],
      });
      await using registry = await startRegistry();
      await using gpg = await startGpg();
      const signer = await gpg.generateKey({ type: "ed25519" });
      const signed = `${registry.host}/shop/web:1`;
      await gpg.pushImage(signed, { signBy: signer.fingerprint });
      const unsigned = `${registry.host}/shop/unsigned:1`;
      await gpg.pushImage(unsigned, { content: "unsigned" });
      await createNamespaces(cluster, ["shop"]);

      const port = freePort();
      const url = `https://127.0.0.1:${port}/admit`;
      const kube = { kubeconfig: cluster.kubeconfigPath };
      const flags = {
        ...kube,
        "webhook-url": url,
        "tls-dir": "tls",
        default: "deny",
        replicas: 1,
      };

      // 1. The client CA and the control plane's files; the webhook does not require them yet.
      {
        const { io, ctx } = context(work);
        const code = await runEnable({
          ...flags,
          "verify-url": false,
          "api-server-config-dir": "apiserver",
        }, ctx);
        assert.equal(code, 0, io.err());
        assert.match(io.err(), /API server configuration written: apiserver\/client\.key/);
        assert.doesNotMatch(io.out() + io.err(), /PRIVATE KEY/);
        assert.equal((await Deno.stat(`${apiServerDir}/client.key`)).mode! & 0o777, 0o600);
        const kubeconfig = await Deno.readTextFile(`${apiServerDir}/webhook-kubeconfig.yaml`);
        assert.match(kubeconfig, new RegExp(`name: 127\\.0\\.0\\.1:${port}\\n`));
      }
      await Deno.writeTextFile(`${work}/signer.pub.asc`, signer.publicKeyArmored);
      {
        const { io, ctx } = context(work);
        const code = await runKeySecret(
          { ...kube, name: "image-signing-keys", namespace: NAMESPACE, key: "signer.pub.asc" },
          ctx,
        );
        assert.equal(code, 0, io.err());
      }

      // 2. kube-apiserver reads them (on a real control plane: copied to every node, restarted).
      await cluster.startApiServer();

      // 3. enable --client-auth writes tls/client-ca.crt and waits for the URL to accept the API
      // server's certificate; the webhook is started on the files it wrote.
      const { io, ctx } = context(work);
      const enabling = runEnable({ ...flags, "client-auth": true, "wait-timeout": 120 }, {
        ...ctx,
        clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      });
      await waitFor(
        "enable to write tls/client-ca.crt",
        () => Deno.stat(`${work}/tls/client-ca.crt`).then(() => true, () => false),
        { timeoutMs: 60_000 },
      );
      const probePort = freePort();
      await using webhook = await startWebhook([
        "--kubeconfig",
        cluster.kubeconfigPath,
        "--namespace",
        NAMESPACE,
        "--insecure-registry",
        registry.host,
        "--registries.d",
        gpg.registriesD,
        "--client-ca",
        `${work}/tls/client-ca.crt`,
        "--probe-port",
        String(probePort),
      ], {
        port,
        certFile: `${work}/tls/tls.crt`,
        keyFile: `${work}/tls/tls.key`,
        caPem: await Deno.readTextFile(`${work}/tls/ca.crt`),
      }, { waitUntilReady: false });
      const servingCa = await Deno.readTextFile(`${work}/tls/ca.crt`);
      await waitFor("the webhook's probe listener", () => webhookReady(probePort, servingCa), {
        process: webhook.process,
        timeoutMs: 60_000,
      });
      assert.equal(await enabling, 0, io.err());
      assert.match(io.err(), new RegExp(`${url} answers with the serving certificate`));
      assert.match(
        io.err(),
        /Serving certificate written to tls \(tls\.crt, tls\.key, ca\.crt, client-ca\.crt\)/,
      );

      await eventually("a signed Pod admitted through the API server", async () => {
        const r = await dryRunPod(cluster, "signed", "shop", signed);
        return r.code === 0;
      }, 60_000);
      const denied = await dryRunPod(cluster, "unsigned", "shop", unsigned);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /admission webhook "image-security\.toolkit\.dev" denied/);

      // Anyone else: no HTTP answer.
      const client = Deno.createHttpClient({ caCerts: [servingCa] });
      try {
        await assert.rejects(() =>
          fetch(url, { method: "POST", body: "{}", client }).then((r) => r.text())
        );
      } finally {
        client.close();
      }
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
