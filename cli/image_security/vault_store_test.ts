/**
 * `toolkit image-security vault store` in-process against the Key Protect stand-in
 * (`tests/fakes/key_protect_server.ts`): what it refuses, its aliases, `--replace`. Storing and
 * fetching together are tested in `vault_fetch_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import * as vault from "./vault.ts";
import { bindOptions } from "../command.ts";
import { VAULT_FETCH, VAULT_STORE } from "./vault_command.ts";
import { bufferedIO } from "../io.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { commandContext } from "../context.ts";
import { fakeClock } from "../../tests/fakes/clock.ts";
import { scriptedTerminal } from "../../tests/fakes/terminal.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const TOKEN = "static-test-token-1234";
const encoder = new TextEncoder();

const runVaultStore = bindOptions(VAULT_STORE, vault.runVaultStore);
const runVaultFetch = bindOptions(VAULT_FETCH, vault.runVaultFetch);

/** A command context with a fake clock (retries and waits take no time). */
function context(
  options: { cwd: string; env?: Record<string, string>; answers?: (string | boolean)[] },
) {
  const io = bufferedIO({
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
    interactive: options.answers !== undefined,
  });
  const clock = fakeClock();
  return {
    ...commandContext(io, "toolkit", {
      clock,
      ...(options.answers ? { terminal: scriptedTerminal(options.answers) } : {}),
    }),
    clock,
  };
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

function vaultArgs(url: string, extra: Record<string, unknown>) {
  return { kmsUrl: url, instanceId: INSTANCE, token: TOKEN, ...extra };
}

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
