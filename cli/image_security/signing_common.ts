/**
 * What `sign` and `attest` share: the image and digest to sign, the subject a referrer names,
 * and the private key of a {@linkcode SigningKey} read as a cosign or an OpenPGP key (checked
 * against the fingerprint the signing setup names).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { cosignPassword } from "./cosign_password.ts";
import type { RegistryAccess } from "./registry_access.ts";
import type { SigningKey } from "./signing_key.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  formatReference,
  type ImageReference,
  isDigest,
  parseReference,
  withDefaultTag,
} from "../../lib/image/mod.ts";
import type { PrivateKey } from "../../lib/signature/mod.ts";
import {
  type CosignSigner,
  MAX_COSIGN_KEY_FILE_SIZE,
  publicKeySha256,
  readCosignPrivateKey,
  readOpenPgpSigningKey,
} from "../../lib/signing/mod.ts";
import type { ManifestDescriptor } from "../../lib/registry/mod.ts";

/** The note every cosign signature's output carries. */
export const NO_TLOG_NOTE =
  "no transparency log: nothing was sent to Rekor (verify with --insecure-ignore-tlog)";

/** IMAGE, with `--digest` when given. */
export function imageToSign(
  options: { readonly image: string; readonly digest?: string | undefined },
): ImageReference {
  const ref = parseReference(options.image);
  const digest = options.digest?.trim();
  if (digest === undefined) return ref;
  if (digest === "" || !isDigest(digest)) {
    throw new UsageError(
      `Cannot use --digest "${options.digest}": expected a digest such as sha256:<64 hex digits>` +
        (digest === "" ? " (the build reported none: is its IMAGE_DIGEST result set?)" : ""),
    );
  }
  if (ref.digest !== undefined && ref.digest !== digest) {
    throw new UsageError(
      `Cannot sign ${
        formatReference(ref)
      } with --digest ${digest}: the reference names another digest`,
    );
  }
  return { ...ref, digest };
}

/**
 * The cosign private key of `key`, decrypted with the setup's password, `--passphrase-file`,
 * `$COSIGN_PASSWORD` or the terminal's answer (and the one the setup names).
 */
export async function cosignSignerOf(
  key: SigningKey,
  options: { readonly passphraseFile: string | undefined },
  ctx: CommandContext,
): Promise<CosignSigner> {
  if (key.bytes.byteLength > MAX_COSIGN_KEY_FILE_SIZE) {
    throw new UsageError(`Cannot read ${key.label}: it is too large for a key`);
  }
  const found = key.cosignPassword !== undefined
    ? { password: key.cosignPassword }
    : await cosignPassword(ctx, options, { message: `Password of ${key.label}` });
  if (found === undefined) {
    throw new UsageError(
      `The cosign key ${key.label} needs its password: pass --passphrase-file or set ` +
        "COSIGN_PASSWORD (no terminal to ask on)",
    );
  }
  const signer = await readCosignPrivateKey(key.bytes, found.password);
  if (key.fingerprint) {
    key.checkFingerprint((await publicKeySha256(signer.publicKeyDer)).toHex());
  }
  return signer;
}

/** The OpenPGP private key of `key`, able to sign (and the one the setup names). */
export async function openPgpSigningKey(
  key: SigningKey,
  passphrase: string | undefined,
): Promise<PrivateKey> {
  const privateKey = await readOpenPgpSigningKey(key.bytes, key.label, { passphrase });
  key.checkFingerprint(privateKey.getFingerprint().toUpperCase());
  return privateKey;
}

/**
 * The image's manifest as a referrer's `subject` names it (digest, media type, size): a digest
 * reference is that digest, a tag is resolved once.
 */
export async function resolveSubject(
  access: RegistryAccess,
  ref: ImageReference,
  ctx: CommandContext,
): Promise<ManifestDescriptor> {
  const target = ref.digest !== undefined ? ref : withDefaultTag(ref);
  // A tag is resolved once (a HEAD, or a GET where the registry's HEAD says too little); the
  // subject is then read by that digest, whatever the tag points to meanwhile.
  const digest = ref.digest ?? await access.client.resolveDigest(target);
  const byDigest = { ...target, digest };
  let head = await access.client.headManifest(byDigest);
  if (head.size < 0 || head.mediaType === "") {
    const manifest = await access.client.getManifest(byDigest);
    head = { digest: manifest.digest, mediaType: manifest.mediaType, size: manifest.size };
  }
  if (ref.digest === undefined) {
    ctx.io.stderr.write(`Resolved ${formatReference(target)} to ${head.digest}\n`);
  }
  return head;
}
