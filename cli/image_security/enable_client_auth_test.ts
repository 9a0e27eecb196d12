/**
 * `image-security enable --client-auth`: the client CA Secret and the Deployment's `--client-ca`,
 * the API server's configuration written (key 0600) or printed (never the key), `-o json`, and
 * `--webhook-url` checked by presenting the API server's certificate to a server that requires
 * it. In-process, against the in-memory API server.
 */
import assert from "node:assert/strict";
import { createServer } from "node:tls";
import { parse as parseYaml } from "yaml";
import { DEPLOYMENTS, SECRETS } from "../../lib/kube/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { fakeCli } from "../../tests/fakes/cli.ts";

const URL_FLAGS = ["--webhook-url", "https://127.0.0.1:9/admit", "--no-verify-url"];

// deno-lint-ignore no-explicit-any
type Loose = any;

Deno.test("enable --client-auth --api-server-config-dir writes what kube-apiserver needs, the key 0600 and never printed", async () => {
  await using cli = await fakeCli();
  const r = await cli.run([
    "image-security",
    "enable",
    "--client-auth",
    "--api-server-config-dir",
    "apiserver",
    "--no-wait",
  ]);
  assert.equal(r.status, 0, r.err);
  assert.doesNotMatch(r.out + r.err, /PRIVATE KEY/);
  assert.match(r.err, /Making a new client CA: no client CA yet/);
  assert.match(
    r.err,
    new RegExp(
      `Start kube-apiserver with --admission-control-config-file=${cli.dir}/apiserver/admission-configuration.yaml`,
    ),
  );
  assert.match(r.err, /until kube-apiserver reads this configuration, it cannot reach the webhook/);
  const dir = `${cli.dir}/apiserver`;
  assert.equal((await Deno.stat(`${dir}/client.key`)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
  const admission = parseYaml(await Deno.readTextFile(`${dir}/admission-configuration.yaml`));
  assert.equal(admission.kind, "AdmissionConfiguration");
  assert.equal(
    admission.plugins[1].configuration.kubeConfigFile,
    `${dir}/webhook-kubeconfig.yaml`,
  );
  const kubeconfig = parseYaml(await Deno.readTextFile(`${dir}/webhook-kubeconfig.yaml`));
  assert.deepEqual(kubeconfig.users, [{
    name: "toolkit-webhook.toolkit-system.svc",
    user: { "client-certificate": `${dir}/client.crt`, "client-key": `${dir}/client.key` },
  }]);

  const secret = cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-client-ca") as Loose;
  assert.ok(secret, "the client CA Secret");
  const deployment = cli.kube.get(DEPLOYMENTS, "toolkit-system", "toolkit-webhook") as Loose;
  const container = deployment.spec.template.spec.containers[0];
  assert.ok(container.args.includes("--client-ca=/etc/toolkit/client-ca/ca.crt"));
  assert.equal(container.readinessProbe.httpGet.port, "probes");

  // Again: the CA is kept (the control plane's certificate stays valid), a new certificate issued.
  const caBefore = secret.data["ca.crt"];
  const again = await cli.run([
    "image-security",
    "enable",
    "--client-auth",
    "--no-wait",
    "-o",
    "json",
  ]);
  assert.equal(again.status, 0, again.err);
  assert.doesNotMatch(again.err, /Making a new client CA/);
  assert.doesNotMatch(again.out + again.err, /PRIVATE KEY/);
  const after = cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-client-ca") as Loose;
  assert.equal(after.data["ca.crt"], caBefore);
  const report = JSON.parse(again.out);
  assert.equal(
    report.apiServerConfiguration.admissionControlConfigFile,
    "/etc/kubernetes/toolkit/admission-configuration.yaml",
  );
  assert.equal(report.apiServerConfiguration.admissionConfiguration.kind, "AdmissionConfiguration");
  assert.match(again.err, /are written only to files: --api-server-config-dir DIR/);
});

Deno.test("enable --client-auth without a directory prints the AdmissionConfiguration and kubeconfig; without --client-auth nothing changes", async () => {
  await using cli = await fakeCli();
  const plain = await cli.run(["image-security", "enable", ...URL_FLAGS]);
  assert.equal(plain.status, 0, plain.err);
  assert.equal(cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-client-ca"), undefined);
  assert.doesNotMatch(plain.out, /AdmissionConfiguration/);

  const r = await cli.run([
    "image-security",
    "enable",
    ...URL_FLAGS,
    "--client-auth",
    "--api-server-config-path",
    "/etc/k8s/hook",
  ]);
  assert.equal(r.status, 0, r.err);
  assert.match(
    r.out,
    /# \/etc\/k8s\/hook\/admission-configuration\.yaml \(kube-apiserver --admission-control-config-file=\/etc\/k8s\/hook\/admission-configuration\.yaml\)\napiVersion: apiserver\.config\.k8s\.io\/v1\nkind: AdmissionConfiguration/,
  );
  assert.match(r.out, /- name: 127\.0\.0\.1:9\n/, "the URL's host:port names the user");
  assert.doesNotMatch(r.out + r.err, /PRIVATE KEY/);
  const relative = await cli.run([
    "image-security",
    "enable",
    ...URL_FLAGS,
    "--client-auth",
    "--api-server-config-path",
    "etc",
  ]);
  assert.equal(relative.status, 2);
  assert.match(relative.err, /kube-apiserver needs an absolute path/);
});

Deno.test("enable --client-ca takes the administrator's CA and issues no certificate", async () => {
  await using cli = await fakeCli();
  const first = await cli.run([
    "image-security",
    "enable",
    ...URL_FLAGS,
    "--api-server-config-dir",
    "made",
  ]);
  assert.equal(first.status, 0, first.err);
  const made = cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-client-ca") as Loose;
  const deployment = cli.kube.get(DEPLOYMENTS, "toolkit-system", "toolkit-webhook") as Loose;
  assert.ok(
    !deployment.spec.template.spec.containers[0].args.some((a: string) =>
      a.startsWith("--client-ca")
    ),
    "without --client-auth the webhook does not require the certificate yet",
  );
  await Deno.writeTextFile(`${cli.dir}/own-ca.crt`, decodeBase64Text(made.data["ca.crt"]));
  const r = await cli.run([
    "image-security",
    "enable",
    ...URL_FLAGS,
    "--client-ca",
    "own-ca.crt",
    "--api-server-config-dir",
    "given",
  ]);
  assert.equal(r.status, 0, r.err);
  const names = [...Deno.readDirSync(`${cli.dir}/given`)].map((e) => e.name).sort();
  assert.deepEqual(names, ["admission-configuration.yaml", "webhook-kubeconfig.yaml"]);
  assert.match(r.err, /are yours to issue from the --client-ca you gave/);
  const secret = cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-client-ca") as Loose;
  assert.equal(secret.data["ca.crt"], made.data["ca.crt"], "the given CA is installed");
  const bad = await cli.run(["image-security", "enable", ...URL_FLAGS, "--client-ca", "nope"]);
  assert.equal(bad.status, 2);
  assert.match(bad.err, /Cannot read --client-ca "nope"/);
});

Deno.test("enable --client-auth --webhook-url checks the URL presenting the API server's certificate", async () => {
  await using cli = await fakeCli();
  const url = (port: number) => `https://127.0.0.1:${port}/admit`;
  // A first enable makes the serving certificate and the client CA, enforcement not checked.
  const first = await cli.run([
    "image-security",
    "enable",
    "--webhook-url",
    url(9),
    "--no-verify-url",
    "--client-auth",
  ]);
  assert.equal(first.status, 0, first.err);
  const tls = cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-tls") as Loose;
  const ca = cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-client-ca") as Loose;
  let served = 0;
  const sockets = new Set<{ destroy(): void }>();
  const server = createServer({
    cert: decodeBase64Text(tls.data["tls.crt"]),
    key: decodeBase64Text(tls.data["tls.key"]),
    ca: [decodeBase64Text(ca.data["ca.crt"])],
    requestCert: true,
    rejectUnauthorized: true,
  }, (socket) => {
    served++;
    sockets.add(socket);
    socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
  });
  server.on("tlsClientError", (_e: unknown, socket: { destroy(): void }) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const r = await cli.run([
      "image-security",
      "enable",
      "--webhook-url",
      url(port),
      "--client-auth",
      "--wait-timeout",
      "5",
    ]);
    assert.equal(r.status, 0, r.err);
    assert.match(r.err, /answers with the serving certificate/);
    assert.ok(served >= 1, "the probe presented the client certificate and was served");
  } finally {
    const closed = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
  }
});
