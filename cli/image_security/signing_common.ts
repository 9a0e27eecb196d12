/**
 * What `sign` and `attest` share: the image and digest to sign, the subject a referrer names,
 * the platform manifests `--recursive` reaches through an index (and the walk over them), the
 * private key of a {@linkcode SigningKey} read as a cosign or an OpenPGP key (checked against the
 * fingerprint the signing setup names), the messages of what was stored, and the Tekton results
 * files.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { cosignPassword } from "./cosign_password.ts";
import type { RegistryAccess } from "./registry_access.ts";
import type { SigningKey } from "./signing_key.ts";
import { resolvePath } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import { writeFileSafely } from "../../lib/file_write.ts";
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
  pushCosignBundle,
  readCosignPrivateKey,
  readOpenPgpSigningKey,
} from "../../lib/signing/mod.ts";
import {
  type ManifestDescriptor,
  type PlatformManifest,
  readImageManifestShape,
} from "../../lib/registry/mod.ts";

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

/**
 * With `--recursive`, the platform manifests of `digest` when it is an index (BuildKit's
 * attestation manifests left out), read within the bounds of lib/registry's `image_index.ts`
 * (entries and nesting counted before anything else is fetched); none otherwise. `done` says
 * what the command does to them in its messages ("signed", "attested").
 */
export async function platformManifests(
  access: RegistryAccess,
  ref: ImageReference,
  digest: string,
  options: { readonly recursive?: boolean | undefined },
  ctx: CommandContext,
  done: "signed" | "attested",
): Promise<PlatformManifest[]> {
  if (!options.recursive) return [];
  const shape = await readImageManifestShape(access.client, {
    domain: ref.domain,
    path: ref.path,
    digest,
  });
  if (!shape.index) {
    ctx.io.stderr.write(
      `--recursive: ${digest} is not an index (${shape.mediaType}): the image alone is ${done}\n`,
    );
    return [];
  }
  const platforms = shape.manifests.filter((m) => !m.attestation);
  const left = shape.manifests.length - platforms.length;
  ctx.io.stderr.write(
    `--recursive: ${digest} is an index of ${platforms.length} platform manifest${
      platforms.length === 1 ? "" : "s"
    }${
      left > 0 ? ` (and ${left} attestation manifest${left === 1 ? "" : "s"}, not ${done})` : ""
    }\n`,
  );
  return platforms;
}

/**
 * A platform manifest of an index as a referrer's `subject` names it: the index's entry says
 * its media type and size, else a HEAD (or a GET) of the manifest in `repository` does.
 */
async function platformSubject(
  access: RegistryAccess,
  repository: ImageReference,
  manifest: PlatformManifest,
  ctx: CommandContext,
): Promise<ManifestDescriptor> {
  return manifest.size >= 0 && manifest.mediaType !== ""
    ? { digest: manifest.digest, mediaType: manifest.mediaType, size: manifest.size }
    : await resolveSubject(access, { ...repository, tag: undefined, digest: manifest.digest }, ctx);
}

/** What one signing or attesting step stored: its place, and what the results carry of it. */
export interface StoredReferrer {
  readonly where: string;
  readonly stored: Record<string, unknown>;
}

/**
 * With `--recursive`, does `one` (sign, attest) to every platform manifest of the index `digest`
 * ({@linkcode platformManifests}), each as a referrer's subject names it
 * ({@linkcode platformSubject}) and labelled for the messages; returns what the results list of
 * each platform.
 */
export async function eachPlatform(
  access: RegistryAccess,
  ref: ImageReference,
  digest: string,
  options: { readonly recursive?: boolean | undefined },
  ctx: CommandContext,
  done: "signed" | "attested",
  one: (target: ManifestDescriptor, label: string) => Promise<StoredReferrer>,
): Promise<Record<string, unknown>[]> {
  const repository = { ...ref, tag: undefined, digest: undefined };
  const platforms: Record<string, unknown>[] = [];
  for (const manifest of await platformManifests(access, ref, digest, options, ctx, done)) {
    const target = await platformSubject(access, repository, manifest, ctx);
    const label = ` of ${manifest.platform ?? "(no platform)"} (${manifest.digest})`;
    const { where, stored } = await one(target, label);
    platforms.push({
      platform: manifest.platform ?? null,
      digest: manifest.digest,
      store: where,
      ...stored,
    });
  }
  return platforms;
}

/** The text output's lines of the platforms `--recursive` reached. */
export function platformLines(platforms: readonly Record<string, unknown>[]): string {
  return platforms.map((p) => `  and its platform ${p.platform ?? "(none)"} (${p.digest})\n`)
    .join("");
}

/**
 * Stores `bundle` as an OCI 1.1 referrer of `target` in `repository` (listed by the referrers
 * API, else under the fallback tag), says on stderr where (`what`, e.g. "the bundle of
 * linux/amd64", names it) and returns that place and what the results carry of it.
 */
export async function storeBundleReferrer(
  access: RegistryAccess,
  repository: ImageReference,
  target: ManifestDescriptor,
  bundle: Uint8Array,
  predicateType: string,
  what: string,
  ctx: CommandContext,
): Promise<StoredReferrer> {
  const pushed = await pushCosignBundle(access.client, repository, target, bundle, {
    predicateType,
    created: new Date(ctx.clock.now()),
  });
  const where = `${repository.domain}/${repository.path}@${pushed.manifestDigest}`;
  ctx.io.stderr.write(
    `Stored ${what} as referrer ${where}, listed by ${
      pushed.listedBy === "referrers-api"
        ? "the registry's referrers API"
        : `the fallback tag ${pushed.fallbackTag} (the registry has no referrers API)`
    }\n`,
  );
  return {
    where,
    stored: {
      referrer: pushed.manifestDigest,
      listedBy: pushed.listedBy,
      ...(pushed.fallbackTag ? { fallbackTag: pushed.fallbackTag } : {}),
    },
  };
}

/**
 * Says on stderr what appending a `noun` (`signature`, `attestation`) of `what` (e.g. "this
 * payload") to cosign's `sha256-<hex>.sig`/`.att` tag in `repository` did (`label` names the
 * platform), and returns that place and what the results carry of it.
 */
export function reportAppended(
  repository: ImageReference,
  appended: {
    readonly tag: string;
    readonly manifestDigest: string;
    readonly added: boolean;
    readonly count: number;
  },
  noun: string,
  what: string,
  label: string,
  ctx: CommandContext,
): StoredReferrer {
  const where = `${repository.domain}/${repository.path}:${appended.tag}`;
  ctx.io.stderr.write(
    appended.added
      ? `Added the ${noun}${label} to ${where} (${appended.count} ${noun}${
        appended.count === 1 ? "" : "s"
      } there now)\n`
      : `${where} holds this key's ${noun} of ${what} already: nothing was written\n`,
  );
  return {
    where,
    stored: { tag: appended.tag, manifest: appended.manifestDigest, added: appended.added },
  };
}

/** Writes the Tekton results `--digest-file` (`sign`'s) and `--store-file` asked for. */
export async function writeResults(
  options: { readonly digestFile?: string | undefined; readonly storeFile?: string | undefined },
  ctx: CommandContext,
  digest: string,
  store: string,
): Promise<void> {
  for (
    const [flag, path, value] of [
      ["--digest-file", options.digestFile, digest],
      ["--store-file", options.storeFile, store],
    ] as const
  ) {
    if (!path) continue;
    await writeFileSafely(resolvePath(ctx.io.cwd, path), value, {
      name: `${flag} "${path}"`,
      mode: 0o644,
      ifExists: "replace",
    });
  }
}
