/**
 * Verification throughput: `deno bench -A lib/signature/verify_bench.ts`. The target is at
 * least 1,000 verifications per second per core. Keys are parsed once, as the webhook does.
 */
import { parseReference } from "../image/mod.ts";
import { generateKeyPair } from "../signing/openpgp_key_generation.ts";
import { readPublicKeys } from "./keys.ts";
import { readPrivateKey } from "../signing/private_key.ts";
import { signImage } from "../signing/sign.ts";
import { verifySignature, type VerifySignatureOptions } from "./verify.ts";

const DIGEST = "sha256:" + "be".repeat(32);
const REF = "quay.io/team/app:1.2";

async function options(type: "rsa" | "ed25519"): Promise<VerifySignatureOptions> {
  const pair = await generateKeyPair({ name: `bench ${type}`, type });
  return {
    signature: await signImage({
      privateKey: await readPrivateKey(pair.privateKeyArmored),
      dockerReference: REF,
      manifestDigest: DIGEST,
    }),
    publicKeys: await readPublicKeys(pair.publicKeyArmored),
    expected: { manifestDigest: DIGEST, reference: parseReference(REF) },
  };
}

const rsa = await options("rsa");
const ed = await options("ed25519");

async function verifyOrFail(opts: VerifySignatureOptions): Promise<void> {
  const result = await verifySignature(opts);
  if (!result.verified) throw new Error(`Cannot verify the benchmark signature: ${result.reason}`);
}

Deno.bench("verifySignature() with an RSA-3072 key", async () => {
  await verifyOrFail(rsa);
});

Deno.bench("verifySignature() with an Ed25519 key", async () => {
  await verifyOrFail(ed);
});
