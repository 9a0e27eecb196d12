import assert from "node:assert/strict";
import * as nodeCrypto from "node:crypto";
import { InvalidKeyError } from "../signature/mod.ts";
import { generateKeyPair } from "../signing/mod.ts";
import { parseAttestationKeys } from "./attestation_keys.ts";

const pem = nodeCrypto.generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey
  .export({ type: "spki", format: "pem" }).toString();
const gpg = await generateKeyPair({ name: "Builder", email: "builder@example.com" });

Deno.test("an attestation key Secret holds PEM keys, OpenPGP keys, or both", async () => {
  const onlyPem = await parseAttestationKeys(pem, {});
  assert.equal(onlyPem.pem?.keys.length, 1);
  assert.equal(onlyPem.pgp, undefined);
  const onlyPgp = await parseAttestationKeys(gpg.publicKeyArmored, {});
  assert.equal(onlyPgp.pem, undefined);
  assert.equal(onlyPgp.pgp?.keys.length, 1);
  const both = await parseAttestationKeys(`${gpg.publicKeyArmored}\n${pem}`, {});
  assert.equal(both.pem?.keys.length, 1);
  assert.equal(both.pgp?.keys.length, 1);
  assert.equal(both.id, `${onlyPem.id.split("/")[0]}/${onlyPgp.id.split("/")[1]}`);
  const reversed = await parseAttestationKeys(`${pem}\n${gpg.publicKeyArmored}`, {});
  assert.equal(reversed.id, both.id);
  await assert.rejects(
    parseAttestationKeys("no keys here", {}),
    (e: unknown) => e instanceof InvalidKeyError && /neither a PEM PUBLIC KEY nor/.test(e.message),
  );
});
