/**
 * What an attestation says: an in-toto Statement v1 about an image digest, and the SLSA
 * Provenance v1 predicate toolkit's pipeline writes for the image it built.
 *
 * ```json
 * {"_type":"https://in-toto.io/Statement/v1",
 *  "subject":[{"name":"registry.example/team/app","digest":{"sha256":"<hex>"}}],
 *  "predicateType":"https://slsa.dev/provenance/v1","predicate":{…}}
 * ```
 *
 * The provenance's `buildDefinition.buildType` is {@linkcode TOOLKIT_BUILD_TYPE}; its
 * `externalParameters` are the repository, revision, pipeline and build task a PipelineRun got
 * (`docs/signing.md` says what each means and who decides it). cosign's `--type` short names
 * map to predicate types as cosign v3.1.3 maps them ({@linkcode predicateTypeOf}).
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import { IN_TOTO_STATEMENT_V1 } from "../signature/mod.ts";
import { PREDICATE_TYPE_SHORT_NAMES, predicateTypeURI } from "../policy/mod.ts";

/** The predicate type of SLSA Provenance v1. */
export const SLSA_PROVENANCE_V1 = "https://slsa.dev/provenance/v1";

/** The buildType of the provenance toolkit's Tekton pipeline writes (documented in docs/signing.md). */
export const TOOLKIT_BUILD_TYPE = "https://toolkit.dev/tekton/image-build/v1";

/**
 * The builder id of a pipeline's provenance unless `setup-signing --builder-id` names one: this
 * prefix and the template namespace.
 */
export const DEFAULT_BUILDER_ID_PREFIX = "https://toolkit.dev/tekton/";

/** The predicate type of cosign's `custom` attestations: the predicate is `{Data, Timestamp}`. */
export const COSIGN_CUSTOM_PREDICATE_TYPE = "https://cosign.sigstore.dev/attestation/v1";

/**
 * The predicate type `--type` names: a short name of lib/policy's `PREDICATE_TYPE_SHORT_NAMES`, or a URI
 * (any other value, as cosign takes it).
 *
 * @throws {UsageError} when the value is neither a short name nor an absolute URI.
 */
export function predicateTypeOf(type: string): string {
  const uri = predicateTypeURI(type);
  if (uri === undefined) {
    throw new UsageError(
      `Cannot use --type "${type}": expected a predicate type URI or one of ${
        Object.keys(PREDICATE_TYPE_SHORT_NAMES).join(", ")
      }`,
    );
  }
  return uri;
}

/** One subject of a statement: an image repository and its manifest digest. */
export interface StatementSubject {
  /** The repository (`registry.example/team/app`), as cosign names the subject. */
  readonly name: string;
  /** The manifest digest, `sha256:<hex>`. */
  readonly digest: string;
}

/** An in-toto Statement v1 as JSON. */
export interface InTotoStatement {
  readonly _type: typeof IN_TOTO_STATEMENT_V1;
  readonly subject: readonly { name: string; digest: Record<string, string> }[];
  readonly predicateType: string;
  readonly predicate: unknown;
}

const DIGEST = /^(sha256|sha384|sha512):([0-9a-f]{64,128})$/;

/**
 * The in-toto Statement v1 of `predicate` (a JSON value) about `subjects`.
 *
 * @throws {TypeError} when a digest is not `sha256:<hex>` (or sha384/sha512) or there is no subject.
 */
export function inTotoStatement(
  subjects: readonly StatementSubject[],
  predicateType: string,
  predicate: unknown,
): InTotoStatement {
  if (subjects.length === 0) throw new TypeError("a statement needs a subject");
  return {
    _type: IN_TOTO_STATEMENT_V1,
    subject: subjects.map((s) => {
      const match = DIGEST.exec(s.digest);
      if (!match) throw new TypeError(`not a manifest digest: ${JSON.stringify(s.digest)}`);
      return { name: s.name, digest: { [match[1]!]: match[2]! } };
    }),
    predicateType,
    predicate,
  };
}

/** The bytes a DSSE envelope carries: the statement as JSON (UTF-8). */
export function encodeStatement(statement: InTotoStatement): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(statement));
}

/**
 * The predicate `attest --predicate FILE --type TYPE` puts in the statement, as cosign makes it:
 * the file's JSON (an object), or, for `custom` (cosign's own predicate type), `{Data: the file's
 * text, Timestamp: now}`.
 *
 * @throws {UsageError} when the file is not the JSON object the type needs.
 */
export function predicateFromFile(
  bytes: Uint8Array,
  predicateType: string,
  now: Date,
  name: string,
): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`Cannot read the predicate ${name}: it is not UTF-8 text`);
  }
  if (predicateType === COSIGN_CUSTOM_PREDICATE_TYPE) {
    return { Data: text, Timestamp: rfc3339(now) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `Cannot read the predicate ${name}: not JSON (${
        error instanceof Error ? error.message : error
      })`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`Cannot read the predicate ${name}: it is not a JSON object`);
  }
  return value;
}

/** What a pipeline run built, as the signing Task's parameters and context say. */
export interface PipelineBuild {
  /** The git repository URL as the PipelineRun got it. */
  readonly repository: string;
  /** The revision the PipelineRun got (a branch or a commit): `externalParameters.revision`. */
  readonly revision: string;
  /** The commit built, full hash (40 hex: SHA-1; 64: SHA-256): `resolvedDependencies`. */
  readonly commit: string;
  /** The Pipeline's name. */
  readonly pipeline: string;
  /** The pipeline task that built and pushed the image. */
  readonly task: string;
  /** `runDetails.builder.id`: the cluster pipeline's identity (`setup-signing --builder-id`). */
  readonly builderId: string;
  /** The PipelineRun's uid (`metadata.invocationId`). */
  readonly invocationId: string;
  /** When the run started, if known. */
  readonly startedOn?: Date | undefined;
  /** When the build finished, if known. */
  readonly finishedOn?: Date | undefined;
}

const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function rfc3339(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new TypeError("not a valid time");
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The SLSA Provenance v1 predicate of a build of toolkit's pipeline: buildType
 * {@linkcode TOOLKIT_BUILD_TYPE}, externalParameters `{repository, revision, pipeline, task}`,
 * resolvedDependencies the commit (`git+<repository>`, `sha1` or `sha256` by its length),
 * builder id, and the run's invocation id and times.
 *
 * @throws {UsageError} naming the field that is missing or malformed (an empty repository, a
 *   revision that is not a full commit hash, a builder id that is not a URI).
 */
export function slsaProvenance(build: PipelineBuild): Record<string, unknown> {
  const missing =
    (["repository", "revision", "commit", "pipeline", "task", "builderId", "invocationId"] as const)
      .filter((field) => !build[field]?.trim());
  if (missing.length > 0) {
    throw new UsageError(`Cannot write the provenance: ${missing.join(", ")} not given`);
  }
  const commit = build.commit.trim().toLowerCase();
  if (!COMMIT.test(commit)) {
    throw new UsageError(
      `Cannot write the provenance: the commit "${build.commit}" is not a full commit hash ` +
        "(a clone task's commit result, or a run of the commit itself; not a branch or tag name)",
    );
  }
  try {
    new URL(build.builderId);
  } catch {
    throw new UsageError(
      `Cannot write the provenance: builder id "${build.builderId}" is not a URI`,
    );
  }
  const metadata: Record<string, string> = { invocationId: build.invocationId };
  if (build.startedOn !== undefined) metadata.startedOn = rfc3339(build.startedOn);
  if (build.finishedOn !== undefined) metadata.finishedOn = rfc3339(build.finishedOn);
  return {
    buildDefinition: {
      buildType: TOOLKIT_BUILD_TYPE,
      externalParameters: {
        repository: build.repository,
        revision: build.revision,
        pipeline: build.pipeline,
        task: build.task,
      },
      internalParameters: {},
      resolvedDependencies: [{
        uri: `git+${build.repository}`,
        digest: { [commit.length === 40 ? "sha1" : "sha256"]: commit },
      }],
    },
    runDetails: {
      builder: { id: build.builderId },
      metadata,
    },
  };
}
