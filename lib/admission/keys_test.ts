import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import { generateKeyPair } from "../signature/mod.ts";
import { filePolicySource } from "./file_source.ts";
import { KeyStore } from "./keys.ts";
import type { SecretData } from "./source.ts";

function keySecret(name: string, namespace: string, armored: string): SecretData {
  return { metadata: { name, namespace, resourceVersion: "1" }, data: { key: btoa(armored) } };
}

Deno.test("KeyStore identifies a key set by its exact material, revocations included", async () => {
  const created = new Date(Date.now() - 3600_000);
  const pair = await generateKeyPair({ name: "release", clock: () => created });
  const other = await generateKeyPair({ name: "other", clock: () => created });
  const { publicKey: revoked } = await openpgp.revokeKey({
    key: await openpgp.readPrivateKey({ armoredKey: pair.privateKeyArmored }),
    date: new Date(created.getTime() + 1000),
    format: "armored",
  });
  const source = filePolicySource({
    policies: [],
    secrets: [
      keySecret("key", "a", pair.publicKeyArmored),
      keySecret("key", "b", `the release key:\n${pair.publicKeyArmored}`),
      keySecret("key", "revoked", revoked),
      keySecret("key", "both", pair.publicKeyArmored + other.publicKeyArmored),
      keySecret("key", "both-reversed", other.publicKeyArmored + pair.publicKeyArmored),
    ],
    serviceAccounts: [],
    namespaces: [],
  });
  const store = new KeyStore(source);
  const [a, b, r, both, reversed] = await Promise.all(
    ["a", "b", "revoked", "both", "both-reversed"].map((ns) => store.keys(ns, "key")),
  );
  assert.match(a!.id, /^sha256:[0-9a-f]{64}$/);
  // The same material written differently is the same key set.
  assert.equal(b!.id, a!.id);
  assert.equal(reversed!.id, both!.id);
  // The revoked copy has the same fingerprint but is a different key set.
  assert.deepEqual(r!.fingerprints, a!.fingerprints);
  assert.notEqual(r!.id, a!.id);
  assert.notEqual(both!.id, a!.id);
});
