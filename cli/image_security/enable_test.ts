import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";
import { writeTlsDir } from "./enforcement.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import type { WebhookTls } from "../../lib/install/mod.ts";
import { namesIn, readOnlyDir, tempDir } from "../../tests/env/files.ts";
import { parse as parseYaml } from "yaml";
import { decodeBase64Text } from "../../lib/base64.ts";

async function enable(args: string[]) {
  const io = bufferedIO({});
  const code = await runCli(["image-security", "enable", ...args], commandContext(io));
  return { code, out: io.out(), err: io.err() };
}

const URL = "https://127.0.0.1:9/admit";

Deno.test("enable --dry-run without -o prints every manifest as YAML, as its help says", async () => {
  const r = await enable(["--dry-run", "--webhook-url", URL]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^apiVersion: /);
  assert.match(r.out, /\n---\n/);
  assert.match(r.out, /kind: MutatingWebhookConfiguration/);
});

Deno.test("enable --dry-run -o text prints the objects' names, -o json one List", async () => {
  const text = await enable(["--dry-run", "--webhook-url", URL, "-o", "text"]);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^MutatingWebhookConfiguration toolkit-image-security$/m);
  const json = await enable(["--dry-run", "--webhook-url", URL, "-o", "json"]);
  assert.equal(JSON.parse(json.out).kind, "List");
});

Deno.test("enable --dry-run --client-auth prints no private key: the key entries are shown empty", async () => {
  for (const format of ["yaml", "json"]) {
    const r = await enable(["--dry-run", "--webhook-url", URL, "--client-auth", "-o", format]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out + r.err, /PRIVATE KEY/, format);
    const objects = format === "json"
      ? JSON.parse(r.out).items
      : r.out.split("\n---\n").map((text) => parseYaml(text));
    const secret = (name: string) =>
      objects.find((o: { kind: string; metadata: { name: string } }) =>
        o.kind === "Secret" && o.metadata.name === name
      );
    const clientCa = secret("toolkit-webhook-client-ca");
    assert.equal(clientCa.data["ca.key"], "", format);
    assert.match(decodeBase64Text(clientCa.data["ca.crt"]), /BEGIN CERTIFICATE/, format);
    const tls = secret("toolkit-webhook-tls");
    assert.equal(tls.data["tls.key"], "", format);
    assert.match(decodeBase64Text(tls.data["tls.crt"]), /BEGIN CERTIFICATE/, format);
    assert.match(
      r.err,
      /Private keys are not printed \(empty here; enable makes them when it installs\): Secret "toolkit-system\/toolkit-webhook-tls" tls\.key, Secret "toolkit-system\/toolkit-webhook-client-ca" ca\.key/,
      format,
    );
  }
  const text = await enable(["--dry-run", "--webhook-url", URL, "--client-auth", "-o", "text"]);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^Secret toolkit-system\/toolkit-webhook-client-ca$/m);
  assert.doesNotMatch(text.out + text.err, /PRIVATE KEY|not printed/);
});

Deno.test("enable takes the controller's namespace as -n, --namespace or --controller-namespace", async () => {
  for (const flag of ["-n", "--namespace", "--controller-namespace"]) {
    const r = await enable(["--dry-run", "--webhook-url", URL, "-o", "text", flag, "guard"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Deployment guard\/toolkit-webhook$/m, flag);
  }
});

Deno.test("enable refuses a --replicas that is not a number before anything is done", async () => {
  const r = await enable(["--dry-run", "--webhook-url", URL, "--replicas", "three"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /--replicas must be a number, not "three"/);
});

const TLS: WebhookTls = {
  keyPem: "KEY\n",
  certPem: "CERT\n",
  caCertPem: "CA\n",
  notAfter: new Date(0),
};

Deno.test("writeTlsDir() (--tls-dir) writes through symbolic links, the key 0600; a read-only directory fails clearly", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/secrets`);
  await Deno.mkdir(`${dir.path}/tls`);
  await Deno.writeTextFile(`${dir.path}/secrets/webhook.key`, "OLD KEY\n");
  await Deno.chmod(`${dir.path}/secrets/webhook.key`, 0o644);
  await Deno.symlink("../secrets/webhook.key", `${dir.path}/tls/tls.key`);
  const io = bufferedIO({ cwd: dir.path });
  await writeTlsDir(commandContext(io), "tls", TLS);
  assert.ok((await Deno.lstat(`${dir.path}/tls/tls.key`)).isSymlink, "the link stays");
  assert.equal(await Deno.readTextFile(`${dir.path}/secrets/webhook.key`), "KEY\n");
  assert.equal((await Deno.stat(`${dir.path}/secrets/webhook.key`)).mode! & 0o777, 0o600);
  assert.equal(await Deno.readTextFile(`${dir.path}/tls/ca.crt`), "CA\n");
  assert.deepEqual(await namesIn(`${dir.path}/tls`), ["ca.crt", "tls.crt", "tls.key"]);

  await Deno.remove(`${dir.path}/tls/tls.key`);
  await Deno.symlink("tls.crt", `${dir.path}/tls/tls.key`);
  await assert.rejects(
    writeTlsDir(commandContext(io), "tls", TLS),
    /"tls\/tls.key" and "tls\/tls.crt" are the same file/,
  );
  assert.equal(await Deno.readTextFile(`${dir.path}/tls/tls.crt`), "CERT\n");

  await Deno.remove(`${dir.path}/tls/tls.key`);
  await using _ = await readOnlyDir(`${dir.path}/tls`);
  const error = await writeTlsDir(commandContext(io), "tls", TLS).catch((e) => e);
  assert.ok(error instanceof ToolkitError && !(error instanceof UsageError));
  assert.match(
    error.message,
    /^Cannot write "tls\/tls.key": its directory ".*tls" cannot be written/,
  );
  assert.deepEqual(await namesIn(`${dir.path}/tls`), ["ca.crt", "tls.crt"]);
});
