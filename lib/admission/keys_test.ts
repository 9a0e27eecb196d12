import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import { generateKeyPair } from "../signing/mod.ts";
import { KeyNotAcceptedError } from "../signature/mod.ts";
import {
  oddNumberOfBits,
  pgpPublicKey,
  rsaKey,
  rsaSpkiPem,
} from "../../tests/fakes/hostile_keys.ts";
import { PolicyConfigError } from "./errors.ts";
import { filePolicySource } from "./file_source.ts";
import { KeyStore } from "./keys.ts";
import { SigstoreMaterialStore } from "./sigstore_material.ts";
import type { SecretData } from "./source.ts";
import type { TrustExpiry } from "./trust_expiry.ts";

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

Deno.test("KeyStore refuses a key too large to check, naming the Secret and the key, once per content", async () => {
  // The key of issue #33: a 24,576-bit modulus and exponent.
  const huge = oddNumberOfBits(24576);
  const hostile = await pgpPublicKey(rsaKey(huge, huge));
  const source = filePolicySource({
    policies: [],
    secrets: [keySecret("key", "a", hostile.armored), keySecret("copy", "b", hostile.armored)],
    serviceAccounts: [],
    namespaces: [],
  });
  const store = new KeyStore(source, { maxRsaBits: 4096, maxRsaBitsSetting: "--max-rsa-key-bits" });
  for (const [namespace, name] of [["a", "key"], ["b", "copy"], ["a", "key"]] as const) {
    const error = await store.keys(namespace, name).then(
      () => assert.fail("the hostile key was accepted"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PolicyConfigError);
    assert.equal(
      error.message,
      `Cannot use key Secret "${namespace}/${name}": key "${hostile.fingerprint}": RSA modulus of 24576 bits, more than 4096 (--max-rsa-key-bits)`,
    );
    assert.ok(error.cause instanceof KeyNotAcceptedError);
  }
  // The refusal is remembered by content: one entry for both Secrets.
  assert.equal(store.stats().entries, 1);
});

Deno.test("SigstoreMaterialStore refuses a PEM key too large to check, naming the Secret and the key", async () => {
  const huge = oddNumberOfBits(24576);
  const source = filePolicySource({
    policies: [],
    secrets: [keySecret("key", "a", rsaSpkiPem(huge, huge))],
    serviceAccounts: [],
    namespaces: [],
  });
  const store = new SigstoreMaterialStore(source, { maxRsaBitsSetting: "--max-rsa-key-bits" });
  await assert.rejects(
    store.sigstoreKeys("a", "key"),
    (error: unknown) => {
      assert.ok(error instanceof PolicyConfigError);
      assert.match(
        error.message,
        /^Cannot use key Secret "a\/key" \(keySecret of a sigstoreSigned requirement\): key "sha256:[0-9a-f]{64}" \(PEM block 1\): RSA modulus of 24576 bits, more than 4096 \(--max-rsa-key-bits\)$/,
      );
      return true;
    },
  );
});

Deno.test("KeyStore and SigstoreMaterialStore report when what they read expires", async () => {
  const created = new Date(Math.floor(Date.now() / 1000) * 1000 - 3600_000); // OpenPGP: seconds
  const expiring = await generateKeyPair({
    name: "short",
    keyExpirationTime: 10 * 86400,
    clock: () => created,
  });
  const lasting = await generateKeyPair({ name: "lasting", clock: () => created });
  const root = await Deno.readTextFile(
    new URL("../../tests/fixtures/sigstore/public_good_trusted_root.json", import.meta.url),
  );
  const source = filePolicySource({
    policies: [],
    secrets: [
      keySecret("key", "a", expiring.publicKeyArmored + lasting.publicKeyArmored),
      keySecret("key", "b", lasting.publicKeyArmored),
    ],
    configMaps: [{
      metadata: { name: "root", namespace: "sigstore", resourceVersion: "1" },
      data: { "trusted_root.json": root },
    }],
    serviceAccounts: [],
    namespaces: [],
  });
  const reports: TrustExpiry[] = [];
  const store = new KeyStore(source, {}, (e) => reports.push(e));
  await store.keys("a", "key");
  await store.keys("b", "key");
  await store.keys("a", "key");
  const expiresAt = created.getTime() + 10 * 86400_000;
  assert.deepEqual(reports, [
    { material: "key-secret", kind: "Secret", namespace: "a", name: "key", expiresAt },
    { material: "key-secret", kind: "Secret", namespace: "b", name: "key", expiresAt: undefined },
    { material: "key-secret", kind: "Secret", namespace: "a", name: "key", expiresAt },
  ], "the earliest key of a Secret, on every read (parsed once)");
  const material = new SigstoreMaterialStore(source, {}, (e) => reports.push(e));
  const parsed = await material.trustRoot({ kind: "ConfigMap", name: "root" }, "sigstore");
  assert.deepEqual(reports.at(-1), {
    material: "trust-root",
    kind: "ConfigMap",
    namespace: "sigstore",
    name: "root",
    expiresAt: parsed.validUntil?.getTime(),
  });
  assert.ok(parsed.validUntil !== undefined);
});
