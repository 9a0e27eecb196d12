/**
 * `toolkit image-security sign IMAGE --key FILE`: signs the image's current manifest digest
 * with simple signing and stores the signature in the registry (signature extension) or in
 * the lookaside staging directory registries.d configures — where `skopeo copy --sign-by`
 * would put it, so skopeo, Portieris and toolkit all find it.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { SIGN } from "./sign_command.ts";
import { printData } from "../output.ts";
import { readPassphrase, readUserFile } from "./files.ts";
import { registryAccess } from "./registry_access.ts";
import { UsageError } from "../../lib/errors.ts";
import { formatReference, parseReference, withDefaultTag } from "../../lib/image/mod.ts";
import { readPrivateKey, signImage } from "../../lib/signature/mod.ts";

/** Runs `sign`. */
export async function run(options: OptionsOf<typeof SIGN>, ctx: CommandContext): Promise<number> {
  const format = options.output;
  const ref = parseReference(options.image);
  const keyBytes = await readUserFile(ctx.io.cwd, options.key, "--key");
  const passphrase = await readPassphrase(ctx.io.cwd, options);
  const privateKey = await readPrivateKey(keyBytes, passphrase === undefined ? {} : { passphrase });
  const identity = options.identity ? options.identity : formatReference(
    ref.tag === undefined && ref.digest !== undefined
      ? ref
      : withDefaultTag({ ...ref, digest: undefined }),
  );
  using access = await registryAccess(ref, options, ctx.io.cwd);
  ctx.io.stderr.write(`Resolving ${formatReference(ref)}…\n`);
  const digest = await access.client.resolveDigest(ref);
  if (ref.digest !== undefined && ref.digest !== digest) {
    throw new UsageError(`Cannot sign ${formatReference(ref)}: the registry serves ${digest}`);
  }
  const signature = await signImage({
    privateKey,
    dockerReference: identity,
    manifestDigest: digest,
  });
  const { store, where } = await access.writableSignatureStore();
  await store.writeSignature(ref, digest, signature);
  const fingerprint = privateKey.getFingerprint().toUpperCase();
  ctx.io.stderr.write(`Stored the signature in ${where}\n`);
  printData(ctx.io.stdout, format, {
    image: formatReference(ref),
    digest,
    identity,
    signedBy: fingerprint,
    store: where,
  }, () => `Signed ${identity} (${digest}) with key ${fingerprint}\n`);
  return 0;
}
