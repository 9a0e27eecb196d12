/**
 * `toolkit image-security verify IMAGE --key FILE`: checks the image with the webhook's image
 * verifier (lib/admission), as a policy whose one `signedBy` requirement holds the keys of the
 * key file and the identity rule of the flags: the same digest resolution (a digest reference
 * is not resolved again), the same signature stores (registry signature extension, else the
 * lookaside store of registries.d), the same verdicts and messages. Exits 0 when one signature
 * verifies and prints what was verified; exits 1 with the reason otherwise (an image that
 * cannot be checked included).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { clientTimeoutMs, observedGlobalFetch } from "../network.ts";
import type { OptionsOf } from "../options.ts";
import type { VERIFY } from "./verify_command.ts";
import { printData } from "../output.ts";
import { readKeyAs, readUserFile } from "./files.ts";
import { registryFlags } from "./registry_access.ts";
import { UsageError } from "../../lib/errors.ts";
import { formatReference, parseReference } from "../../lib/image/mod.ts";
import {
  InvalidIdentityRuleError,
  parseIdentityRule,
  readPublicKeys,
} from "../../lib/signature/mod.ts";
import {
  ANONYMOUS,
  createImageVerifier,
  filePolicySource,
  type ImageVerdict,
  trustedKeys,
} from "../../lib/admission/mod.ts";
import type { PolicyMatch, SignedIdentity } from "../../lib/policy/mod.ts";

/** The key file, in messages and as the requirement's `keySecret`. */
const KEY_FLAG = "--key";

/**
 * Verifies `ref` with the webhook's verifier, as the one `signedBy` requirement of a policy:
 * the keys of the key file, under the identity rule of the flags.
 */
async function verifyImage(
  options: OptionsOf<typeof VERIFY>,
  ctx: CommandContext,
  ref: ReturnType<typeof parseReference>,
  signedIdentity: SignedIdentity,
): Promise<ImageVerdict> {
  const keys = await trustedKeys(
    await readKeyAs(async () =>
      readPublicKeys(await readUserFile(ctx.io.cwd, options.key, KEY_FLAG))
    ),
  );
  const flags = await registryFlags(ref, options, ctx.io.cwd);
  const verifier = createImageVerifier({
    source: filePolicySource({ policies: [], secrets: [], serviceAccounts: [], namespaces: [] }),
    clusterKeyNamespace: "",
    keys: { keys: () => Promise.resolve(keys) },
    insecureRegistries: flags.insecureRegistries,
    caCerts: flags.caCerts,
    registriesD: flags.registriesD,
    requestTimeoutMs: clientTimeoutMs(options),
    fetch: observedGlobalFetch(ctx.io, options),
    flightTimeoutMs: 120_000,
    verdictCache: { ttlMs: 60_000, maxEntries: 1 },
    digestCache: { ttlMs: 60_000, maxEntries: 1 },
    explain: true,
  });
  const match: PolicyMatch = {
    policy: {
      simple: { requirements: [{ type: "signedBy", keySecret: KEY_FLAG, signedIdentity }] },
    },
    pattern: formatReference(ref),
    source: `${KEY_FLAG} ${options.key}`,
    kind: "ClusterImagePolicy",
    name: KEY_FLAG,
  };
  const credentials = flags.credentials
    ? { ...ANONYMOUS, id: "flags", store: flags.credentials }
    : ANONYMOUS;
  return await verifier.verify({
    reference: ref,
    match,
    namespace: "",
    credentials: () => Promise.resolve(credentials),
  });
}

/** Runs `verify`. */
export async function run(
  options: OptionsOf<typeof VERIFY>,
  ctx: CommandContext,
): Promise<number> {
  const format = options.output;
  const ref = parseReference(options.image);
  const flags = {
    type: options.identityRule,
    ...(options.identityReference ? { dockerReference: options.identityReference } : {}),
    ...(options.identityRepository ? { dockerRepository: options.identityRepository } : {}),
    ...(options.prefix ? { prefix: options.prefix } : {}),
    ...(options.signedPrefix ? { signedPrefix: options.signedPrefix } : {}),
  };
  try {
    parseIdentityRule(flags);
  } catch (error) {
    if (error instanceof InvalidIdentityRuleError) throw new UsageError(error.message);
    throw error;
  }
  // Valid, as parseIdentityRule just said: the policy field it reads.
  const signedIdentity = flags as unknown as SignedIdentity;
  const verdict = await verifyImage(options, ctx, ref, signedIdentity);
  const image = formatReference(ref);
  const digest = verdict.digest;
  const s = verdict.allowed ? verdict.accepted?.[0] : undefined;
  if (verdict.allowed && s !== undefined) {
    printData(
      ctx.io.stdout,
      format,
      {
        verified: true,
        image,
        digest,
        identity: s.dockerReference,
        signedBy: s.keyFingerprint,
        ...(s.creator ? { creator: s.creator } : {}),
        ...(s.timestamp ? { timestamp: new Date(s.timestamp * 1000).toISOString() } : {}),
        store: verdict.store,
      },
      () =>
        `Verified ${image}: digest ${digest}, identity ${s.dockerReference}, signed by ${s.keyFingerprint}${
          s.timestamp ? ` on ${new Date(s.timestamp * 1000).toISOString()}` : ""
        }\n`,
    );
    return 0;
  }
  // Only an allowed verdict with the signature it accepted verifies the image.
  const reason = verdict.allowed ? "no signature was accepted" : verdict.reason;
  if (format !== "text") {
    printData(ctx.io.stdout, format, {
      verified: false,
      image,
      ...(digest ? { digest } : {}),
      reason,
    }, () => "");
  }
  ctx.io.stderr.write(`${image}${digest ? ` (${digest})` : ""} is not verified: ${reason}\n`);
  return 1;
}
