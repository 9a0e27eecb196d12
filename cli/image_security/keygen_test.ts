import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { readPublicKeys } from "../../lib/signature/mod.ts";
import { readPrivateKey } from "../../lib/signing/mod.ts";
import { publicKeySha256, readCosignPrivateKey } from "../../lib/signing/cosign_keys.ts";
import { namesIn, readOnlyDir, tempDir } from "../../tests/env/files.ts";
import { commandContext } from "../context.ts";

async function keygen(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferedIO({ cwd, env });
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

Deno.test("keygen with one file for both keys is a usage error that writes nothing, also with --force", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/k.asc`, "old private key");
  await Deno.chmod(`${dir.path}/k.asc`, 0o600);
  await Deno.symlink("k.asc", `${dir.path}/link.asc`);
  for (const [pub, priv] of [["k.asc", "k.asc"], ["link.asc", "k.asc"], ["k.asc", "./link.asc"]]) {
    const r = await keygen(dir.path, [
      ...["--name", "X", "--type", "ed25519", "--public-key", pub!, "--private-key", priv!],
      "--force",
    ]);
    assert.equal(r.status, 2, r.err);
    assert.match(
      r.err,
      new RegExp(`--public-key "${pub}" and --private-key "${priv}" are the same file`),
    );
    assert.match(r.err, /nothing was written/);
    assert.doesNotMatch(r.err, /Making an|Wrote/);
    assert.equal(await Deno.readTextFile(`${dir.path}/k.asc`), "old private key");
    assert.equal((await Deno.stat(`${dir.path}/k.asc`)).mode! & 0o777, 0o600);
  }
  assert.deepEqual(await namesIn(dir.path), ["k.asc", "link.asc"]);
});

Deno.test("keygen --force writes through symbolic links, keeps them, and makes the private key 0600", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/dotfiles`);
  await Deno.writeTextFile(`${dir.path}/dotfiles/key.asc`, "old private key");
  await Deno.chmod(`${dir.path}/dotfiles/key.asc`, 0o644);
  await Deno.symlink("dotfiles/key.asc", `${dir.path}/key.asc`);
  await Deno.symlink("dotfiles/pub.asc", `${dir.path}/pub.asc`); // dangling: made by keygen
  const args = ["--name", "X", "--type", "ed25519", "--public-key", "pub.asc"];
  const refused = await keygen(dir.path, [...args, "--private-key", "key.asc"]);
  assert.equal(refused.status, 2, "an existing key behind a link is refused without --force");
  assert.equal(await Deno.readTextFile(`${dir.path}/dotfiles/key.asc`), "old private key");

  const r = await keygen(dir.path, [...args, "--private-key", "key.asc", "--force"]);
  assert.equal(r.status, 0, r.err);
  for (const link of ["key.asc", "pub.asc"]) {
    assert.ok((await Deno.lstat(`${dir.path}/${link}`)).isSymlink, `${link} stays a link`);
  }
  await readPrivateKey(await Deno.readTextFile(`${dir.path}/dotfiles/key.asc`));
  assert.equal((await Deno.stat(`${dir.path}/dotfiles/key.asc`)).mode! & 0o777, 0o600);
  const [publicKey] = await readPublicKeys(await Deno.readTextFile(`${dir.path}/dotfiles/pub.asc`));
  assert.equal(publicKey?.getFingerprint().toUpperCase(), r.out.trim());
  assert.deepEqual(await namesIn(`${dir.path}/dotfiles`), ["key.asc", "pub.asc"]);
});

Deno.test("keygen in a read-only directory fails clearly (exit 1) and loses nothing", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/keys`);
  await Deno.writeTextFile(`${dir.path}/keys/old.key.asc`, "old private key");
  await using _ = await readOnlyDir(`${dir.path}/keys`);
  const r = await keygen(dir.path, [
    ...["--name", "X", "--type", "ed25519", "--public-key", "new.pub.asc"],
    ...["--private-key", "keys/old.key.asc", "--force"],
  ]);
  assert.equal(r.status, 1, r.err);
  assert.match(
    r.err,
    /Cannot write ".*keys\/old\.key\.asc": its directory ".*keys" cannot be written/,
  );
  assert.equal(await Deno.readTextFile(`${dir.path}/keys/old.key.asc`), "old private key");
  assert.deepEqual(await namesIn(`${dir.path}/keys`), ["old.key.asc"]);
  assert.deepEqual(await namesIn(dir.path), ["keys"], "the public key is not written either");
});
