/**
 * `toolkit image-security attest IMAGE --predicate FILE --type TYPE` (or `--build-*`): signs an
 * in-toto Statement v1 about the image's digest as a DSSE envelope and stores it where cosign
 * stores attestations.
 *
 * - `--format bundle` (the default for a cosign key): a sigstore bundle v0.3 as an OCI 1.1
 *   referrer of the image (or under the `sha256-<hex>` fallback tag), as `cosign attest` v3;
 * - `--format cosign` (the default for an OpenPGP key): one more layer of the `sha256-<hex>.att`
 *   manifest, as `cosign attest --new-bundle-format=false`. An OpenPGP key's envelope carries a
 *   binary detached OpenPGP signature over the DSSE PAE, `keyid` its fingerprint: toolkit
 *   verifies it, cosign cannot. A bundle carries X.509 or PEM key material only, so an OpenPGP
 *   key and `--format bundle` is a usage error.
 *
 * The predicate is the `--predicate` file's JSON (cosign's `custom` type wraps any text as
 * `{Data, Timestamp}`), or, with the `--build-*` flags, the SLSA Provenance v1 of toolkit's
 * pipeline (`lib/signing`'s `slsaProvenance`: what the `toolkit-image-sign` Task's provenance
 * step runs). The subject is the image's repository and digest: a tag is resolved once; a
 * digest (in IMAGE or `--digest`) given with a tag must be what the tag serves, so a digest
 * reported by a build task cannot name another image than the one the registry holds under it.
 * With `--recursive` (cosign's flag, as on `sign`), when the digest is a multi-platform index,
 * every platform manifest it lists is attested too (BuildKit's attestation manifests left out):
 * the same predicate (the provenance of a platform says the same build), each statement's
 * subject that platform's digest with the image's repository name, stored in the same format
 * beside that digest — what policies with `multiArch: everyPlatform` on an attestation
 * requirement look for. The index is read within lib/registry's bounds (`image_index.ts`), as
 * `sign --recursive` reads it. In the `.att` tag a statement this key attested already is not
 * added again; a bundle is one more referrer each run (as `sign`'s bundles).
 *
 * The key is taken as `sign` takes it (a file, the vault, the mounted `image-signing` Secret) and
 * forgotten when done; nothing goes to a transparency log (verify with
 * `--insecure-ignore-tlog`).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { ATTEST } from "./attest_command.ts";
import { printData } from "../output.ts";
import { readKeyAs, readPassphrase, readUserFile } from "./files.ts";
import { registryAccess } from "./registry_access.ts";
import { type SigningKey, signingKey } from "./signing_key.ts";
import {
  cosignSignerOf,
  eachPlatform,
  imageToSign,
  NO_TLOG_NOTE,
  openPgpSigningKey,
  platformLines,
  reportAppended,
  resolveSubject,
  storeBundleReferrer,
  type StoredReferrer,
  writeResults,
} from "./signing_common.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { formatReference, type ImageReference, withDefaultTag } from "../../lib/image/mod.ts";
import { cosignDockerReference } from "../../lib/signature/mod.ts";
import type { ManifestDescriptor } from "../../lib/registry/mod.ts";
import {
  appendCosignAttestation,
  DEFAULT_BUILDER_ID_PREFIX,
  encodeEnvelope,
  encodeStatement,
  envelopeSignsStatement,
  inTotoStatement,
  isCosignPrivateKey,
  openPgpSignatureVerifies,
  predicateFromFile,
  predicateTypeOf,
  publicKeySha256,
  signAttestationCosign,
  signAttestationOpenPgp,
  signDsseBundle,
  SLSA_PROVENANCE_V1,
  slsaProvenance,
} from "../../lib/signing/mod.ts";

type AttestOptions = OptionsOf<typeof ATTEST>;

/** The message of an OpenPGP key asked for a bundle. */
const OPENPGP_BUNDLE_REFUSAL =
  "sigstore bundles carry X.509 or PEM key material; an OpenPGP attestation is stored in the .att tag";

const BUILD_FLAGS = [
  ["buildRepository", "--build-repository"],
  ["buildRevision", "--build-revision"],
  ["buildCommit", "--build-commit"],
  ["buildPipeline", "--build-pipeline"],
  ["buildTask", "--build-task"],
  ["buildInvocationId", "--build-invocation-id"],
  ["buildStartedOn", "--build-started-on"],
  ["buildFinishedOn", "--build-finished-on"],
] as const;

/** What to attest, decided from the flags before any key or registry is reached. */
interface Request {
  readonly ref: ImageReference;
  readonly predicateType: string;
  /** The predicate, made once the key (and its setup's builder id) is known. */
  readonly predicate: (key: SigningKey) => unknown;
}

/** The --build-* flags that say what was built (the times are not among them). */
const BUILD_FACTS = [
  "buildRepository",
  "buildRevision",
  "buildCommit",
  "buildPipeline",
  "buildTask",
  "buildInvocationId",
] as const;

/** Runs `attest`. */
export async function run(options: AttestOptions, ctx: CommandContext): Promise<number> {
  const building = BUILD_FLAGS.some(([name]) => options[name] !== undefined);
  if (building && options.buildRequired !== true && options.predicate === undefined) {
    // The Task run outside toolkit's pipeline (no build parameters wired): nothing to attest.
    if (BUILD_FACTS.every((name) => !options[name]?.trim())) {
      ctx.io.stderr.write(
        "No provenance written: the run passed no build parameters (REPOSITORY_URL, REVISION, " +
          "PIPELINE_NAME, BUILD_TASK, PIPELINE_RUN_UID; toolkit pipeline wires them)\n",
      );
      return 0;
    }
  }
  const request = await attestRequest(options, ctx);
  const key = await signingKey(options, ctx);
  try {
    return await attestWith(request, key, options, ctx);
  } finally {
    key.forget();
  }
}

function parseTime(flag: string, value: string | undefined): Date | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(date.getTime())) {
    throw new UsageError(`Cannot use ${flag} "${value}": expected an RFC 3339 time`);
  }
  return date;
}

async function attestRequest(options: AttestOptions, ctx: CommandContext): Promise<Request> {
  const ref = imageToSign(options);
  const building = BUILD_FLAGS.some(([name]) => options[name] !== undefined);
  if (building) {
    if (options.predicate !== undefined) {
      throw new UsageError(
        "Give one predicate: --predicate FILE, or the --build-* flags of the pipeline's provenance",
      );
    }
    const predicateType = predicateTypeOf(options.type ?? "slsaprovenance1");
    if (predicateType !== SLSA_PROVENANCE_V1) {
      throw new UsageError(
        `The --build-* flags write SLSA provenance v1: --type must be slsaprovenance1, not "${options.type}"`,
      );
    }
    const startedOn = parseTime("--build-started-on", options.buildStartedOn);
    const finishedOn = parseTime("--build-finished-on", options.buildFinishedOn) ??
      new Date(ctx.clock.now());
    const revision = options.buildRevision ?? "";
    const build = {
      repository: options.buildRepository ?? "",
      revision,
      commit: options.buildCommit?.trim() || revision,
      pipeline: options.buildPipeline ?? "",
      task: options.buildTask ?? "",
      invocationId: options.buildInvocationId ?? "",
      startedOn,
      finishedOn,
    };
    // Checked now, before the vault or the registry: the builder id may come with the key.
    slsaProvenance({ ...build, builderId: options.builderId?.trim() || "urn:toolkit:unknown" });
    return {
      ref,
      predicateType,
      predicate: (key) => slsaProvenance({ ...build, builderId: builderIdOf(options, key) }),
    };
  }
  if (options.predicate === undefined) {
    throw new UsageError(
      "Missing the predicate: pass --predicate FILE (and --type), or the --build-* flags",
    );
  }
  const predicateType = predicateTypeOf(options.type ?? "custom");
  const bytes = await readUserFile(ctx.io.cwd, options.predicate, "--predicate");
  const predicate = predicateFromFile(
    bytes,
    predicateType,
    new Date(ctx.clock.now()),
    `"${options.predicate}"`,
  );
  return { ref, predicateType, predicate: () => predicate };
}

/** `--builder-id`, else the mounted setup's, else toolkit's for the Secret's namespace. */
function builderIdOf(options: AttestOptions, key: SigningKey): string {
  const given = options.builderId?.trim() || key.setup?.builderId;
  if (given) return given;
  const namespace = options.signingSecret?.split("/")[0]?.trim();
  if (namespace && key.setup) return `${DEFAULT_BUILDER_ID_PREFIX}${namespace}`;
  throw new UsageError(
    "Missing the builder id of the provenance: pass --builder-id URI (setup-signing --builder-id " +
      "stores one for the pipelines)",
  );
}

async function attestWith(
  request: Request,
  key: SigningKey,
  options: AttestOptions,
  ctx: CommandContext,
): Promise<number> {
  const { io } = ctx;
  const { ref, predicateType } = request;
  const cosignKey = isCosignPrivateKey(key.bytes);
  const format = options.format ?? (cosignKey ? "bundle" : "cosign");
  if (format === "bundle" && !cosignKey) {
    throw new UsageError(
      `Cannot store an attestation of ${key.label} as a bundle: ${OPENPGP_BUNDLE_REFUSAL}`,
    );
  }
  const predicate = request.predicate(key);
  const signer = cosignKey ? await cosignSignerOf(key, options, ctx) : undefined;
  const openPgp = cosignKey ? undefined : await (async () => {
    const passphrase = await readPassphrase(io.cwd, options);
    const read = () => openPgpSigningKey(key, passphrase);
    return key.fromVault ? await read() : await readKeyAs(read);
  })();

  using access = await registryAccess(ref, options, ctx, options);
  const subject = await resolveSubject(access, ref, ctx);
  const digest = subject.digest;
  if (ref.tag !== undefined && ref.digest !== undefined) {
    // The digest given (a build's result) must be what the registry serves under the tag.
    const tagged = withDefaultTag({ ...ref, digest: undefined });
    const served = await access.client.resolveDigest(tagged);
    if (served !== ref.digest) {
      throw new ToolkitError(
        `Cannot attest ${formatReference(tagged)}@${ref.digest}: the registry serves ${served} ` +
          "under that tag, not the digest given",
      );
    }
  }
  const repository = { ...ref, tag: undefined, digest: undefined };
  const signedBy = signer
    ? (await publicKeySha256(signer.publicKeyDer)).toHex()
    : openPgp!.getFingerprint().toUpperCase();
  const verify = signer
    ? (pae: Uint8Array, sig: Uint8Array) => signer.verify(pae, sig)
    : (pae: Uint8Array, sig: Uint8Array) => openPgpSignatureVerifies(openPgp!, pae, sig);
  /**
   * Attests one manifest (the image's, or a platform's): the same predicate, the statement's
   * subject that manifest's digest with the image's repository name.
   */
  const attestOne = async (
    target: ManifestDescriptor,
    label: string,
  ): Promise<StoredReferrer> => {
    const statement = encodeStatement(inTotoStatement(
      [{ name: cosignDockerReference(ref.domain, ref.path), digest: target.digest }],
      predicateType,
      predicate,
    ));
    if (format === "bundle") {
      const bundle = await signDsseBundle(signer!, statement);
      return await storeBundleReferrer(
        access,
        repository,
        target,
        bundle,
        predicateType,
        `the attestation bundle${label}`,
        ctx,
      );
    }
    const envelope = signer
      ? await signAttestationCosign(signer, statement)
      : await signAttestationOpenPgp(openPgp!, statement, {
        clock: () => new Date(ctx.clock.now()),
      });
    const appended = await appendCosignAttestation(
      access.client,
      repository,
      target.digest,
      encodeEnvelope(envelope),
      {
        predicateType,
        isSameAttestation: (old) => envelopeSignsStatement(old, statement, verify),
      },
    );
    return reportAppended(
      repository,
      { ...appended, count: appended.attestations },
      "attestation",
      "this statement",
      label,
      ctx,
    );
  };
  const { where, stored } = await attestOne(subject, "");
  const platforms = await eachPlatform(access, ref, digest, options, ctx, "attested", attestOne);
  io.stderr.write(`Note: ${NO_TLOG_NOTE}\n`);
  await writeResults(options, ctx, digest, where);
  printData(
    io.stdout,
    options.output,
    {
      image: formatReference(ref),
      digest,
      predicateType,
      format,
      signedBy,
      keyType: signer ? "cosign" : "openpgp",
      store: where,
      ...stored,
      transparencyLog: false,
      ...(options.recursive ? { platforms } : {}),
    },
    () =>
      `Attested ${formatReference({ ...repository, digest })} (${predicateType}) with ${
        signer ? "cosign" : "OpenPGP"
      } key ${signedBy} (${
        format === "bundle" ? "bundle" : "legacy .att"
      }, no transparency log)\n` +
      platformLines(platforms),
  );
  return 0;
}
