/**
 * `toolkit image-security sign IMAGE --key FILE [--format simple|cosign|bundle]`: signs the
 * image's current manifest digest and stores the signature where verifiers look for it.
 *
 * - `simple` (the default for an armoured OpenPGP key): simple signing, stored in the registry
 *   (signature extension) or in the lookaside staging directory registries.d configures — where
 *   `skopeo copy --sign-by` would put it, so skopeo, Portieris and toolkit all find it.
 * - `bundle` (the default for a cosign key, `cosign.key` from `cosign generate-key-pair` or
 *   `keygen --type ecdsa-p256`): a sigstore bundle v0.3 as an OCI 1.1 referrer of the image, as
 *   cosign v3 stores it (listed by the registry's referrers API, else under the `sha256-<hex>`
 *   fallback tag).
 * - `cosign`: cosign's legacy format, one more layer of the `sha256-<hex>.sig` manifest (other
 *   signers' layers kept; the same signature not added twice).
 *
 * cosign signatures are keyed and made without a transparency log: nothing is sent to Rekor,
 * and the output says so (`cosign verify --key cosign.pub --insecure-ignore-tlog` verifies them).
 * A digest reference signs that digest; a tag is resolved once and the digest printed.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { SIGN } from "./sign_command.ts";
import { printData } from "../output.ts";
import { cosignPassword } from "./cosign_password.ts";
import { readKeyAs, readPassphrase, readUserFile } from "./files.ts";
import { type RegistryAccess, registryAccess } from "./registry_access.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  formatReference,
  type ImageReference,
  parseReference,
  withDefaultTag,
} from "../../lib/image/mod.ts";
import { readPrivateKey, signImage } from "../../lib/signature/mod.ts";
import {
  type CosignSigner,
  isCosignPrivateKey,
  MAX_COSIGN_KEY_FILE_SIZE,
  publicKeySha256,
  readCosignPrivateKey,
} from "../../lib/signature/mod.ts";
import {
  cosignDockerReference,
  signCosignBundle,
  signCosignLegacy,
} from "../../lib/signature/mod.ts";
import { COSIGN_SIGN_PREDICATE_TYPE } from "../../lib/signature/mod.ts";
import { appendCosignSignature, pushCosignBundle } from "../../lib/registry/mod.ts";
import type { ManifestDescriptor } from "../../lib/registry/mod.ts";

type SignOptions = OptionsOf<typeof SIGN>;

/** The note every cosign signature's output carries. */
export const NO_TLOG_NOTE =
  "no transparency log: nothing was sent to Rekor (verify with --insecure-ignore-tlog)";

/** Runs `sign`. */
export async function run(options: SignOptions, ctx: CommandContext): Promise<number> {
  const ref = parseReference(options.image);
  const keyBytes = await readUserFile(ctx.io.cwd, options.key, "--key");
  const cosignKey = isCosignPrivateKey(keyBytes);
  const format = options.format ?? (cosignKey ? "bundle" : "simple");
  if (format === "simple" && cosignKey) {
    throw new UsageError(
      `Cannot make a simple signature with the cosign key "${options.key}": ` +
        "use --format bundle or --format cosign, or an OpenPGP key",
    );
  }
  if (format !== "simple" && !cosignKey) {
    throw new UsageError(
      `Cannot make a ${
        format === "bundle" ? "cosign bundle" : "cosign signature"
      } with "${options.key}": ` +
        "it is not a cosign private key (ENCRYPTED SIGSTORE PRIVATE KEY); make one with " +
        "`toolkit image-security keygen --type ecdsa-p256` or `cosign generate-key-pair`",
    );
  }
  if (format === "simple") return await signSimple(ref, keyBytes, options, ctx);
  if (format === "bundle" && options.identity) {
    throw new UsageError(
      "Cannot use --identity with --format bundle: a cosign bundle names only the digest",
    );
  }
  if (keyBytes.byteLength > MAX_COSIGN_KEY_FILE_SIZE) {
    throw new UsageError(`Cannot read --key "${options.key}": the file is too large for a key`);
  }
  const found = await cosignPassword(ctx, options, {
    message: `Password of ${options.key}`,
  });
  if (found === undefined) {
    throw new UsageError(
      `The cosign key "${options.key}" needs its password: pass --passphrase-file or set ` +
        "COSIGN_PASSWORD (no terminal to ask on)",
    );
  }
  const signer = await readKeyAs(() => readCosignPrivateKey(keyBytes, found.password));
  return await signCosign(ref, signer, format === "bundle" ? "bundle" : "cosign", options, ctx);
}

/** Simple signing with an OpenPGP key. */
async function signSimple(
  ref: ImageReference,
  keyBytes: Uint8Array,
  options: SignOptions,
  ctx: CommandContext,
): Promise<number> {
  const passphrase = await readPassphrase(ctx.io.cwd, options);
  const privateKey = await readKeyAs(() =>
    readPrivateKey(keyBytes, passphrase === undefined ? {} : { passphrase })
  );
  const identity = options.identity ? options.identity : formatReference(
    ref.tag === undefined && ref.digest !== undefined
      ? ref
      : withDefaultTag({ ...ref, digest: undefined }),
  );
  using access = await registryAccess(ref, options, ctx.io.cwd, ctx.io);
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
  printData(ctx.io.stdout, options.output, {
    image: formatReference(ref),
    digest,
    format: "simple",
    identity,
    signedBy: fingerprint,
    store: where,
  }, () => `Signed ${identity} (${digest}) with key ${fingerprint}\n`);
  return 0;
}

/**
 * The image's manifest as a referrer's `subject` names it (digest, media type, size): a digest
 * reference is that digest, a tag is resolved once.
 */
async function resolveSubject(
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

/** A cosign signature, keyed, without a transparency log. */
async function signCosign(
  ref: ImageReference,
  signer: CosignSigner,
  format: "bundle" | "cosign",
  options: SignOptions,
  ctx: CommandContext,
): Promise<number> {
  const { io } = ctx;
  using access = await registryAccess(ref, options, io.cwd, io);
  const subject = await resolveSubject(access, ref, ctx);
  const digest = subject.digest;
  const repository = { ...ref, tag: undefined, digest: undefined };
  const fingerprint = (await publicKeySha256(signer.publicKeyDer)).toHex();
  let where: string;
  let stored: Record<string, unknown>;
  let identity: string | undefined;
  if (format === "cosign") {
    identity = options.identity || cosignDockerReference(ref.domain, ref.path);
    const signature = await signCosignLegacy(signer, {
      dockerReference: identity,
      manifestDigest: digest,
    });
    const appended = await appendCosignSignature(access.client, repository, digest, signature, {
      isSameSignature: (payload, der) => signer.verify(payload, der),
    });
    where = `${ref.domain}/${ref.path}:${appended.tag}`;
    stored = { tag: appended.tag, manifest: appended.manifestDigest, added: appended.added };
    io.stderr.write(
      appended.added
        ? `Added the signature to ${where} (${appended.signatures} signature${
          appended.signatures === 1 ? "" : "s"
        } there now)\n`
        : `${where} holds this key's signature of this payload already: nothing was written\n`,
    );
  } else {
    const bundle = await signCosignBundle(signer, digest);
    const pushed = await pushCosignBundle(access.client, repository, subject, bundle, {
      predicateType: COSIGN_SIGN_PREDICATE_TYPE,
      created: new Date(),
    });
    where = `${ref.domain}/${ref.path}@${pushed.manifestDigest}`;
    stored = {
      referrer: pushed.manifestDigest,
      listedBy: pushed.listedBy,
      ...(pushed.fallbackTag ? { fallbackTag: pushed.fallbackTag } : {}),
    };
    io.stderr.write(
      `Stored the bundle as referrer ${where}, listed by ${
        pushed.listedBy === "referrers-api"
          ? "the registry's referrers API"
          : `the fallback tag ${pushed.fallbackTag} (the registry has no referrers API)`
      }\n`,
    );
  }
  io.stderr.write(`Note: ${NO_TLOG_NOTE}\n`);
  printData(io.stdout, options.output, {
    image: formatReference(ref),
    digest,
    format,
    ...(identity !== undefined ? { identity } : {}),
    signedBy: fingerprint,
    store: where,
    ...stored,
    transparencyLog: false,
  }, () =>
    `Signed ${formatReference({ ...repository, digest })} with cosign key ${fingerprint} ` +
    `(${format === "bundle" ? "bundle" : "legacy .sig"}; ${NO_TLOG_NOTE})\n`);
  return 0;
}
