import assert from "node:assert/strict";
import { decodeBase64, encodeBase64 } from "../base64.ts";
import { generateCosignKeyPair, publicKeySha256, readCosignPrivateKey } from "./cosign_keys.ts";
import { cosignDockerReference, cosignLegacyPayload, cosignStatement } from "../signature/mod.ts";
import { signCosignBundle, signCosignLegacy } from "./cosign_sign.ts";
import { SigningError } from "../signature/mod.ts";

const HEX = "d2c75242ad9ff5d7b38175ddac59371af9ece029097e93faf82bb61493ba6683";
const DIGEST = `sha256:${HEX}`;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function signer() {
  const pair = await generateCosignKeyPair({ password: "" });
  return await readCosignPrivateKey(pair.privateKeyPem, "");
}

Deno.test("cosignLegacyPayload() is byte for byte what cosign v3.1.3 writes", () => {
  // As `cosign sign --new-bundle-format=false` wrote it for this digest (tests/cosign_env_test.ts).
  assert.equal(
    text(
      cosignLegacyPayload({ dockerReference: "127.0.0.1:5811/demo/app", manifestDigest: DIGEST }),
    ),
    `{"critical":{"identity":{"docker-reference":"127.0.0.1:5811/demo/app"},"image":{"docker-manifest-digest":"${DIGEST}"},"type":"cosign container image signature"},"optional":null}`,
  );
});

Deno.test("cosignDockerReference() names Docker Hub as cosign does", () => {
  assert.equal(
    cosignDockerReference("docker.io", "library/nginx"),
    "index.docker.io/library/nginx",
  );
  assert.equal(cosignDockerReference("quay.io", "team/app"), "quay.io/team/app");
});

Deno.test("cosignStatement() is byte for byte what cosign v3.1.3 signs", () => {
  assert.equal(
    text(cosignStatement(DIGEST)),
    `{"_type":"https://in-toto.io/Statement/v1","subject":[{"digest":{"sha256":"${HEX}"},"annotations":{}}],"predicateType":"https://sigstore.dev/cosign/sign/v1","predicate":{}}`,
  );
});

Deno.test("signCosignLegacy() signs the payload with the key (base64 DER)", async () => {
  const key = await signer();
  const signature = await signCosignLegacy(key, { dockerReference: "r/a", manifestDigest: DIGEST });
  assert.ok(await key.verify(signature.payload, decodeBase64(signature.signatureBase64)));
});

Deno.test("signCosignBundle() makes a v0.3 bundle whose DSSE signature covers the statement", async () => {
  const key = await signer();
  const bundle = JSON.parse(text(await signCosignBundle(key, DIGEST)));
  assert.equal(bundle.mediaType, "application/vnd.dev.sigstore.bundle.v0.3+json");
  const hint = encodeBase64(await publicKeySha256(key.publicKeyPem));
  assert.deepEqual(bundle.verificationMaterial.publicKey, { hint });
  assert.equal(bundle.verificationMaterial.tlogEntries, undefined, "no transparency log");
  const envelope = bundle.dsseEnvelope;
  assert.equal(envelope.payloadType, "application/vnd.in-toto+json");
  const payload = decodeBase64(envelope.payload);
  assert.deepEqual(payload, cosignStatement(DIGEST));
  assert.equal(envelope.signatures.length, 1);
  const pae = new TextEncoder().encode(
    `DSSEv1 28 application/vnd.in-toto+json ${payload.length} ${text(payload)}`,
  );
  assert.ok(await key.verify(pae, decodeBase64(envelope.signatures[0].sig)));
});

Deno.test("signing refuses what is not a digest", async () => {
  const key = await signer();
  await assert.rejects(signCosignBundle(key, "latest"), SigningError);
  assert.throws(
    () => cosignLegacyPayload({ dockerReference: "r/a", manifestDigest: "sha256:xyz" }),
    SigningError,
  );
});

Deno.test("signCosignBundle() leaves the DSSE keyid out, as cosign does", async () => {
  const bundle = JSON.parse(text(await signCosignBundle(await signer(), DIGEST)));
  assert.deepEqual(Object.keys(bundle.dsseEnvelope.signatures[0]), ["sig"]);
});
