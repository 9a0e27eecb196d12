/** The webhook executable serves HTTPS with the given certificate and answers /healthz and /readyz. */
import assert from "node:assert/strict";
import {
  e2eSkipReason,
  freePort,
  issueCert,
  LOOPBACK_SANS,
  makeCA,
  startProcess,
  waitFor,
} from "./env/mod.ts";

const entry = new URL("../webhook/main.ts", import.meta.url).pathname;

Deno.test({
  name: "toolkit-webhook serves /healthz over TLS on the given port and stops on SIGTERM",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "toolkit-webhook-" });
    const ca = await makeCA(dir, "ca");
    const cert = await issueCert(dir, ca, { name: "webhook", cn: "webhook", sans: LOOPBACK_SANS });
    const policies = `${dir}/policies.yaml`;
    await Deno.writeTextFile(
      policies,
      "apiVersion: toolkit.dev/v1\nkind: ClusterImagePolicy\nmetadata: {name: allow-all}\nspec: {repositories: [{name: '*'}]}\n",
    );
    const port = freePort();
    const webhook = await startProcess(Deno.execPath(), [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      entry,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--tls-cert-file",
      cert.certFile,
      "--tls-key-file",
      cert.keyFile,
      "--policies",
      policies,
    ], { logFile: `${dir}/webhook.log` });
    const client = Deno.createHttpClient({ caCerts: [ca.certPem] });
    try {
      await waitFor("the webhook", async () => {
        const response = await fetch(`https://127.0.0.1:${port}/healthz`, { client });
        return (await response.text()) === "ok\n";
      }, { process: webhook });
      const ready = await fetch(`https://127.0.0.1:${port}/readyz`, { client });
      assert.equal(await ready.text(), "ok\n");
      const plain = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.body?.cancel().then(() => r.status),
        () => "refused",
      );
      assert.notEqual(plain, 200, "plain HTTP must not be served");
    } finally {
      client.close();
      await webhook.stop();
      await Deno.remove(dir, { recursive: true });
    }
    assert.equal((await webhook.status).signal ?? "exited", "exited");
  },
});

Deno.test("toolkit-webhook exits 2 on a usage error", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", entry, "--port", "nope"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(
    new TextDecoder().decode(out.stderr),
    /Cannot use --port "nope": expected a number from 0 to 65535/,
  );
});
