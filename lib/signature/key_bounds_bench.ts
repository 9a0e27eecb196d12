/**
 * What one signature check costs with the largest keys `key_bounds.ts` accepts, and what refusing
 * the key of issue #33 costs: `deno bench -A lib/signature/key_bounds_bench.ts`. The keys are
 * built packet by packet (`tests/fakes/hostile_keys.ts`) and the signatures are noise with the
 * right hash prefix, so each check does the key's whole arithmetic and fails. Up to 4096 bits
 * openpgp.js checks RSA with the runtime's WebCrypto, whose arithmetic does not hold the event
 * loop (the time per check is mostly waiting); above, with JavaScript BigInt on the event loop
 * (the runtime's RSA takes no larger key), so the time per check is how long it holds the loop.
 */
import { parseReference } from "../image/mod.ts";
import {
  oddNumberOfBits,
  pgpPublicKey,
  pgpSignatureBy,
  rsaKey,
} from "../../tests/fakes/hostile_keys.ts";
import { readPublicKeys } from "./keys.ts";
import { createPayload, encodePayload } from "./payload.ts";
import { verifySignature, type VerifySignatureOptions } from "./verify.ts";

const DIGEST = "sha256:" + "be".repeat(32);
const REF = "quay.io/team/app:1.2";

async function noiseSigned(bits: number, exponent: bigint): Promise<VerifySignatureOptions> {
  const spec = rsaKey(oddNumberOfBits(bits), exponent);
  const key = await pgpPublicKey(spec);
  const payload = encodePayload(createPayload({ dockerReference: REF, manifestDigest: DIGEST }));
  return {
    signature: await pgpSignatureBy(spec, key, payload),
    publicKeys: await readPublicKeys(key.armored, { maxRsaBits: 8192 }),
    expected: { manifestDigest: DIGEST, reference: parseReference(REF) },
  };
}

const LARGEST_EXPONENT = 2n ** 32n - 1n;
const rsa4096 = await noiseSigned(4096, 65537n);
const rsa4096LargestExponent = await noiseSigned(4096, LARGEST_EXPONENT);
const rsa8192 = await noiseSigned(8192, 65537n);
const rsa8192LargestExponent = await noiseSigned(8192, LARGEST_EXPONENT);
const huge = oddNumberOfBits(24576);
const issueKey = (await pgpPublicKey(rsaKey(huge, huge))).armored;

async function check(options: VerifySignatureOptions): Promise<void> {
  const result = await verifySignature(options);
  if (result.verified) throw new Error("A noise signature verified");
}

Deno.bench(
  "readPublicKeys() refuses the 24,576-bit modulus and exponent of issue #33",
  async () => {
    try {
      await readPublicKeys(issueKey);
    } catch {
      return;
    }
    throw new Error("The key of issue #33 was accepted");
  },
);

Deno.bench("one check, RSA 4096 bits, exponent 65537 (WebCrypto)", async () => {
  await check(rsa4096);
});

Deno.bench("one check, RSA 4096 bits, exponent 2^32-1: the default's worst case", async () => {
  await check(rsa4096LargestExponent);
});

Deno.bench(
  "one check, RSA 8192 bits, exponent 65537 (BigInt; --max-rsa-key-bits 8192)",
  async () => {
    await check(rsa8192);
  },
);

Deno.bench(
  "one check, RSA 8192 bits, exponent 2^32-1: --max-rsa-key-bits 8192's worst case",
  async () => {
    await check(rsa8192LargestExponent);
  },
);
