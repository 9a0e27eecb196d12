/**
 * `toolkit image-security verify IMAGE --key FILE`: reads the signatures of the image's
 * current manifest digest (registry signature extension, else the lookaside store of
 * registries.d) and checks them against the key file with an identity rule. Exits 0 when one
 * signature verifies and prints what was verified; exits 1 with the reasons otherwise.
 *
 * @module
 */
import type { CommandArgs, CommandContext } from "../command.ts";
import { outputFormat, printData } from "../output.ts";
import { readUserFile } from "./files.ts";
import { registryAccess } from "./registry_access.ts";
import { UsageError } from "../../lib/errors.ts";
import { formatReference, parseReference } from "../../lib/image/mod.ts";
import {
  InvalidIdentityRuleError,
  parseIdentityRule,
  readPublicKeys,
  verifyImageSignatures,
} from "../../lib/signature/mod.ts";

/** Runs `verify`. */
export async function run(args: CommandArgs, ctx: CommandContext): Promise<number> {
  const format = outputFormat(args, ["text", "json", "yaml"], "text");
  const ref = parseReference(String(args.image));
  const publicKeys = await readPublicKeys(
    await readUserFile(ctx.io.cwd, String(args.key), "--key"),
  );
  let identityRule;
  try {
    identityRule = parseIdentityRule({
      type: args["identity-rule"] ?? "",
      ...(args["identity-reference"] ? { dockerReference: args["identity-reference"] } : {}),
      ...(args["identity-repository"] ? { dockerRepository: args["identity-repository"] } : {}),
      ...(args.prefix ? { prefix: args.prefix } : {}),
      ...(args["signed-prefix"] ? { signedPrefix: args["signed-prefix"] } : {}),
    });
  } catch (error) {
    if (error instanceof InvalidIdentityRuleError) throw new UsageError(error.message);
    throw error;
  }
  using access = await registryAccess(ref, args, ctx.io.cwd);
  const digest = await access.client.resolveDigest(ref);
  const { store, where } = await access.signatureStore("read");
  const signatures = await store.readSignatures(ref, digest);
  const result = await verifyImageSignatures({
    signatures,
    publicKeys,
    expected: { manifestDigest: digest, reference: ref },
    identityRule,
  });
  const image = formatReference(ref);
  if (result.verified) {
    const s = result.signature;
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
        store: where,
      },
      () =>
        `Verified ${image}: digest ${digest}, identity ${s.dockerReference}, signed by ${s.keyFingerprint}${
          s.timestamp ? ` on ${new Date(s.timestamp * 1000).toISOString()}` : ""
        }\n`,
    );
    return 0;
  }
  if (format !== "text") {
    printData(ctx.io.stdout, format, {
      verified: false,
      image,
      digest,
      reason: result.reason,
      store: where,
    }, () => "");
  }
  ctx.io.stderr.write(`${image} (${digest}) is not verified: ${result.reason}\n`);
  return 1;
}
