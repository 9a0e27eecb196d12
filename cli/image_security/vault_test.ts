import assert from "node:assert/strict";
import { join } from "node:path";
import * as vault from "./vault.ts";
import { bindOptions } from "../command.ts";
import { VAULT_FETCH, VAULT_STORE } from "./vault_command.ts";
import { type BufferedIO, bufferedIO } from "../io.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { generateCosignKeyPair, readCosignPrivateKey } from "../../lib/signature/cosign_keys.ts";
import { namesIn, readOnlyDir } from "../../tests/env/files.ts";
import { commandContext } from "../context.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const TOKEN = "static-test-token-1234";
const API_KEY = "test-api-key-0123456789";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const runVaultStore = bindOptions(VAULT_STORE, vault.runVaultStore);
const runVaultFetch = bindOptions(VAULT_FETCH, vault.runVaultFetch);

function context(options: { cwd: string; env?: Record<string, string> }) {
  const io = bufferedIO({ cwd: options.cwd, ...(options.env ? { env: options.env } : {}) });
  return commandContext(io);
}

/** A temporary directory removed (with anything in it) when disposed. */
async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "vault_test_" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

/** Stores "secret material" as key "signing" (from key.asc in `dir`). */
async function storeSigningKey(dir: string, url: string): Promise<void> {
  await Deno.writeFile(join(dir, "key.asc"), encoder.encode("secret material"));
  await runVaultStore(vaultArgs(url, { name: "signing", key: "key.asc" }), context({ cwd: dir }));
}

async function gpg(home: string, args: string[], stdin?: Uint8Array) {
  const child = new Deno.Command("gpg", {
    args: ["--homedir", home, "--batch", ...args],
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const output = await child.output();
  if (!output.success) throw new Error(`gpg ${args.join(" ")}: ${decoder.decode(output.stderr)}`);
  return decoder.decode(output.stdout);
}

/** A fresh GNUPGHOME whose gpg-agent is stopped when disposed. */
async function gnupgHome(
  parent: string,
  name: string,
): Promise<AsyncDisposable & { path: string }> {
  const path = join(parent, name);
  await Deno.mkdir(path, { mode: 0o700 });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await new Deno.Command("gpgconf", {
        args: ["--homedir", path, "--kill", "all"],
        stdout: "null",
        stderr: "null",
      }).output();
    },
  };
}

function secretFingerprints(colons: string): string[] {
  const lines = colons.split("\n");
  const result: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.startsWith("sec:")) {
      const fpr = lines.slice(i + 1).find((l) => l.startsWith("fpr:"));
      if (fpr) result.push(fpr.split(":")[9]!);
    }
  }
  return result;
}

function vaultArgs(url: string, extra: Record<string, unknown>) {
  return { kmsUrl: url, instanceId: INSTANCE, token: TOKEN, ...extra };
}

function out(io: BufferedIO): string {
  return io.out().trim();
}

Deno.test("runVaultStore() prints the new id and runVaultFetch() writes the key with mode 0600", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const material = encoder.encode(
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlFgEZtest\n-----END PGP PRIVATE KEY BLOCK-----\n",
  );
  await Deno.writeFile(join(dir.path, "key.asc"), material);

  const store = context({ cwd: dir.path });
  assert.equal(
    await runVaultStore(vaultArgs(kp.url, { name: "signing", key: "key.asc" }), store),
    0,
  );
  const id = out(store.io);
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.match(store.io.err(), /Storing "key\.asc" \(\d+ bytes\) as key "signing"/);
  assert.match(store.io.err(), new RegExp(`Stored key "signing" with id ${id}`));

  for (const [ref, file] of [["signing", "by-name.asc"], [id, "by-id.asc"]] as const) {
    const fetch = context({ cwd: dir.path });
    assert.equal(await runVaultFetch(vaultArgs(kp.url, { name: ref, key: file }), fetch), 0);
    assert.equal(fetch.io.out(), "");
    assert.deepEqual(await Deno.readFile(join(dir.path, file)), material);
    assert.equal((await Deno.stat(join(dir.path, file))).mode! & 0o777, 0o600);
    assert.match(fetch.io.err(), new RegExp(`Wrote key .*${id}.* \\(mode 0600\\)`));
  }
});

Deno.test("runVaultFetch() refuses to overwrite a file unless --force", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await storeSigningKey(dir.path, kp.url);
  const target = join(dir.path, "existing.asc");
  await Deno.writeFile(target, encoder.encode("keep me"), { mode: 0o644 });
  await Deno.chmod(target, 0o644);

  const requestsBefore = kp.requests.length;
  await assert.rejects(
    runVaultFetch(
      vaultArgs(kp.url, { name: "signing", key: "existing.asc" }),
      context({ cwd: dir.path }),
    ),
    (error: unknown) => {
      assert.ok(error instanceof ToolkitError);
      assert.equal(
        error.message,
        'Cannot write "existing.asc": the file exists; pass --force to replace it',
      );
      return true;
    },
  );
  assert.equal(kp.requests.length, requestsBefore, "the vault is not asked before the check");
  assert.equal(await Deno.readTextFile(target), "keep me");

  await runVaultFetch(
    vaultArgs(kp.url, { name: "signing", key: "existing.asc", force: true }),
    context({ cwd: dir.path }),
  );
  assert.equal(await Deno.readTextFile(target), "secret material");
  assert.equal((await Deno.stat(target)).mode! & 0o777, 0o600);
  const names = [];
  for await (const entry of Deno.readDir(dir.path)) names.push(entry.name);
  assert.deepEqual(names.sort(), ["existing.asc", "key.asc"], "no temporary file is left");
});

Deno.test("runVaultStore() and runVaultFetch() exchange --api-key for a token at --iam-url", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  await Deno.writeFile(join(dir.path, "key.asc"), encoder.encode("material"));
  const args = {
    kmsUrl: kp.url,
    instanceId: `crn:v1:bluemix:public:kms:us-south:a/0123456789abcdef:${INSTANCE}::`,
    apiKey: API_KEY,
    iamUrl: kp.iamUrl,
  };
  const store = context({ cwd: dir.path });
  await runVaultStore({ ...args, name: "signing", key: "key.asc" }, store);
  await runVaultFetch({ ...args, name: "signing", key: "out.asc" }, context({ cwd: dir.path }));
  assert.equal(await Deno.readTextFile(join(dir.path, "out.asc")), "material");
  assert.ok(kp.requests.some((r) => r.path === "/identity/token"));

  // A second key with the same name: the store warns, the fetch by name takes the newest.
  await Deno.writeFile(join(dir.path, "key2.asc"), encoder.encode("material 2"));
  const again = context({ cwd: dir.path });
  await runVaultStore({ ...args, name: "signing", key: "key2.asc" }, again);
  assert.match(
    again.io.err(),
    new RegExp(`warning: a key named "signing" already exists \\(id ${out(store.io)}\\)`),
  );
  await runVaultFetch({ ...args, name: "signing", key: "out2.asc" }, context({ cwd: dir.path }));
  assert.equal(await Deno.readTextFile(join(dir.path, "out2.asc")), "material 2");
});

Deno.test("runVaultFetch() --import puts a gpg secret key into GNUPGHOME and prints its fingerprint", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await using source = await gnupgHome(dir.path, "source");
  await using target = await gnupgHome(dir.path, "target");
  await gpg(source.path, [
    "--passphrase",
    "",
    "--quick-gen-key",
    "Vault Test <vault@example.com>",
    "ed25519",
    "sign",
    "never",
  ]);
  const [fingerprint] = secretFingerprints(
    await gpg(source.path, ["--with-colons", "--list-secret-keys"]),
  );
  assert.ok(fingerprint);
  const armoured = await gpg(source.path, ["--armor", "--export-secret-keys", fingerprint]);
  await Deno.writeTextFile(join(dir.path, "signing.asc"), armoured);

  await runVaultStore(
    vaultArgs(kp.url, { name: "signing", key: "signing.asc" }),
    context({ cwd: dir.path }),
  );
  const fetch = context({ cwd: dir.path, env: { GNUPGHOME: target.path } });
  assert.equal(await runVaultFetch(vaultArgs(kp.url, { name: "signing", import: true }), fetch), 0);

  assert.equal(out(fetch.io), fingerprint);
  assert.match(fetch.io.err(), /secret key imported/);
  assert.match(fetch.io.err(), new RegExp(`skopeo copy --sign-by ${fingerprint}`));
  const imported = secretFingerprints(
    await gpg(target.path, ["--with-colons", "--list-secret-keys"]),
  );
  assert.deepEqual(imported, [fingerprint]);
});

Deno.test("runVaultFetch() --import fails clearly when the stored key is not an OpenPGP key", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await using target = await gnupgHome(dir.path, "target");
  await Deno.writeFile(join(dir.path, "junk.bin"), encoder.encode("this is not a key"));
  await runVaultStore(
    vaultArgs(kp.url, { name: "junk", key: "junk.bin" }),
    context({ cwd: dir.path }),
  );
  const fetch = context({ cwd: dir.path, env: { GNUPGHOME: target.path } });
  await assert.rejects(runVaultFetch(vaultArgs(kp.url, { name: "junk", import: true }), fetch), {
    name: "ToolkitError",
    message:
      /^Cannot import key "junk" into gpg: gpg exited with status 2: .*no valid OpenPGP data found/,
  });
  assert.equal(fetch.io.out(), "");
});

Deno.test("runVaultFetch() reports a key that does not exist with the vault's text", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await assert.rejects(
    runVaultFetch(vaultArgs(kp.url, { name: "nope", key: "k.asc" }), context({ cwd: dir.path })),
    {
      name: "VaultError",
      status: 404,
      message: 'Cannot fetch key "nope": no key has this name or alias: 404 Not Found: Key could ' +
        "not be retrieved: Please see 'reasons' for more details (KEY_NOT_FOUND_ERR) " +
        "[KEY_NOT_FOUND_ERR: Key does not exist]",
    },
  );
  await assert.rejects(Deno.stat(join(dir.path, "k.asc")), Deno.errors.NotFound);
});

Deno.test("runVaultFetch() explains that a root key cannot be fetched", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const created = await fetch(`${kp.url}/api/v2/keys`, {
    method: "POST",
    headers: {
      "authorization": `Bearer ${TOKEN}`,
      "bluemix-instance": INSTANCE,
      "content-type": "application/vnd.ibm.kms.key+json",
      "prefer": "return=representation",
    },
    body: JSON.stringify({
      metadata: { collectionType: "application/vnd.ibm.kms.key+json", collectionTotal: 1 },
      resources: [{ type: "application/vnd.ibm.kms.key+json", name: "root", extractable: false }],
    }),
  });
  assert.equal(created.status, 201);
  await created.body?.cancel();
  await assert.rejects(
    runVaultFetch(vaultArgs(kp.url, { name: "root", key: "root.key" }), context({ cwd: dir.path })),
    {
      name: "ToolkitError",
      message: 'Cannot fetch key "root": it is a root key, whose material never leaves the vault',
    },
  );
});

Deno.test("the vault commands report rejected credentials without repeating them", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  await Deno.writeFile(join(dir.path, "key.asc"), encoder.encode("material"));
  const badKey = {
    kmsUrl: kp.url,
    instanceId: INSTANCE,
    apiKey: "wrong-api-key-98765",
    iamUrl: kp.iamUrl,
  };
  await assert.rejects(
    runVaultStore({ ...badKey, name: "signing", key: "key.asc" }, context({ cwd: dir.path })),
    (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(
        error.message,
        /400 Bad Request: Provided API key could not be found\. \(BXNIM0415E\)/,
      );
      assert.ok(!error.message.includes("wrong-api-key-98765"));
      return true;
    },
  );
  await assert.rejects(
    runVaultFetch(
      vaultArgs(kp.url, { name: "signing", key: "k.asc", token: "Bearer expired-token-1" }),
      context({ cwd: dir.path }),
    ),
    (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /401 Unauthorized: The user does not have access/);
      assert.ok(!error.message.includes("expired-token-1"));
      return true;
    },
  );
});

Deno.test("runVaultStore() refuses a public key file", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    join(dir.path, "pub.asc"),
    "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ\n-----END PGP PUBLIC KEY BLOCK-----\n",
  );
  await assert.rejects(
    runVaultStore(
      vaultArgs("https://us-south.kms.cloud.ibm.com", { name: "signing", key: "pub.asc" }),
      context({ cwd: dir.path }),
    ),
    {
      name: "ToolkitError",
      message: 'Cannot store "pub.asc": it holds an OpenPGP public key, not a private key; ' +
        "export the private key with: gpg --export-secret-keys --armor <fingerprint>",
    },
  );
  await assert.rejects(
    runVaultStore(
      vaultArgs("https://us-south.kms.cloud.ibm.com", { name: "signing", key: "missing.asc" }),
      context({ cwd: dir.path }),
    ),
    { name: "ToolkitError", message: 'Cannot read key file "missing.asc": no such file' },
  );
});

Deno.test("the vault commands turn missing or bad settings into usage errors", async () => {
  const ctx = context({ cwd: Deno.cwd() });
  const url = "https://us-south.kms.cloud.ibm.com";
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { name: "s", key: "k", instanceId: INSTANCE, token: TOKEN },
      /Missing the vault URL: .*KMS_URL/,
    ],
    [
      { name: "s", key: "k", kmsUrl: url, token: TOKEN },
      /Missing the vault's instance id: .*KMS_INSTANCE_ID/,
    ],
    [
      { name: "s", key: "k", kmsUrl: url, instanceId: INSTANCE },
      /Missing credentials: .*KMS_TOKEN.*IBMCLOUD_API_KEY/,
    ],
    [
      { name: "s", key: "k", kmsUrl: "http://kms.example.com", instanceId: INSTANCE, token: TOKEN },
      /must be an https URL/,
    ],
    [
      { name: "s", key: "k", kmsUrl: "not a url", instanceId: INSTANCE, token: TOKEN },
      /is not a URL/,
    ],
    [
      { name: "s", key: "k", kmsUrl: url, instanceId: "my-instance", token: TOKEN },
      /neither an instance id/,
    ],
    [{
      name: "s",
      key: "k",
      kmsUrl: url,
      instanceId: INSTANCE,
      apiKey: API_KEY,
      iamUrl: "http://iam.example.com",
    }, /--iam-url .* must be an https URL/],
    [
      { name: " ", key: "k", kmsUrl: url, instanceId: INSTANCE, token: TOKEN },
      /Missing the key's name/,
    ],
  ];
  for (const [args, message] of cases) {
    await assert.rejects(runVaultStore(args, ctx), (error: unknown) => {
      assert.ok(error instanceof UsageError, String(error));
      assert.match(error.message, message);
      return true;
    });
  }
  await assert.rejects(
    runVaultStore({ name: "s", kmsUrl: url, instanceId: INSTANCE, token: TOKEN }, ctx),
    { name: "UsageError", message: /^Missing --key: the private key file to store/ },
  );
  await assert.rejects(
    runVaultFetch({ name: "s", kmsUrl: url, instanceId: INSTANCE, token: TOKEN }, ctx),
    { name: "UsageError", message: /^Choose where the key goes: --key FILE .* --import/ },
  );
  assert.equal(ctx.io.out(), "");
});

Deno.test("the vault keeps a cosign key: stored encrypted as it is, fetched to a file, never into gpg", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const pair = await generateCosignKeyPair({ password: "pw" });
  await Deno.writeTextFile(join(dir.path, "cosign.key"), pair.privateKeyPem);
  const store = context({ cwd: dir.path });
  assert.equal(
    await runVaultStore(vaultArgs(kp.url, { name: "cosign", key: "cosign.key" }), store),
    0,
  );

  const fetch = context({ cwd: dir.path });
  assert.equal(
    await runVaultFetch(vaultArgs(kp.url, { name: "cosign", key: "fetched.key" }), fetch),
    0,
  );
  assert.match(fetch.io.err(), /Wrote cosign key "cosign" .* to fetched\.key \(mode 0600\)/);
  const fetched = await Deno.readTextFile(join(dir.path, "fetched.key"));
  assert.equal(fetched, pair.privateKeyPem);
  const signer = await readCosignPrivateKey(fetched, "pw");
  assert.equal(signer.publicKeyPem, pair.publicKeyPem);

  const imported = context({ cwd: dir.path, env: { GNUPGHOME: join(dir.path, "none") } });
  await assert.rejects(
    runVaultFetch(vaultArgs(kp.url, { name: "cosign", import: true }), imported),
    { name: "ToolkitError", message: /it is a cosign private key, not an OpenPGP key/ },
  );

  await Deno.writeTextFile(join(dir.path, "cosign.pub"), pair.publicKeyPem);
  await assert.rejects(
    runVaultStore(
      vaultArgs(kp.url, { name: "pub", key: "cosign.pub" }),
      context({ cwd: dir.path }),
    ),
    { message: /it holds a PEM public key, not a private key/ },
  );
});

Deno.test("runVaultFetch() --force writes through a symbolic link, and fails clearly in a read-only directory", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await storeSigningKey(dir.path, kp.url);
  await Deno.mkdir(join(dir.path, "dotfiles"));
  await Deno.writeTextFile(join(dir.path, "dotfiles/signing.asc"), "old");
  await Deno.chmod(join(dir.path, "dotfiles/signing.asc"), 0o644);
  await Deno.symlink("dotfiles/signing.asc", join(dir.path, "signing.asc"));
  await runVaultFetch(
    vaultArgs(kp.url, { name: "signing", key: "signing.asc", force: true }),
    context({ cwd: dir.path }),
  );
  assert.ok((await Deno.lstat(join(dir.path, "signing.asc"))).isSymlink, "the link stays");
  assert.equal(await Deno.readTextFile(join(dir.path, "dotfiles/signing.asc")), "secret material");
  assert.equal((await Deno.stat(join(dir.path, "dotfiles/signing.asc"))).mode! & 0o777, 0o600);

  await Deno.writeTextFile(join(dir.path, "dotfiles/signing.asc"), "keep me");
  {
    await using _ = await readOnlyDir(join(dir.path, "dotfiles"));
    await assert.rejects(
      runVaultFetch(
        vaultArgs(kp.url, { name: "signing", key: "signing.asc", force: true }),
        context({ cwd: dir.path }),
      ),
      (error: unknown) => {
        assert.ok(error instanceof ToolkitError && !(error instanceof UsageError));
        assert.match(
          error.message,
          /^Cannot write "signing.asc": its directory ".*dotfiles" cannot/,
        );
        return true;
      },
    );
  }
  assert.equal(await Deno.readTextFile(join(dir.path, "dotfiles/signing.asc")), "keep me");
  assert.deepEqual(await namesIn(join(dir.path, "dotfiles")), ["signing.asc"]);
});
