import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { readPrivateKey, readPublicKeys } from "../../lib/signature/mod.ts";
import { publicKeySha256, readCosignPrivateKey } from "../../lib/signature/cosign_keys.ts";

async function keygen(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferedIO({ cwd, env });
  const status = await runCli(["image-security", "keygen", ...args], {
    io,
    programName: "toolkit",
  });
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

Deno.test("keygen --type ecdsa-p256 writes cosign.key (0600) and cosign.pub", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/pass`, "s3cret\n");
    const r = await keygen(dir, ["--type", "ecdsa-p256", "--passphrase-file", "pass"], {
      COSIGN_PASSWORD: "not this one",
    });
    assert.equal(r.status, 0, r.err);
    const publicKeyPem = await Deno.readTextFile(`${dir}/cosign.pub`);
    assert.match(publicKeyPem, /^-----BEGIN PUBLIC KEY-----\n/);
    assert.equal(r.out.trim(), (await publicKeySha256(publicKeyPem)).toHex());
    assert.equal((await Deno.stat(`${dir}/cosign.key`)).mode! & 0o777, 0o600);
    const privateKeyPem = await Deno.readTextFile(`${dir}/cosign.key`);
    assert.match(privateKeyPem, /^-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\n/);
    const signer = await readCosignPrivateKey(privateKeyPem, "s3cret");
    assert.equal(signer.publicKeyPem, publicKeyPem);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keygen --type ecdsa-p256 takes COSIGN_PASSWORD, -o json and the file flags", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await keygen(dir, [
      "--type",
      "ecdsa-p256",
      "--private-key",
      "ci.key",
      "--public-key",
      "ci.pub",
      "-o",
      "json",
    ], { COSIGN_PASSWORD: "from-env" });
    assert.equal(r.status, 0, r.err);
    const data = JSON.parse(r.out);
    assert.equal(data.type, "ecdsa-p256");
    assert.equal(data.format, "cosign");
    assert.equal(data.privateKey, `${dir}/ci.key`);
    await readCosignPrivateKey(await Deno.readTextFile(`${dir}/ci.key`), "from-env");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keygen --type ecdsa-p256 without a password says the key has an empty one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await keygen(dir, ["--type", "ecdsa-p256"]);
    assert.equal(r.status, 0, r.err);
    assert.match(r.err, /encrypted with an empty password/);
    await readCosignPrivateKey(await Deno.readTextFile(`${dir}/cosign.key`), "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keygen --type ecdsa-p256 refuses --name and existing files, writing nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const named = await keygen(dir, ["--type", "ecdsa-p256", "--name", "CI"]);
    assert.equal(named.status, 2);
    assert.match(named.err, /Cannot use --name with --type ecdsa-p256/);
    await Deno.writeTextFile(`${dir}/cosign.pub`, "precious");
    const exists = await keygen(dir, ["--type", "ecdsa-p256"]);
    assert.equal(exists.status, 2);
    assert.match(exists.err, /the file exists/);
    assert.equal(await Deno.readTextFile(`${dir}/cosign.pub`), "precious");
    await assert.rejects(Deno.stat(`${dir}/cosign.key`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keygen of an OpenPGP key still needs --name", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await keygen(dir, ["--type", "ed25519"]);
    assert.equal(r.status, 2);
    assert.match(r.err, /without a name: pass --name/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
