import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { commandContext } from "../context.ts";
import { bufferedIO } from "../io.ts";
import { generateCosignKeyPair } from "../../lib/signing/cosign_keys.ts";
import { generateKeyPair, makeSigningKeyPair } from "../../lib/signing/mod.ts";
import { createKeyProtectClient } from "../../lib/vault/mod.ts";
import { signingEntries } from "../../lib/signing/mod.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { seedKey } from "../../tests/fakes/key_protect_seed.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const API_KEY = "sign-vault-test-api-key-0123456789";
const TOKEN = "sign-vault-test-token";

async function sign(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferedIO({ cwd, env });
  const status = await runCli(
    ["image-security", "sign", "127.0.0.1:1/demo/app:1", "--tls-verify=false", ...args],
    commandContext(io),
  );
  return { status, out: io.out(), err: io.err() };
}

Deno.test("sign refuses a format that does not fit the key, before reaching the registry", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cosign = await generateCosignKeyPair({ password: "pw" });
    await Deno.writeTextFile(`${dir}/cosign.key`, cosign.privateKeyPem);
    const gpg = await generateKeyPair({ name: "CI", type: "ed25519" });
    await Deno.writeTextFile(`${dir}/ci.key.asc`, gpg.privateKeyArmored);
    const env = { COSIGN_PASSWORD: "pw" };
    const cases: [string[], RegExp][] = [
      [
        ["--key", "cosign.key", "--format", "simple"],
        /Cannot make a simple signature with the cosign key/,
      ],
      [["--key", "ci.key.asc", "--format", "bundle"], /it is not a cosign private key/],
      [["--key", "ci.key.asc", "--format", "cosign"], /it is not a cosign private key/],
      [["--key", "cosign.key", "--identity", "x/y"], /Cannot use --identity with --format bundle/],
    ];
    for (const [args, message] of cases) {
      const r = await sign(dir, args, env);
      assert.equal(r.status, 2, r.err);
      assert.match(r.err, message);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sign with a cosign key needs its password, and names a wrong one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cosign = await generateCosignKeyPair({ password: "pw" });
    await Deno.writeTextFile(`${dir}/cosign.key`, cosign.privateKeyPem);
    const missing = await sign(dir, ["--key", "cosign.key"]);
    assert.equal(missing.status, 2);
    assert.match(missing.err, /needs its password: pass --passphrase-file or set COSIGN_PASSWORD/);
    const wrong = await sign(dir, ["--key", "cosign.key"], { COSIGN_PASSWORD: "nope" });
    assert.equal(wrong.status, 1);
    assert.match(wrong.err, /the password is wrong/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// A key of the vault (`--vault-key`, or the image-signing Secret mounted at
// --signing-secret-dir) against the Key Protect and IAM stand-in: every way it can be missing or
// wrong fails with exit 1 and what to do, before the registry is contacted, and no message holds
// the key or the API key. Signing itself, through the real registry, the webhook and the Tekton
// step, is in tests/tekton/sign_task_e2e_test.ts.
Deno.test("sign with a key of the vault fails clearly, before the registry, on every bad key", async () => {
  await using vault = await startKeyProtectServer({
    instanceId: INSTANCE,
    apiKeys: [API_KEY],
    tokens: [TOKEN],
  });
  const dir = await Deno.makeTempDir();
  try {
    const client = createKeyProtectClient({
      baseUrl: vault.url,
      instanceId: INSTANCE,
      token: () => Promise.resolve(TOKEN),
    });
    const pair = await makeSigningKeyPair({ format: "simple", keyType: "ed25519", name: "CI" });
    // A line of the armoured private key's body, which no output may hold.
    const armoured = new TextDecoder().decode(pair.privateKey).split("\n");
    const secretLine = armoured[Math.floor(armoured.length / 2)]!;
    const good = await client.createKey({
      name: "signer",
      payload: pair.privateKey,
      extractable: true,
    });
    const junk = await client.createKey({
      name: "junk",
      payload: new TextEncoder().encode("no key here"),
      extractable: true,
    });
    const root = await seedKey(vault, { instanceId: INSTANCE, token: TOKEN }, {
      name: "root",
      extractable: false,
    });
    const flags = ["--kms-url", vault.url, "--instance-id", INSTANCE, "--iam-url", vault.iamUrl];
    const env = { IBMCLOUD_API_KEY: API_KEY };

    // The image-signing Secret as the kubelet mounts it, and one naming another fingerprint.
    const entries = signingEntries({
      vaultUrl: vault.url,
      instanceId: INSTANCE,
      keyId: good.id,
      iamUrl: vault.iamUrl,
      apiKey: API_KEY,
      fingerprint: "0".repeat(40),
      format: "simple",
    });
    await Deno.mkdir(`${dir}/wrong-fingerprint`);
    for (const [name, value] of Object.entries(entries)) {
      await Deno.writeTextFile(`${dir}/wrong-fingerprint/${name}`, value);
    }
    await Deno.mkdir(`${dir}/partial`);
    await Deno.writeTextFile(`${dir}/partial/vault-url`, vault.url);
    await Deno.mkdir(`${dir}/empty`);

    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [[], env, 2, /Missing the signing key: pass --key FILE, or --vault-key NAME\|ID/],
      [["--vault-key", "signer", "--key", "x.asc"], env, 2, /Give one signing key/],
      [["--vault-key", "signer"], env, 2, /Missing the vault URL: pass --kms-url/],
      [["--vault-key", "signer", ...flags], {}, 2, /Missing credentials/],
      [
        ["--vault-key", "signer", "--kms-url", "http://127.0.0.1:1", "--instance-id", INSTANCE],
        { KMS_TOKEN: TOKEN },
        1,
        /cannot reach http:\/\/127\.0\.0\.1:1/,
      ],
      [
        ["--vault-key", "signer", ...flags],
        { IBMCLOUD_API_KEY: "wrong" },
        1,
        /IAM token .*400 Bad Request: Provided API key could not be found\. \(BXNIM0415E\)/,
      ],
      [
        ["--vault-key", "0d1c2b3a-4c1d-4e8f-9a7b-000000000000", ...flags],
        env,
        1,
        /Cannot fetch key "0d1c2b3a-4c1d-4e8f-9a7b-000000000000": no key has this id in instance/,
      ],
      [
        ["--vault-key", "nobody", ...flags],
        env,
        1,
        /Cannot fetch key "[a-z-]*": no key has this alias or name in instance/,
      ],
      [
        ["--vault-key", root, ...flags],
        env,
        1,
        /it is a root key, whose material never leaves the vault/,
      ],
      [
        ["--vault-key", junk.id, ...flags],
        env,
        1,
        /vault key "[0-9a-f-]+" is not a signing key: it holds neither an OpenPGP private key nor a cosign private key/,
      ],
      [
        ["--vault-key", "signer", "--format", "bundle", ...flags],
        env,
        2,
        /it is not a cosign private key/,
      ],
      [
        ["--signing-secret-dir", `${dir}/empty`, "--signing-secret", "dev/image-signing"],
        {},
        1,
        /No signing setup: Secret "dev\/image-signing" \(mounted at .*\/empty\) does not exist or is empty\. Run `toolkit image-security setup-signing`/,
      ],
      [
        ["--signing-secret-dir", `${dir}/nope`],
        {},
        1,
        /No signing setup: the image-signing Secret/,
      ],
      [
        ["--signing-secret-dir", `${dir}/partial`],
        {},
        1,
        /lacks "vault-instance-id", "vault-key-id", "apikey"/,
      ],
      [
        ["--signing-secret-dir", `${dir}/wrong-fingerprint`],
        {},
        1,
        new RegExp(`its fingerprint is ${pair.fingerprint}, but the signing setup names 0{40}`),
      ],
      [
        ["--vault-key", "signer", ...flags, "--digest", "latest"],
        env,
        2,
        /Cannot use --digest "latest"/,
      ],
      [["--vault-key", "signer", ...flags, "--digest", ""], env, 2, /the build reported none/],
    ];
    for (const [args, runEnv, status, message] of cases) {
      const r = await sign(dir, args, runEnv);
      assert.equal(r.status, status, `${args.join(" ")}\n${r.err}`);
      assert.match(r.err, message, `${args.join(" ")}\n${r.err}`);
      assert.doesNotMatch(r.err + r.out, new RegExp(API_KEY));
      assert.doesNotMatch(r.err + r.out, /-----BEGIN/);
      assert.ok(!(r.err + r.out).includes(secretLine), "a line of the private key was printed");
    }
    // A good key reaches the registry (here: nothing listens) without the key in any message.
    const r = await sign(dir, ["--vault-key", "signer", ...flags], env);
    assert.equal(r.status, 1);
    assert.match(r.err, /Reading key "signer" from .* into memory/);
    assert.match(r.err, /127\.0\.0\.1:1/);
    assert.doesNotMatch(r.err, /-----BEGIN/);
    assert.ok(!r.err.includes(secretLine));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
