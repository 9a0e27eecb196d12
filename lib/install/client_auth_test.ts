import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { createServer } from "node:tls";
import { x509 } from "../x509.ts";
import {
  admissionConfiguration,
  API_SERVER_CLIENT_NAME,
  apiServerConfiguration,
  CLIENT_CA_SECRET_NAME,
  clientCaFromSecret,
  clientCaSecretManifest,
  defaultInstallOptions,
  deploymentManifest,
  ensureClientCa,
  generateClientCa,
  generateWebhookTls,
  installManifests,
  issueClientCertificate,
  webhookArgs,
  webhookClientNames,
} from "./mod.ts";

// deno-lint-ignore no-explicit-any
type Loose = any;

Deno.test("issueClientCertificate() issues a clientAuth certificate its CA verifies", async () => {
  const now = new Date();
  const ca = await generateClientCa(now);
  const client = await issueClientCertificate(ca, now);
  const caCert = new X509Certificate(ca.caCertPem);
  const leaf = new X509Certificate(client.certPem);
  assert.equal(caCert.ca, true);
  assert.equal(leaf.ca, false);
  assert.ok(leaf.checkIssued(caCert));
  assert.ok(leaf.verify(caCert.publicKey));
  const usages = new x509.X509Certificate(client.certPem)
    .getExtension(x509.ExtendedKeyUsageExtension)?.usages;
  assert.deepEqual([...usages ?? []], [x509.ExtendedKeyUsage.clientAuth], "clientAuth only");
  assert.equal(leaf.subject, `CN=${API_SERVER_CLIENT_NAME}`);
  assert.ok(client.notAfter <= new Date(caCert.validTo));
  await assert.rejects(
    () => issueClientCertificate({ caCertPem: ca.caCertPem }, now),
    /given without its key/,
  );
});

Deno.test("a TLS server requiring the client CA accepts the issued certificate, not another CA's", async () => {
  const serving = await generateWebhookTls({ dnsNames: ["127.0.0.1"] });
  const ca = await generateClientCa();
  const other = await generateClientCa();
  const server = createServer({
    cert: serving.certPem,
    key: serving.keyPem,
    ca: [ca.caCertPem],
    requestCert: true,
    rejectUnauthorized: true,
  }, (socket) => socket.end("hello"));
  server.on("tlsClientError", (_e: unknown, socket: { destroy(): void }) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const ask = async (client: { certPem: string; keyPem: string }) => {
    try {
      const conn = await Deno.connectTls({
        hostname: "127.0.0.1",
        port,
        caCerts: [serving.caCertPem],
        cert: client.certPem,
        key: client.keyPem,
      });
      try {
        const buffer = new Uint8Array(16);
        const n = await conn.read(buffer);
        return n === null ? "closed" : new TextDecoder().decode(buffer.subarray(0, n));
      } finally {
        conn.close();
      }
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    }
  };
  try {
    assert.equal(await ask(await issueClientCertificate(ca)), "hello");
    assert.match(await ask(await issueClientCertificate(other)), /^refused|closed/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

Deno.test("ensureClientCa() keeps the installed CA, renews one about to expire, takes a given one", async () => {
  const now = new Date();
  const made = await ensureClientCa(undefined, { now });
  assert.equal(made.renewed, "no client CA yet");
  const secret = clientCaSecretManifest("toolkit-system", made.ca);
  assert.equal(secret.metadata.name, CLIENT_CA_SECRET_NAME);
  assert.deepEqual(Object.keys(secret.data as object), ["ca.crt", "ca.key"]);
  const kept = await ensureClientCa(secret, { now });
  assert.equal(kept.renewed, undefined);
  assert.deepEqual(kept.ca, clientCaFromSecret(secret));
  const late = await ensureClientCa(secret, { now: new Date(now.getTime() + 340 * 86_400_000) });
  assert.match(late.renewed ?? "", /the client CA expires on/);
  assert.notEqual(late.ca.caCertPem, made.ca.caCertPem);

  const given = await ensureClientCa(secret, { now, given: made.ca.caCertPem });
  assert.equal(given.ca.caKeyPem, undefined, "a given CA comes without a key");
  const givenSecret = clientCaSecretManifest("toolkit-system", given.ca);
  assert.deepEqual(Object.keys(givenSecret.data as object), ["ca.crt"]);
  assert.deepEqual((await ensureClientCa(givenSecret, { now })).ca, given.ca, "kept as given");
  const leaf = await issueClientCertificate(made.ca);
  await assert.rejects(
    () => ensureClientCa(undefined, { now, given: leaf.certPem }),
    /it is not a CA certificate/,
  );
});

Deno.test("the AdmissionConfiguration and kubeconfig are Kubernetes' 'Authenticate API servers' files", () => {
  assert.deepEqual(admissionConfiguration("/etc/k/kubeconfig.yaml"), {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AdmissionConfiguration",
    plugins: ["ValidatingAdmissionWebhook", "MutatingAdmissionWebhook"].map((name) => ({
      name,
      configuration: {
        apiVersion: "apiserver.config.k8s.io/v1",
        kind: "WebhookAdmissionConfiguration",
        kubeConfigFile: "/etc/k/kubeconfig.yaml",
      },
    })),
  });
  const options = defaultInstallOptions({ namespace: "guard" });
  assert.deepEqual(webhookClientNames(options), ["toolkit-webhook.guard.svc"]);
  assert.deepEqual(
    webhookClientNames({ ...options, webhookUrl: "https://10.0.0.5:8443/admit" }),
    ["10.0.0.5:8443"],
  );
  assert.deepEqual(
    webhookClientNames({ ...options, webhookUrl: "https://hook.example.com/admit" }),
    ["hook.example.com"],
  );
  const configuration = apiServerConfiguration(options, "/etc/kubernetes/toolkit/");
  assert.equal(
    configuration.paths.admissionConfiguration,
    "/etc/kubernetes/toolkit/admission-configuration.yaml",
  );
  assert.deepEqual(configuration.kubeconfig, {
    apiVersion: "v1",
    kind: "Config",
    users: [{
      name: "toolkit-webhook.guard.svc",
      user: {
        "client-certificate": "/etc/kubernetes/toolkit/client.crt",
        "client-key": "/etc/kubernetes/toolkit/client.key",
      },
    }],
  });
});

Deno.test("with client authentication the Deployment mounts the CA's certificate only and probes the probe port", async () => {
  const plain = deploymentManifest(defaultInstallOptions()) as Loose;
  const plainContainer = plain.spec.template.spec.containers[0];
  assert.equal(plainContainer.livenessProbe.httpGet.port, "https");
  assert.ok(!webhookArgs(defaultInstallOptions()).some((a) => a.startsWith("--client-ca")));

  const options = defaultInstallOptions({ clientAuth: true });
  const deployment = deploymentManifest(options) as Loose;
  const container = deployment.spec.template.spec.containers[0];
  assert.ok(container.args.includes("--client-ca=/etc/toolkit/client-ca/ca.crt"));
  assert.ok(container.args.includes("--probe-port=8444"));
  assert.deepEqual(container.ports.map((p: Loose) => [p.name, p.containerPort]), [
    ["https", 8443],
    ["probes", 8444],
  ]);
  assert.equal(container.livenessProbe.httpGet.port, "probes");
  assert.equal(container.readinessProbe.httpGet.port, "probes");
  const volume = deployment.spec.template.spec.volumes.find((v: Loose) => v.name === "client-ca");
  assert.deepEqual(volume.secret, {
    secretName: CLIENT_CA_SECRET_NAME,
    items: [{ key: "ca.crt", path: "ca.crt" }],
  });

  const tls = await generateWebhookTls({ dnsNames: ["toolkit-webhook.toolkit-system.svc"] });
  const ca = await generateClientCa();
  const objects = installManifests(options, { tls, caBundle: btoa(tls.caCertPem) }, ca);
  assert.ok(objects.some((o) => o.metadata.name === CLIENT_CA_SECRET_NAME));
  assert.equal(objects.at(-1)?.kind, "MutatingWebhookConfiguration");
});
