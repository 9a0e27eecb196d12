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
 * A digest reference (or `--digest`) signs that digest; a tag is resolved once and the digest
 * printed. With `--recursive` (cosign's flag), when that digest is a multi-platform index, every
 * platform manifest it lists is signed too, in the same format and for the same identity
 * (BuildKit's attestation manifests left out), so that policies with `multiArch: everyPlatform`
 * admit it; the index is read within lib/registry's bounds (`image_index.ts`).
 *
 * The key comes from `--key FILE`, or straight from the vault (`--vault-key NAME|ID` with the
 * vault flags, or the `image-signing` Secret of `setup-signing` mounted at
 * `--signing-secret-dir`, as the Tekton Task `toolkit-image-sign` runs it): read into memory,
 * checked (an active, extractable key holding an OpenPGP or cosign private key, whose
 * fingerprint is the one the Secret names), used, and its bytes overwritten. It is never written
 * to a file, a gpg home, a log or an argument. `--digest-file` and `--store-file` also write the
 * digest signed and where the signature went (Tekton results).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { SIGN } from "./sign_command.ts";
import { printData } from "../output.ts";
import { readKeyAs, readPassphrase } from "./files.ts";
import { registryAccess } from "./registry_access.ts";
import {
  cosignSignerOf,
  eachPlatform,
  imageToSign,
  NO_TLOG_NOTE,
  openPgpSigningKey,
  platformLines,
  platformManifests,
  reportAppended,
  resolveSubject,
  storeBundleReferrer,
  type StoredReferrer,
  writeResults,
} from "./signing_common.ts";
import { type SigningKey, signingKey } from "./signing_key.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  formatReference,
  type ImageReference,
  parseReference,
  withDefaultTag,
} from "../../lib/image/mod.ts";
import { type PrivateKey, verifySignature } from "../../lib/signature/mod.ts";
import { signImage } from "../../lib/signing/mod.ts";
import type { SignatureStore } from "../../lib/lookaside/mod.ts";
import { type CosignSigner, isCosignPrivateKey, publicKeySha256 } from "../../lib/signing/mod.ts";
import { cosignDockerReference } from "../../lib/signature/mod.ts";
import { signCosignBundle, signCosignLegacy } from "../../lib/signing/mod.ts";
import { COSIGN_SIGN_PREDICATE_TYPE } from "../../lib/signature/mod.ts";
import { appendCosignSignature } from "../../lib/signing/mod.ts";
import type { ManifestDescriptor } from "../../lib/registry/mod.ts";

type SignOptions = OptionsOf<typeof SIGN>;

/** Runs `sign`. */
export async function run(options: SignOptions, ctx: CommandContext): Promise<number> {
  const ref = imageToSign(options);
  const key = await signingKey(options, ctx);
  try {
    return await signWith(ref, key, options, ctx);
  } finally {
    key.forget();
  }
}

/** Signs `ref` with `key` in the format the key and `--format` call for. */
async function signWith(
  ref: ImageReference,
  key: SigningKey,
  options: SignOptions,
  ctx: CommandContext,
): Promise<number> {
  const keyBytes = key.bytes;
  const cosignKey = isCosignPrivateKey(keyBytes);
  const format = options.format ?? (cosignKey ? "bundle" : "simple");
  if (format === "simple" && cosignKey) {
    throw new UsageError(
      `Cannot make a simple signature with the cosign key ${key.label}: ` +
        "use --format bundle or --format cosign, or an OpenPGP key",
    );
  }
  if (format !== "simple" && !cosignKey) {
    throw new UsageError(
      `Cannot make a ${
        format === "bundle" ? "cosign bundle" : "cosign signature"
      } with ${key.label}: ` +
        "it is not a cosign private key (ENCRYPTED SIGSTORE PRIVATE KEY); make one with " +
        "`toolkit image-security keygen --type ecdsa-p256` or `cosign generate-key-pair`",
    );
  }
  if (format === "simple") {
    const passphrase = await readPassphrase(ctx.io.cwd, options);
    // A key file of the wrong kind is a usage error (another --key); a vault key's state is the
    // vault's, a failure.
    const read = () => openPgpSigningKey(key, passphrase);
    const privateKey = key.fromVault ? await read() : await readKeyAs(read);
    return await signSimple(ref, privateKey, options, ctx);
  }
  if (format === "bundle" && options.identity) {
    throw new UsageError(
      "Cannot use --identity with --format bundle: a cosign bundle names only the digest",
    );
  }
  const signer = await cosignSignerOf(key, options, ctx);
  return await signCosign(ref, signer, format === "bundle" ? "bundle" : "cosign", options, ctx);
}

/** Simple signing with an OpenPGP key. */
async function signSimple(
  ref: ImageReference,
  privateKey: PrivateKey,
  options: SignOptions,
  ctx: CommandContext,
): Promise<number> {
  const identity = options.identity ? options.identity : formatReference(
    ref.tag === undefined && ref.digest !== undefined
      ? ref
      : withDefaultTag({ ...ref, digest: undefined }),
  );
  using access = await registryAccess(ref, options, ctx, options);
  ctx.io.stderr.write(`Resolving ${formatReference(ref)}…\n`);
  const digest = await access.client.resolveDigest(ref);
  if (ref.digest !== undefined && ref.digest !== digest) {
    throw new UsageError(`Cannot sign ${formatReference(ref)}: the registry serves ${digest}`);
  }
  const { store, where } = await access.writableSignatureStore();
  const fingerprint = privateKey.getFingerprint().toUpperCase();
  /** Signs one digest (the image's, or a platform's) unless the key signed it for `identity`. */
  const signOne = async (signed: string, label: string): Promise<boolean> => {
    // Signing again with the same key for the same identity adds nothing: said, not stored twice.
    if (await signedBefore(store, ref, signed, privateKey, identity)) {
      ctx.io.stderr.write(
        `${identity} (${label}${signed}) is already signed with key ${fingerprint} in ${where}: nothing stored\n`,
      );
      return true;
    }
    const signature = await signImage({
      privateKey,
      dockerReference: identity,
      manifestDigest: signed,
    });
    await store.writeSignature(ref, signed, signature);
    ctx.io.stderr.write(
      `Stored the signature${label === "" ? "" : ` of ${label.trim()}`} in ${where}\n`,
    );
    return false;
  };
  const already = await signOne(digest, "");
  const platforms: Record<string, unknown>[] = [];
  for (const manifest of await platformManifests(access, ref, digest, options, ctx, "signed")) {
    const before = await signOne(manifest.digest, `${manifest.platform ?? "no platform"} `);
    platforms.push({
      platform: manifest.platform ?? null,
      digest: manifest.digest,
      ...(before ? { alreadySigned: true } : {}),
    });
  }
  await writeResults(options, ctx, digest, where);
  printData(
    ctx.io.stdout,
    options.output,
    {
      image: formatReference(ref),
      digest,
      format: "simple",
      identity,
      signedBy: fingerprint,
      store: where,
      ...(already ? { alreadySigned: true } : {}),
      ...(options.recursive ? { platforms } : {}),
    },
    () =>
      (already
        ? `${identity} (${digest}) is already signed with key ${fingerprint}\n`
        : `Signed ${identity} (${digest}) with key ${fingerprint}\n`) +
      platformLines(platforms),
  );
  return 0;
}

/**
 * Whether the store holds a signature of `digest` for `identity` by `privateKey` already (an
 * OpenPGP signature is not the same bytes twice, so each is verified with the key's public part).
 */
async function signedBefore(
  store: SignatureStore,
  ref: ImageReference,
  digest: string,
  privateKey: PrivateKey,
  identity: string,
): Promise<boolean> {
  let signedFor: ImageReference;
  try {
    signedFor = parseReference(identity);
  } catch {
    return false; // an identity that names no image: nothing to compare with
  }
  const publicKeys = [privateKey.toPublic()];
  for await (const signature of store.signatures(ref, digest)) {
    const result = await verifySignature({
      signature,
      publicKeys,
      expected: { manifestDigest: digest, reference: signedFor },
      identityRule: { type: "matchExact" },
    });
    if (result.verified && result.dockerReference === identity) return true;
  }
  return false;
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
  using access = await registryAccess(ref, options, ctx, options);
  const subject = await resolveSubject(access, ref, ctx);
  const digest = subject.digest;
  const repository = { ...ref, tag: undefined, digest: undefined };
  const fingerprint = (await publicKeySha256(signer.publicKeyDer)).toHex();
  const identity = format === "cosign"
    ? options.identity || cosignDockerReference(ref.domain, ref.path)
    : undefined;
  /** Signs one manifest (the image's, or a platform's): where it went and what was stored. */
  const signOne = async (
    target: ManifestDescriptor,
    label: string,
  ): Promise<StoredReferrer> => {
    if (format === "cosign") {
      const signature = await signCosignLegacy(signer, {
        dockerReference: identity!,
        manifestDigest: target.digest,
      });
      const appended = await appendCosignSignature(
        access.client,
        repository,
        target.digest,
        signature,
        { isSameSignature: (payload, der) => signer.verify(payload, der) },
      );
      return reportAppended(
        repository,
        { ...appended, count: appended.signatures },
        "signature",
        "this payload",
        label,
        ctx,
      );
    }
    const bundle = await signCosignBundle(signer, target.digest);
    return await storeBundleReferrer(
      access,
      repository,
      target,
      bundle,
      COSIGN_SIGN_PREDICATE_TYPE,
      `the bundle${label}`,
      ctx,
    );
  };
  const { where, stored } = await signOne(subject, "");
  const platforms = await eachPlatform(access, ref, digest, options, ctx, "signed", signOne);
  io.stderr.write(`Note: ${NO_TLOG_NOTE}\n`);
  await writeResults(options, ctx, digest, where);
  printData(io.stdout, options.output, {
    image: formatReference(ref),
    digest,
    format,
    ...(identity !== undefined ? { identity } : {}),
    signedBy: fingerprint,
    store: where,
    ...stored,
    transparencyLog: false,
    ...(options.recursive ? { platforms } : {}),
  }, () =>
    `Signed ${formatReference({ ...repository, digest })} with cosign key ${fingerprint} ` +
    `(${format === "bundle" ? "bundle" : "legacy .sig"}, no transparency log)\n` +
    platformLines(platforms));
  return 0;
}
