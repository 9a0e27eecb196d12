import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import { decodeBase64 } from "../base64.ts";
import { generateCosignKeyPair, readCosignPrivateKey } from "./cosign_keys.ts";
import { generateKeyPair } from "./openpgp_key_generation.ts";
import { readPrivateKey } from "./private_key.ts";
import { dssePae } from "../signature/mod.ts";
import {
  type DsseEnvelopeJson,
  encodeEnvelope,
  envelopeSignsStatement,
  openPgpSignatureVerifies,
  signAttestationCosign,
  signAttestationOpenPgp,
} from "./attestation_sign.ts";
import { signDsseBundle } from "./cosign_sign.ts";
import { encodeStatement, inTotoStatement, SLSA_PROVENANCE_V1 } from "./attestation_statement.ts";
import { OPENPGP_CONFIG } from "../signature/mod.ts";

const HEX = "d2c75242ad9ff5d7b38175ddac59371af9ece029097e93faf82bb61493ba6683";
const statement = encodeStatement(
  inTotoStatement([{ name: "r.example/a", digest: `sha256:${HEX}` }], SLSA_PROVENANCE_V1, {}),
);

Deno.test("dssePae() is DSSE v1's pre-authentication encoding", () => {
  assert.equal(
    new TextDecoder().decode(
      dssePae("application/vnd.in-toto+json", new TextEncoder().encode("hi")),
    ),
    "DSSEv1 28 application/vnd.in-toto+json 2 hi",
  );
});

Deno.test("signAttestationCosign() signs the PAE with the cosign key, keyid empty", async () => {
  const pair = await generateCosignKeyPair({ password: "" });
  const signer = await readCosignPrivateKey(pair.privateKeyPem, "");
  const envelope = await signAttestationCosign(signer, statement);
  assert.equal(envelope.payloadType, "application/vnd.in-toto+json");
  assert.deepEqual(decodeBase64(envelope.payload), statement);
  assert.equal(envelope.signatures.length, 1);
  assert.equal(envelope.signatures[0]!.keyid, "");
  const pae = dssePae(envelope.payloadType, statement);
  assert.ok(await signer.verify(pae, decodeBase64(envelope.signatures[0]!.sig)));
  assert.ok(!await signer.verify(statement, decodeBase64(envelope.signatures[0]!.sig)));
  assert.deepEqual(
    Object.keys(JSON.parse(new TextDecoder().decode(encodeEnvelope(envelope)))),
    ["payloadType", "payload", "signatures"],
  );
});

Deno.test("signDsseBundle() carries the statement as the DSSE payload", async () => {
  const pair = await generateCosignKeyPair({ password: "" });
  const signer = await readCosignPrivateKey(pair.privateKeyPem, "");
  const bundle = JSON.parse(new TextDecoder().decode(await signDsseBundle(signer, statement)));
  assert.deepEqual(decodeBase64(bundle.dsseEnvelope.payload), statement);
  assert.ok(
    await signer.verify(
      dssePae(bundle.dsseEnvelope.payloadType, statement),
      decodeBase64(bundle.dsseEnvelope.signatures[0].sig),
    ),
  );
});

/**
 * The reader side of an OpenPGP attestation, as a verifier does it: the envelope parsed, the
 * detached signature read as binary and verified over the PAE with the public key.
 */
async function readOpenPgpEnvelope(bytes: Uint8Array, publicKey: openpgp.PublicKey) {
  const envelope = JSON.parse(new TextDecoder().decode(bytes)) as DsseEnvelopeJson;
  const payload = decodeBase64(envelope.payload);
  const signature = await openpgp.readSignature({
    binarySignature: decodeBase64(envelope.signatures[0]!.sig),
    config: OPENPGP_CONFIG,
  });
  const result = await openpgp.verify({
    message: await openpgp.createMessage({ binary: dssePae(envelope.payloadType, payload) }),
    signature,
    verificationKeys: publicKey,
    expectSigned: true,
    config: OPENPGP_CONFIG,
  });
  await result.signatures[0]!.verified;
  return { envelope, payload };
}

Deno.test("signAttestationOpenPgp() round-trips: a binary detached signature over the PAE", async () => {
  const clock = () => new Date("2026-01-02T03:04:05Z");
  const pair = await generateKeyPair({ name: "CI", email: "ci@example.com", clock });
  const key = await readPrivateKey(pair.privateKeyArmored);
  const envelope = await signAttestationOpenPgp(key, statement, { clock });
  assert.equal(envelope.signatures[0]!.keyid, key.getFingerprint().toUpperCase());
  assert.match(envelope.signatures[0]!.keyid, /^[0-9A-F]{40}$/);
  const read = await readOpenPgpEnvelope(encodeEnvelope(envelope), key.toPublic());
  assert.deepEqual(read.payload, statement);
  // A changed statement does not verify.
  const tampered = { ...envelope, payload: btoa('{"_type":"x"}') };
  await assert.rejects(() => readOpenPgpEnvelope(encodeEnvelope(tampered), key.toPublic()));
  // Nor does another key's.
  const other = await generateKeyPair({ name: "Other", email: "o@example.com", clock });
  const otherKey = await openpgp.readKey({ armoredKey: other.publicKeyArmored });
  await assert.rejects(() => readOpenPgpEnvelope(encodeEnvelope(envelope), otherKey));
});

Deno.test("envelopeSignsStatement() is the same statement signed by the same key, nothing else", async () => {
  const cosign = await readCosignPrivateKey(
    (await generateCosignKeyPair({ password: "pw" })).privateKeyPem,
    "pw",
  );
  const other = await readCosignPrivateKey(
    (await generateCosignKeyPair({ password: "pw" })).privateKeyPem,
    "pw",
  );
  const byCosign = (pae: Uint8Array, sig: Uint8Array) => cosign.verify(pae, sig);
  // Signed again: other signature bytes, the same statement and key.
  const envelope = encodeEnvelope(await signAttestationCosign(cosign, statement));
  assert.equal(await envelopeSignsStatement(envelope, statement, byCosign), true);
  const another = encodeStatement(
    inTotoStatement([{ name: "r.example/b", digest: `sha256:${HEX}` }], SLSA_PROVENANCE_V1, {}),
  );
  assert.equal(await envelopeSignsStatement(envelope, another, byCosign), false);
  const theirs = encodeEnvelope(await signAttestationCosign(other, statement));
  assert.equal(await envelopeSignsStatement(theirs, statement, byCosign), false);
  for (const junk of ["", "null", "[]", '{"payloadType":1}', '{"signatures":[{"sig":"%%"}]}']) {
    assert.equal(
      await envelopeSignsStatement(new TextEncoder().encode(junk), statement, byCosign),
      false,
    );
  }

  const pair = await generateKeyPair({ name: "CI", email: "ci@example.com" });
  const key = await readPrivateKey(pair.privateKeyArmored);
  const gpg = encodeEnvelope(await signAttestationOpenPgp(key, statement));
  const byKey = (pae: Uint8Array, sig: Uint8Array) => openPgpSignatureVerifies(key, pae, sig);
  assert.equal(await envelopeSignsStatement(gpg, statement, byKey), true);
  const stranger = await readPrivateKey(
    (await generateKeyPair({ name: "O", email: "o@example.com" })).privateKeyArmored,
  );
  assert.equal(
    await envelopeSignsStatement(
      gpg,
      statement,
      (pae, sig) => openPgpSignatureVerifies(stranger, pae, sig),
    ),
    false,
  );
  assert.equal(await envelopeSignsStatement(envelope, statement, byKey), false);
});
