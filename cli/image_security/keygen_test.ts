import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { readPrivateKey, readPublicKeys } from "../../lib/signature/mod.ts";
import { commandContext } from "../context.ts";

async function keygen(cwd: string, args: string[]) {
  const io = bufferedIO({ cwd });
  const status = await runCli(["image-security", "keygen", ...args], commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

Deno.test("keygen writes a 0600 private key and a public key, and prints the fingerprint", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await keygen(dir, [
      "--name",
      "Signer",
      "--email",
      "s@example.com",
      "--type",
      "ed25519",
    ]);
    assert.equal(r.status, 0, r.err);
    const fingerprint = r.out.trim();
    assert.match(fingerprint, /^[0-9A-F]{40}$/);
    const privateInfo = await Deno.stat(`${dir}/s.key.asc`);
    assert.equal(privateInfo.mode! & 0o777, 0o600);
    const [publicKey] = await readPublicKeys(await Deno.readTextFile(`${dir}/s.pub.asc`));
    assert.equal(publicKey?.getFingerprint().toUpperCase(), fingerprint);
    await readPrivateKey(await Deno.readTextFile(`${dir}/s.key.asc`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keygen refuses to overwrite key files and changes nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/s.key.asc`, "precious");
    const r = await keygen(dir, [
      "--name",
      "Signer",
      "--email",
      "s@example.com",
      "--type",
      "ed25519",
    ]);
    assert.equal(r.status, 2);
    assert.match(r.err, /the file exists \(use --force to replace it\)/);
    assert.equal(await Deno.readTextFile(`${dir}/s.key.asc`), "precious");
    await assert.rejects(Deno.stat(`${dir}/s.pub.asc`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keygen -o json protects the key with a passphrase file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/pass`, "correct horse\n");
    const r = await keygen(dir, [
      "--name",
      "Signer",
      "--type",
      "ed25519",
      "--passphrase-file",
      "pass",
      "-o",
      "json",
    ]);
    assert.equal(r.status, 0, r.err);
    const data = JSON.parse(r.out);
    assert.equal(data.userId, "Signer");
    await assert.rejects(readPrivateKey(await Deno.readTextFile(data.privateKey)), /passphrase/);
    await readPrivateKey(await Deno.readTextFile(data.privateKey), { passphrase: "correct horse" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
