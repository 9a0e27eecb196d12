/**
 * Attack 5 of issue #33, "key material is unbounded", on the real webhook process: the policy's
 * key Secret holds an OpenPGP RSA key whose modulus and exponent are 24,576 bits (built packet by
 * packet, no primes behind it), and the policy's own lookaside store holds a signature "by" it
 * for the image a Pod names. Before keys were checked when read, the one signature check held
 * the event loop for 18 s (openpgp.js falls back to BigInt arithmetic for such a key), and
 * `/healthz` and every other review waited as long.
 *
 * {@linkcode runHostileKeyAttack} returns the figures and the webhook's answer (for the test's
 * assertions); {@linkcode hostileKeyAttack} only the figures (for the bench).
 *
 * @module
 */
import { createPayload, encodePayload } from "../../lib/signature/mod.ts";
import {
  oddNumberOfBits,
  pgpPublicKey,
  pgpSignatureBy,
  rsaKey,
  rsaSpkiPem,
} from "../fakes/hostile_keys.ts";
import { type AttackFigures, eventLoopStalls, measureAttack } from "./_attack.ts";
import { type AdmitAnswer, podReviewBody, postReview, signerSecretDocument } from "./_hostile.ts";
import { startWorld } from "./_world.ts";

/** The size of the hostile key's modulus and exponent, in bits: the key of issue #33. */
export const HOSTILE_KEY_BITS = 24576;

/** What one run of the attack gives. */
export interface HostileKeyAttackResult {
  readonly figures: AttackFigures;
  /** The webhook's answer to the review of the image "signed" by the hostile key. */
  readonly answer: AdmitAnswer;
  /** The hostile key's fingerprint. */
  readonly fingerprint: string;
  /** The image the review named, signed "by" the OpenPGP key. */
  readonly image: string;
  /** The image the review named under a `sigstoreSigned` requirement with the PEM key. */
  readonly pemImage: string;
}

/**
 * The `--policies` file: images of `hostile/*` must be signed by the OpenPGP key of Secret
 * `signer`, those of `hostile-pem/*` by a cosign key of Secret `signer-pem` (both in the
 * webhook's namespace).
 */
function policyFile(host: string, armoredKey: string, pem: string): string {
  const pemLines = pem.trimEnd().split("\n").map((l) => `    ${l}`).join("\n");
  return `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "${host}/hostile/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
    - name: "${host}/hostile-pem/*"
      policy:
        simple: { requirements: [{ type: sigstoreSigned, keySecret: signer-pem }] }
${signerSecretDocument(armoredKey)}---
apiVersion: v1
kind: Secret
metadata: { name: signer-pem, namespace: toolkit-system }
stringData:
  key: |
${pemLines}
`;
}

/**
 * Starts a registry, a lookaside store and the webhook (release defaults, `--policies` with the
 * hostile key in its key Secret, and the same modulus and exponent as a cosign PEM key in
 * another), sends one review of an image with a signature "by" the key and an image under the
 * PEM key while probing `/healthz`, stops everything and returns what it measured.
 */
export async function runHostileKeyAttack(
  options: { readonly bits?: number; readonly webhookArgs?: readonly string[] } = {},
): Promise<HostileKeyAttackResult> {
  const bits = options.bits ?? HOSTILE_KEY_BITS;
  await using world = await startWorld({ cluster: false });
  const { registry, gpg } = world;
  const image = `${registry.host}/hostile/app:1`;
  const pemImage = `${registry.host}/hostile-pem/app:1`;
  const digest = await gpg.pushImage(image, { content: "hostile key" });
  await gpg.pushImage(pemImage, { content: "hostile PEM key" });

  const huge = oddNumberOfBits(bits);
  const spec = rsaKey(huge, huge);
  const key = await pgpPublicKey(spec);
  const payload = encodePayload(createPayload({ dockerReference: image, manifestDigest: digest }));
  const dir = `${gpg.sigstore}/hostile/app@${digest.replace(":", "=")}`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeFile(`${dir}/signature-1`, await pgpSignatureBy(spec, key, payload));

  // It serves from the `--policies` file: there is no cluster.
  const webhook = await world.startWebhook({
    policies: await world.file(
      "policies.yaml",
      policyFile(registry.host, key.armored, rsaSpkiPem(huge, huge)),
    ),
    args: options.webhookArgs ?? [],
  });
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  try {
    // The longest stall so far (starting up): the review's own shows only if it is longer.
    const stallBefore = (await eventLoopStalls(webhook, undefined, client)).maxMs;
    const { result: answer, figures } = await measureAttack(
      `a ${bits}-bit RSA modulus and exponent in key Secrets (OpenPGP, signature "by" it; PEM)`,
      webhook,
      postReview(webhook, client, podReviewBody("hostile-key", [image, pemImage])),
    );
    return {
      figures: {
        ...figures,
        note: `${answer.allowed === false ? `denied: ${answer.message ?? ""}` : "admitted"}; ` +
          `the longest stall before the review: ${Math.round(stallBefore ?? NaN)} ms`,
      },
      answer,
      fingerprint: key.fingerprint,
      image,
      pemImage,
    };
  } finally {
    client.close();
  }
}

/** The attack's figures, for `deno task bench`. */
export async function hostileKeyAttack(): Promise<AttackFigures> {
  return (await runHostileKeyAttack()).figures;
}
