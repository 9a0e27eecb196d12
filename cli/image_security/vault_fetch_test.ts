/**
 * `toolkit image-security vault fetch` in-process against the Key Protect stand-in
 * (`tests/fakes/key_protect_server.ts`), most tests storing the key first with `vault store`,
 * whose own tests are `vault_store_test.ts`.
 */
import assert from "node:assert/strict";
import {
  context,
  INSTANCE,
  runVaultFetch,
  runVaultStore,
  storeSigningKey,
  tempDir,
  TOKEN,
  vaultArgs,
} from "../../tests/fakes/vault_commands.ts";
import { join } from "node:path";
import type { BufferedIO } from "../io.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { KeyInUseError } from "../../lib/vault/mod.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { generateCosignKeyPair, readCosignPrivateKey } from "../../lib/signing/cosign_keys.ts";
import { namesIn, readOnlyDir } from "../../tests/env/files.ts";

const API_KEY = "test-api-key-0123456789";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

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
  const [id, aliases] = out(store.io).split(" ");
  assert.match(id!, /^[0-9a-f-]{36}$/);
  assert.equal(aliases, "signing", "the name is the alias by default");
  assert.match(
    store.io.err(),
    /Storing "key\.asc" \(\d+ bytes\) as key "signing" with alias signing in http/,
  );
  assert.match(store.io.err(), new RegExp(`Stored key "signing" with id ${id} and alias signing`));

  for (const [ref, file] of [["signing", "by-alias.asc"], [id!, "by-id.asc"]] as const) {
    const fetch = context({ cwd: dir.path });
    assert.equal(await runVaultFetch(vaultArgs(kp.url, { name: ref, key: file }), fetch), 0);
    assert.equal(fetch.io.out(), "");
    assert.deepEqual(await Deno.readFile(join(dir.path, file)), material);
    assert.equal((await Deno.stat(join(dir.path, file))).mode! & 0o777, 0o600);
    assert.match(fetch.io.err(), new RegExp(`Wrote key .*${id}.* \\(mode 0600\\)`));
    assert.match(
      fetch.io.err(),
      new RegExp(
        `Using key ${id} \\(name "signing", aliases signing; active, created .*\\), found by ${
          ref === id ? "id" : "alias"
        }`,
      ),
    );
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

  // A second key with the same name is refused, and says how to rotate.
  await Deno.writeFile(join(dir.path, "key2.asc"), encoder.encode("material 2"));
  await assert.rejects(
    runVaultStore({ ...args, name: "signing", key: "key2.asc" }, context({ cwd: dir.path })),
    (error: unknown) => {
      // A usage error (exit 2): --replace on the command line is the answer.
      assert.ok(error instanceof UsageError && error.cause instanceof KeyInUseError);
      assert.match(error.message, /^Cannot store key "signing": another key holds its name or/);
      assert.match(error.message, /has the name and holds the alias signing/);
      assert.match(error.message, /To rotate, pass --replace with --old-key delete .* keep/);
      return true;
    },
  );
  const again = context({ cwd: dir.path });
  await runVaultStore(
    { ...args, name: "signing", key: "key2.asc", replace: true, oldKey: "delete", output: "json" },
    again,
  );
  const rotated = JSON.parse(again.io.out());
  assert.deepEqual(rotated.aliases, ["signing"]);
  assert.equal(rotated.replaced[0].id, out(store.io).split(" ")[0]);
  assert.equal(rotated.replaced[0].action, "deleted");
  assert.match(again.io.err(), /Replaced key .*: deleted/);
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
      name: "KeyNotFoundError",
      status: 404,
      code: "KEY_NOT_FOUND_ERR",
      message:
        `Cannot fetch key "nope": no key has this alias or name in instance ${INSTANCE} (KEY_NOT_FOUND_ERR, 404)`,
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
      name: "KeyNotActiveError",
      message: new RegExp(
        '^Cannot fetch key "root": no active standard key has this alias or name; .*\\n' +
          '  [0-9a-f-]{36} \\(name "root"; active root key, created .*\\): it is a root key, ' +
          "whose material never leaves the vault$",
      ),
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

Deno.test("the vault commands turn missing or bad settings into usage errors", async () => {
  const ctx = context({ cwd: Deno.cwd() });
  const url = "https://us-south.kms.cloud.ibm.com";
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { name: "sk", key: "k", instanceId: INSTANCE, token: TOKEN },
      /Missing the vault URL: .*KMS_URL/,
    ],
    [
      { name: "sk", key: "k", kmsUrl: url, token: TOKEN },
      /Missing the vault's instance id: .*KMS_INSTANCE_ID/,
    ],
    [
      { name: "sk", key: "k", kmsUrl: url, instanceId: INSTANCE },
      /Missing credentials: .*KMS_TOKEN.*IBMCLOUD_API_KEY/,
    ],
    [
      {
        name: "sk",
        key: "k",
        kmsUrl: "http://kms.example.com",
        instanceId: INSTANCE,
        token: TOKEN,
      },
      /must be an https URL/,
    ],
    [
      { name: "sk", key: "k", kmsUrl: "not a url", instanceId: INSTANCE, token: TOKEN },
      /is not a URL/,
    ],
    [
      { name: "sk", key: "k", kmsUrl: url, instanceId: "my-instance", token: TOKEN },
      /neither an instance id/,
    ],
    [{
      name: "sk",
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
    [
      { name: "my key", key: "k", kmsUrl: url, instanceId: INSTANCE, token: TOKEN },
      /Cannot use the name "my key" as the key's alias \(an alias is 2 to 90 letters.*--alias/,
    ],
    [
      { name: "sk", key: "k", alias: ["keys"], kmsUrl: url, instanceId: INSTANCE, token: TOKEN },
      /Cannot use --alias "keys": "keys" is a word Key Protect reserves/,
    ],
    [
      {
        name: "sk",
        key: "k",
        alias: ["a1", "a2", "a3", "a4", "a5", "a6"],
        kmsUrl: url,
        instanceId: INSTANCE,
        token: TOKEN,
      },
      /Too many --alias values: a key has at most 5/,
    ],
    [
      { name: "sk", key: "k", oldKey: "keep", kmsUrl: url, instanceId: INSTANCE, token: TOKEN },
      /--old-key goes with --replace/,
    ],
    [
      { name: "sk", key: "k", replace: true, kmsUrl: url, instanceId: INSTANCE, token: TOKEN },
      /--replace needs --old-key delete .* or --old-key keep/,
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
    runVaultStore({ name: "sk", kmsUrl: url, instanceId: INSTANCE, token: TOKEN }, ctx),
    { name: "UsageError", message: /^Missing --key: the private key file to store/ },
  );
  await assert.rejects(
    runVaultFetch({ name: "sk", kmsUrl: url, instanceId: INSTANCE, token: TOKEN }, ctx),
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
    { name: "UsageError", message: /it is a cosign private key, not an OpenPGP key/ },
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

/** Creates a key through the raw API, as other tools would (no alias, root keys, …). */
async function rawKey(url: string, resource: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${url}/api/v2/keys`, {
    method: "POST",
    headers: { "authorization": `Bearer ${TOKEN}`, "bluemix-instance": INSTANCE },
    body: encoder.encode(JSON.stringify({
      metadata: { collectionType: "application/vnd.ibm.kms.key+json", collectionTotal: 1 },
      resources: [{ type: "application/vnd.ibm.kms.key+json", ...resource }],
    })),
  });
  assert.equal(response.status, 201);
  return (await response.json()).resources[0].id;
}

Deno.test("runVaultFetch() says which key it chose and refuses an ambiguous name, listing the candidates", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const first = await rawKey(kp.url, { name: "shared", extractable: true, payload: btoa("one") });
  const second = await rawKey(kp.url, { name: "shared", extractable: true, payload: btoa("two") });
  await assert.rejects(
    runVaultFetch(vaultArgs(kp.url, { name: "shared", key: "k" }), context({ cwd: dir.path })),
    (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal(error.name, "AmbiguousKeyError");
      assert.match(
        error.message,
        new RegExp(
          `^Cannot fetch key "shared": 2 active keys have this name; fetch one by id or alias:\\n` +
            `  ${first} \\(name "shared"; active, created .*\\)\\n  ${second} \\(name "shared"; `,
        ),
      );
      return true;
    },
  );
  const byId = context({ cwd: dir.path });
  await runVaultFetch(vaultArgs(kp.url, { name: second, key: "k", output: "json" }), byId);
  assert.equal(await Deno.readTextFile(join(dir.path, "k")), "two");
  assert.match(
    byId.io.err(),
    new RegExp(`Using key ${second} \\(name "shared"; .*\\), found by id`),
  );
  assert.deepEqual(JSON.parse(byId.io.out()), {
    id: second,
    name: "shared",
    foundBy: "id",
    file: "k",
  });
});

Deno.test("runVaultFetch() by name passes over suspended, deactivated and deleted newer keys", async () => {
  await using dir = await tempDir();
  let now = Date.UTC(2026, 0, 1);
  await using kp = await startKeyProtectServer({
    instanceId: INSTANCE,
    tokens: [TOKEN],
    now: () => now,
  });
  const active = await rawKey(kp.url, { name: "signing", extractable: true, payload: btoa("v1") });
  now += 1000;
  const suspended = await rawKey(kp.url, { name: "signing", extractable: false });
  const disabled = await fetch(`${kp.url}/api/v2/keys/${suspended}/actions/disable`, {
    method: "POST",
    headers: { "authorization": `Bearer ${TOKEN}`, "bluemix-instance": INSTANCE },
  });
  assert.equal(disabled.status, 204);
  now += 1000;
  await rawKey(kp.url, {
    name: "signing",
    extractable: true,
    payload: btoa("expired"),
    expirationDate: new Date(now + 1000).toISOString(),
  });
  now += 60_000;
  assert.deepEqual(kp.keys().map((k) => k.state), [1, 2, 3]);

  const fetch1 = context({ cwd: dir.path });
  await runVaultFetch(vaultArgs(kp.url, { name: "signing", key: "k" }), fetch1);
  assert.equal(await Deno.readTextFile(join(dir.path, "k")), "v1");
  assert.match(fetch1.io.err(), new RegExp(`Using key ${active} .*, found by name`));
  const listed = kp.requests.filter((r) => r.path === "/api/v2/keys" && r.method === "GET");
  assert.equal(new URLSearchParams(listed[0]!.search).get("state"), "1");
});

Deno.test("runVaultFetch() rides out a 429/503 burst, and beyond the budget names the correlation id", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await storeSigningKey(dir.path, kp.url);
  kp.failNext(
    { status: 429, retryAfter: "3" },
    { status: 503 },
    { status: 503 },
    { status: 502, method: "GET", path: `/api/v2/keys/${kp.keys()[0]!.id}` },
  );
  const ok = context({ cwd: dir.path });
  assert.equal(await runVaultFetch(vaultArgs(kp.url, { name: "signing", key: "k" }), ok), 0);
  assert.equal(await Deno.readTextFile(join(dir.path, "k")), "secret material");
  const retries = ok.io.err().split("\n").filter((l) => l.includes("retrying in"));
  assert.equal(retries.length, 4, ok.io.err());
  assert.match(
    retries[0]!,
    /^Key Protect GET \/api\/v2\/keys\/signing\/metadata: 429 in \d+ ms \[correlation-id: [0-9a-f-]{36}\]; retrying in 3 s \(attempt 2\)$/,
  );
  assert.deepEqual(ok.clock.slept.slice(0, 1), [3000]);

  kp.failNext(...Array.from({ length: 5 }, () => ({ status: 503 })));
  const failed = context({ cwd: dir.path });
  const error = await runVaultFetch(
    vaultArgs(kp.url, { name: "signing", key: "k2" }),
    failed,
  ).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof Error);
  const sent = kp.requests.at(-1)!.correlationId!;
  assert.equal(
    error.message,
    `Cannot read key "signing": 503 Service Unavailable: injected by the test ` +
      `(after 5 attempts in ${
        (failed.clock.slept.reduce((a, b) => a + b, 0) / 1000).toFixed(1)
      } s) ` +
      `[correlation-id: ${sent}]`,
  );
  await assert.rejects(Deno.stat(join(dir.path, "k2")), Deno.errors.NotFound);
});

Deno.test("-v tells each vault and IAM request with its correlation id", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  await Deno.writeFile(join(dir.path, "key.asc"), encoder.encode("material"));
  const store = context({ cwd: dir.path });
  await runVaultStore({
    kmsUrl: kp.url,
    instanceId: INSTANCE,
    apiKey: API_KEY,
    iamUrl: kp.iamUrl,
    name: "signing",
    key: "key.asc",
    verbose: true,
  }, store);
  const lines = store.io.err().split("\n").filter((l) => / in \d+ ms/.test(l));
  assert.match(lines[0]!, /^IAM POST \/identity\/token: 200 in \d+ ms$/);
  const vaultLines = lines.slice(1);
  assert.deepEqual(
    vaultLines.map((l) => l.replace(/ in \d+ ms.*/, "")),
    [
      "Key Protect GET /api/v2/keys?limit=200&offset=0&state=1&extractable=true: 200",
      "Key Protect GET /api/v2/keys/signing/metadata: 404",
      "Key Protect POST /api/v2/keys: 201",
    ],
  );
  const sent = kp.requests.filter((r) => r.path.startsWith("/api/")).map((r) => r.correlationId);
  vaultLines.forEach((line, i) => assert.ok(line.endsWith(`[correlation-id: ${sent[i]}]`), line));
  assert.ok(!store.io.err().includes(API_KEY));
});

Deno.test("--key-ring stores into the ring and fetches only from it; an unknown ring is refused", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({
    instanceId: INSTANCE,
    tokens: [TOKEN],
    keyRings: ["signing-keys"],
  });
  await Deno.writeFile(join(dir.path, "key.asc"), encoder.encode("material"));
  const store = context({ cwd: dir.path });
  await runVaultStore(
    vaultArgs(kp.url, { name: "signing", key: "key.asc", keyRing: "signing-keys", output: "json" }),
    store,
  );
  assert.equal(JSON.parse(store.io.out()).keyRing, "signing-keys");
  assert.equal(kp.keys()[0]!.keyRingID, "signing-keys");
  assert.ok(kp.requests.every((r) => r.keyRing === "signing-keys"));

  await assert.rejects(
    runVaultFetch(
      vaultArgs(kp.url, { name: "signing", key: "k", keyRing: "default" }),
      context({ cwd: dir.path }),
    ),
    { name: "KeyNotFoundError", message: /in key ring "default" of instance/ },
  );
  const fetched = context({ cwd: dir.path, env: { KMS_KEY_RING: "signing-keys" } });
  await runVaultFetch(vaultArgs(kp.url, { name: "signing", key: "k" }), fetched);
  assert.match(
    fetched.io.err(),
    /from http:\/\/127\.0\.0\.1:\d+ \(instance .*, key ring signing-keys\)/,
  );
  await assert.rejects(
    runVaultFetch(
      vaultArgs(kp.url, { name: "signing", key: "k2", keyRing: "nope" }),
      context({ cwd: dir.path }),
    ),
    { status: 404, code: "KEY_RING_NOT_FOUND_ERR" },
  );
});
