/**
 * `toolkit image-security vault store` in-process against the Key Protect stand-in
 * (`tests/fakes/key_protect_server.ts`): what it refuses, its aliases, `--replace`. Storing and
 * fetching together are tested in `vault_fetch_test.ts`.
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
import { parse as parseYaml } from "yaml";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";

const encoder = new TextEncoder();

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
      name: "UsageError",
      message: 'Cannot store "pub.asc": it holds an OpenPGP public key, not a private key; ' +
        "export the private key with: gpg --export-secret-keys --armor <fingerprint>",
    },
  );
  await assert.rejects(
    runVaultStore(
      vaultArgs("https://us-south.kms.cloud.ibm.com", { name: "signing", key: "missing.asc" }),
      context({ cwd: dir.path }),
    ),
    { name: "UsageError", message: 'Cannot read key file "missing.asc": no such file' },
  );
});

Deno.test("runVaultStore() gives the key its --alias values and prints its id and aliases", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await Deno.writeFile(join(dir.path, "key.asc"), encoder.encode("material"));
  const store = context({ cwd: dir.path });
  await runVaultStore(
    vaultArgs(kp.url, {
      name: "Image signing key",
      key: "key.asc",
      alias: ["image-signing", "prod-signer"],
      output: "yaml",
    }),
    store,
  );
  const [key] = kp.keys();
  assert.deepEqual(key?.aliases, ["image-signing", "prod-signer"]);
  assert.deepEqual(parseYaml(store.io.out()), {
    id: key?.id,
    name: "Image signing key",
    aliases: ["image-signing", "prod-signer"],
    vault: `${kp.url} (instance ${INSTANCE})`,
  });
  for (const ref of ["prod-signer", "Image signing key"]) {
    const fetch = context({ cwd: dir.path });
    await runVaultFetch(vaultArgs(kp.url, { name: ref, key: `${ref}.out` }), fetch);
    assert.equal(await Deno.readTextFile(join(dir.path, `${ref}.out`)), "material");
  }
});

Deno.test("runVaultStore() --replace asks on a terminal what happens to the old key", async () => {
  await using dir = await tempDir();
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await storeSigningKey(dir.path, kp.url);
  await Deno.writeFile(join(dir.path, "new.asc"), encoder.encode("new material"));
  const store = context({ cwd: dir.path, answers: ["keep"] });
  await runVaultStore(
    vaultArgs(kp.url, { name: "signing", key: "new.asc", replace: true }),
    store,
  );
  assert.match(store.io.err(), /In the way: [0-9a-f-]{36} \(name "signing", aliases signing;/);
  assert.match(store.io.err(), /Replaced key .*: kept/);
  const [old, current] = kp.keys();
  assert.equal(old?.state, 1);
  assert.deepEqual(old?.aliases, []);
  assert.deepEqual(current?.aliases, ["signing"]);
  // The alias names the new key; the name is now shared, and says so.
  const byAlias = context({ cwd: dir.path });
  await runVaultFetch(vaultArgs(kp.url, { name: "signing", key: "a.out" }), byAlias);
  assert.equal(await Deno.readTextFile(join(dir.path, "a.out")), "new material");
});
