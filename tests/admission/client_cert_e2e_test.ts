/**
 * Who may call the webhook (issue #33): the real kube-apiserver, started with
 * `--admission-control-config-file` naming the AdmissionConfiguration and kubeconfig that
 * `lib/install` makes for `toolkit image-security enable --client-auth`, calls the real webhook
 * (`webhook/main.ts --client-ca`, registered by URL) with its client certificate: a signed image
 * is admitted, an unsigned one denied. A client without a certificate from the client CA gets no
 * HTTP answer at all (the TLS handshake fails), nor does one with a certificate of another CA;
 * the probe listener serves `/healthz` and `/metrics` without a certificate and never `/admit`.
 * Then the attack of `_attack_unauthenticated.ts`: the webhook's memory stays under the chart's
 * limit and no connection is answered.
 *
 * Nothing here is about time.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, freePort } from "../env/mod.ts";
import { formatData } from "../../cli/output.ts";
import {
  apiServerConfiguration,
  generateClientCa,
  issueClientCertificate,
} from "../../lib/install/mod.ts";
import {
  CONTROLLER_NAMESPACE,
  dryRunPod,
  eventually,
  kubectlOk,
  webhookConfiguration,
} from "./_webhook.ts";
import { startWorld } from "./_world.ts";
import {
  CHART_MEMORY_LIMIT,
  runUnauthenticatedAttack,
  sendWithoutAcceptedCertificate,
  startAuthenticatedWebhook,
} from "./_attack_unauthenticated.ts";

Deno.test({
  name:
    "the real kube-apiserver reaches the webhook with its client certificate; a client without one gets no HTTP answer",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "toolkit-client-cert-e2e-" });
    try {
      // The webhook's port is chosen first: the kubeconfig's user is named by its host:port.
      const port = freePort();
      const url = `https://127.0.0.1:${port}/admit`;
      const apiServerDir = `${dir}/apiserver`;
      await Deno.mkdir(apiServerDir);
      const configuration = apiServerConfiguration(
        { namespace: CONTROLLER_NAMESPACE, webhookUrl: url },
        apiServerDir,
      );
      // The files kube-apiserver reads, as `enable --client-auth --api-server-config-dir` writes
      // them, before it starts.
      const clientCa = await generateClientCa();
      const certificate = await issueClientCertificate(clientCa);
      await Deno.writeTextFile(configuration.paths.cert, certificate.certPem);
      await Deno.writeTextFile(configuration.paths.key, certificate.keyPem, { mode: 0o600 });
      await Deno.writeTextFile(
        configuration.paths.admissionConfiguration,
        formatData(configuration.admissionConfiguration, "yaml"),
      );
      await Deno.writeTextFile(
        configuration.paths.kubeconfig,
        formatData(configuration.kubeconfig, "yaml"),
      );
      await using world = await startWorld({
        cluster: {
          crds: ["toolkit"],
          apiServerFlags: [
            `--admission-control-config-file=${configuration.paths.admissionConfiguration}`,
          ],
        },
      });
      const { cluster, registry, gpg } = world;
      const signer = await world.signer();
      const signed = `${registry.host}/e2e/app:1`;
      await gpg.pushImage(signed, { signBy: signer.fingerprint });
      const unsigned = `${registry.host}/e2e/unsigned:1`;
      await gpg.pushImage(unsigned, { content: "unsigned" });

      await world.namespaces("dev");
      await world.keySecret("signer", signer.publicKeyArmored);
      await world.clusterPolicy([{
        name: `${registry.host}/*`,
        policy: { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } },
      }]);
      // It asks for the API server's client certificate (--client-ca); registered by URL below.
      const env = world.use(await startAuthenticatedWebhook(world, {}, { port, dir, clientCa }));
      await kubectlOk(cluster, ["apply", "-f", "-"], webhookConfiguration(url, env.serving));

      await t.step("the API server calls with its certificate: reviews flow", async () => {
        await eventually("a signed image admitted through the API server", async () => {
          const r = await dryRunPod(cluster, "signed", "dev", signed);
          return r.code === 0;
        });
        const denied = await dryRunPod(cluster, "unsigned", "dev", unsigned);
        assert.notEqual(denied.code, 0);
        assert.match(denied.stderr, /admission webhook "images\.toolkit\.dev" denied the request/);
        assert.match(denied.stderr, /e2e\/unsigned:1/);
        // Counted by the webhook itself (read on the probe port, which needs no certificate).
        const client = Deno.createHttpClient({ caCerts: [env.serving.certPem] });
        try {
          const metrics = await (await fetch(`https://127.0.0.1:${env.probePort}/metrics`, {
            client,
          })).text();
          const reviews = [
            ...metrics.matchAll(/^toolkit_admission_reviews_total\{[^}]*\} (\d+)$/gm),
          ]
            .reduce((sum, m) => sum + Number(m[1]), 0);
          assert.ok(reviews >= 2, `the webhook answered the API server's reviews (${reviews})`);
        } finally {
          client.close();
        }
      });

      await t.step("a client without the certificate gets no HTTP answer at all", async () => {
        const without = await sendWithoutAcceptedCertificate(port, env.serving, 1024);
        assert.equal(without.bytesAnswered, 0, without.ending);
        const stranger = await sendWithoutAcceptedCertificate(
          port,
          env.serving,
          1024,
          env.stranger,
        );
        assert.equal(stranger.bytesAnswered, 0, stranger.ending);
        const client = Deno.createHttpClient({ caCerts: [env.serving.certPem] });
        try {
          await assert.rejects(() => fetch(`https://127.0.0.1:${port}/healthz`, { client }));
        } finally {
          client.close();
        }
        // The same request with the API server's certificate is answered.
        const admitted = await sendWithoutAcceptedCertificate(
          port,
          env.serving,
          2,
          env.apiServer,
        );
        assert.ok(admitted.bytesAnswered > 0, admitted.ending);
      });

      await t.step("the probe listener serves /healthz and /metrics only", async () => {
        const client = Deno.createHttpClient({ caCerts: [env.serving.certPem] });
        try {
          const get = async (path: string, init: RequestInit = {}) => {
            const response = await fetch(`https://127.0.0.1:${env.probePort}${path}`, {
              ...init,
              client,
            });
            return { status: response.status, text: await response.text() };
          };
          assert.deepEqual(await get("/healthz"), { status: 200, text: "ok\n" });
          assert.deepEqual(await get("/readyz"), { status: 200, text: "ok\n" });
          const metrics = await get("/metrics");
          assert.equal(metrics.status, 200);
          assert.match(metrics.text, /^toolkit_admission_/m);
          const admit = await get("/admit", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          });
          assert.equal(admit.status, 404);
        } finally {
          client.close();
        }
      });
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "128 connections without a client certificate, each sending 8 MiB: none answered, memory under the chart's limit",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const { figures, attempts } = await runUnauthenticatedAttack();
    assert.equal(attempts.length, 128);
    assert.deepEqual(
      attempts.filter((a) => a.bytesAnswered > 0),
      [],
      "no connection got an answer",
    );
    assert.ok(
      figures.peakRssMiB * 1024 * 1024 < CHART_MEMORY_LIMIT,
      `peak RSS ${figures.peakRssMiB} MiB`,
    );
    assert.match(figures.healthzOk, /^(\d+)\/\1$/, "every /healthz probe answered ok");
  },
});
