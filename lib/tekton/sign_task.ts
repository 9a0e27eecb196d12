/**
 * The Tekton Task `toolkit-image-sign`: signs the image a build task pushed with the key kept in
 * the vault, so that what a pipeline ships is what enforcement admits. `toolkit image-security
 * setup-signing` installs it into the template namespace at the Pipelines version the cluster
 * serves, `toolkit pipeline` copies it with the pipeline and runs it after the task that reports
 * the image (its `IMAGE_URL` and `IMAGE_DIGEST` results, Tekton's convention); the released file is
 * `deploy/tekton/toolkit-image-sign.yaml`.
 *
 * One step runs `toolkit image-security sign IMAGE_URL --digest IMAGE_DIGEST` from the CLI's
 * image, as a non-root user on a read-only root filesystem. What it needs comes from two Secrets
 * mounted as files, never from arguments: the `image-signing` Secret `setup-signing` writes (the
 * vault, the key's id, the IAM API key, the fingerprint: `--signing-secret-dir`) and the
 * registry's push credentials (`--registry-secret-dir`, a `kubernetes.io/dockerconfigjson`
 * Secret). Both are mounted `optional`, so that a missing Secret fails the step with toolkit's
 * own message (which Secret, in which namespace, what to run) instead of a Pod that never starts;
 * nothing is ever skipped. The key is read into the step's memory only.
 *
 * The signature goes where verifiers look: the registry's signature extension (IBM Cloud
 * Container Registry, OpenShift's registry), else the optional workspace `signatures`, a
 * lookaside-staging directory the webhook's registries.d reads (a volume a web server serves).
 * Results: `SIGNED_DIGEST` (the digest signed) and `SIGNATURE_STORE` (where the signature is).
 * When the digest is a multi-platform index, every platform manifest it lists is signed too
 * (`sign --recursive`), so that policies asking for every platform admit it; the parameter
 * `RECURSIVE` (`false`) signs the index alone.
 *
 * A second step, `provenance`, runs `toolkit image-security attest IMAGE_URL --digest
 * IMAGE_DIGEST --build-*` with the same key, Secrets and registry: it writes the SLSA Provenance
 * v1 of the build (the repository, revision, commit, pipeline and build task the pipeline passes,
 * the PipelineRun's uid, the builder id `setup-signing` stored) as an in-toto statement, signs it
 * as DSSE (a cosign key: a v3 bundle referrer; an OpenPGP key: the `sha256-<hex>.att` tag), and
 * pushes it, after checking that the registry serves IMAGE_DIGEST under IMAGE_URL's tag; with
 * `RECURSIVE` (`attest --recursive`) each platform manifest of an index gets the same build's
 * provenance too, its statement's subject the platform's digest. Any
 * failure (no Secret, no key, a refused upload) fails the run. `toolkit pipeline` wires its
 * parameters and sets PROVENANCE_REQUIRED; a run that passes none of them (the Task used on its
 * own) writes no provenance and says so.
 *
 * @module
 */
import type { KubeObject } from "../kube/mod.ts";
import { VERSION } from "../version.ts";
import { TOOLKIT_CLI_IMAGE_REPOSITORY } from "../images.ts";
import { ToolkitError } from "../errors.ts";
import { IMAGE_SIGNING_SECRET } from "../signing/mod.ts";
import type { PipelinesVersion } from "./versions.ts";

/** The Task's name. */
export const SIGN_TASK_NAME = "toolkit-image-sign";

/** The Task's parameters. */
export const SIGN_TASK_PARAMS = {
  imageUrl: "IMAGE_URL",
  imageDigest: "IMAGE_DIGEST",
  signingSecret: "SIGNING_SECRET",
  registrySecret: "REGISTRY_SECRET",
  tlsVerify: "TLS_VERIFY",
  recursive: "RECURSIVE",
  image: "TOOLKIT_IMAGE",
  repositoryUrl: "REPOSITORY_URL",
  revision: "REVISION",
  commit: "COMMIT",
  pipelineName: "PIPELINE_NAME",
  buildTask: "BUILD_TASK",
  pipelineRunUid: "PIPELINE_RUN_UID",
  startedOn: "STARTED_ON",
  finishedOn: "FINISHED_ON",
  provenanceRequired: "PROVENANCE_REQUIRED",
} as const;

/** The step that signs, and the step that writes and pushes the provenance. */
export const SIGN_TASK_STEPS = { sign: "sign", provenance: "provenance" } as const;

/** The Task's results. */
export const SIGN_TASK_RESULTS = {
  digest: "SIGNED_DIGEST",
  store: "SIGNATURE_STORE",
} as const;

/** The parameters of the provenance step, and what each is. */
const PROVENANCE_PARAMS: readonly [string, string][] = [
  [SIGN_TASK_PARAMS.repositoryUrl, "Provenance: the git repository URL the PipelineRun got"],
  [
    SIGN_TASK_PARAMS.revision,
    "Provenance: the revision the PipelineRun got (a branch or a commit)",
  ],
  [
    SIGN_TASK_PARAMS.commit,
    "Provenance: the commit built, full hash (a clone task's commit result; empty: REVISION)",
  ],
  [SIGN_TASK_PARAMS.pipelineName, "Provenance: the Pipeline's name ($(context.pipeline.name))"],
  [SIGN_TASK_PARAMS.buildTask, "Provenance: the pipeline task that built and pushed the image"],
  [
    SIGN_TASK_PARAMS.pipelineRunUid,
    "Provenance: the PipelineRun's uid ($(context.pipelineRun.uid)), the invocation id",
  ],
  [SIGN_TASK_PARAMS.startedOn, "Provenance: when the run started, RFC 3339 (empty: left out)"],
  [SIGN_TASK_PARAMS.finishedOn, "Provenance: when the build finished, RFC 3339 (empty: now)"],
  [
    SIGN_TASK_PARAMS.provenanceRequired,
    "true: the run fails without the build parameters; false: without them no provenance is written",
  ],
];

/** The optional workspace holding a lookaside-staging directory. */
export const SIGNATURES_WORKSPACE = "signatures";

/** Where the step finds the entries of the `image-signing` Secret. */
export const SIGNING_SECRET_MOUNT = "/etc/toolkit/image-signing";

/** Where the step finds the registry credentials Secret. */
export const REGISTRY_SECRET_MOUNT = "/etc/toolkit/registry";

/** The Secret of registry credentials the Task reads unless told otherwise. */
export const DEFAULT_REGISTRY_SECRET = "registry-auth";

/** The CLI's path in its image. */
export const TOOLKIT_BINARY = "/usr/local/bin/toolkit";

export { TOOLKIT_CLI_IMAGE_REPOSITORY } from "../images.ts";

/** The CLI's image at this version. */
export const DEFAULT_TOOLKIT_IMAGE = `${TOOLKIT_CLI_IMAGE_REPOSITORY}:${VERSION}`;

/** The non-root user of the CLI's image (distroless `nonroot`). */
export const TOOLKIT_USER = 65532;

/** The cluster serves no Pipelines version the signing Task can be written at. */
export class SignTaskVersionError extends ToolkitError {
  /** Creates the error. */
  constructor(version: string) {
    super(
      `Cannot install the signing Task at tekton.dev/${version}: it needs tekton.dev/v1 or v1beta1 (Tekton Pipelines 0.11 or later)`,
    );
    this.name = "SignTaskVersionError";
  }
}

/** What {@link signTask} writes. */
export interface SignTaskOptions {
  /** The Pipelines version the cluster serves. */
  readonly version: PipelinesVersion;
  /** The namespace to write it in (none: a file to apply anywhere). */
  readonly namespace?: string;
  /** Labels added to the defaults. */
  readonly labels?: Readonly<Record<string, string>>;
}

/** The Task `toolkit-image-sign` at `tekton.dev/<version>`. */
export function signTask(options: SignTaskOptions): KubeObject {
  const { version } = options;
  if (version !== "v1" && version !== "v1beta1") throw new SignTaskVersionError(version);
  const P = SIGN_TASK_PARAMS;
  const R = SIGN_TASK_RESULTS;
  const description = "Signs the image a build pushed (its IMAGE_URL and IMAGE_DIGEST results) " +
    "with the private key kept in the vault (IBM Cloud Key Protect or Hyper Protect Crypto " +
    "Services), as `toolkit image-security setup-signing` configured it, and attests its SLSA " +
    "provenance (the build parameters the pipeline passes) with the same key. The key is read " +
    "into memory only; a missing Secret or key, or a refused upload, fails the run.";
  const resources = { requests: { cpu: "50m", memory: "128Mi" }, limits: { memory: "512Mi" } };
  // What both steps are given: the image and the digest the build reported (checked against the
  // registry), the signing setup and the registry credentials as mounted files, TLS, and whether
  // an index's platforms are signed and attested too.
  const common = [
    `$(params.${P.imageUrl})`,
    `--digest=$(params.${P.imageDigest})`,
    `--signing-secret-dir=${SIGNING_SECRET_MOUNT}`,
    `--signing-secret=$(context.taskRun.namespace)/$(params.${P.signingSecret})`,
    `--registry-secret-dir=${REGISTRY_SECRET_MOUNT}`,
    `--tls-verify=$(params.${P.tlsVerify})`,
    `--recursive=$(params.${P.recursive})`,
  ];
  const step = (name: string, args: string[]) => ({
    name,
    image: `$(params.${P.image})`,
    command: [TOOLKIT_BINARY],
    args: ["image-security", ...args],
    env: [{ name: "NO_COLOR", value: "1" }],
    volumeMounts: [
      { name: "image-signing", mountPath: SIGNING_SECRET_MOUNT, readOnly: true },
      { name: "registry-credentials", mountPath: REGISTRY_SECRET_MOUNT, readOnly: true },
    ],
    [version === "v1" ? "computeResources" : "resources"]: resources,
    securityContext: {
      runAsNonRoot: true,
      runAsUser: TOOLKIT_USER,
      runAsGroup: TOOLKIT_USER,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    },
  });
  return {
    apiVersion: `tekton.dev/${version}`,
    kind: "Task",
    metadata: {
      name: SIGN_TASK_NAME,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      labels: {
        "app.kubernetes.io/name": SIGN_TASK_NAME,
        "app.kubernetes.io/part-of": "toolkit",
        "app.kubernetes.io/version": VERSION,
        "app.kubernetes.io/managed-by": "toolkit",
        ...options.labels,
      },
      annotations: {
        "tekton.dev/displayName": "Sign an image with the key in the vault",
        "tekton.dev/tags": "image-signing, security",
      },
    },
    spec: {
      description,
      params: [
        {
          name: P.imageUrl,
          type: "string",
          description: "The image the build pushed (repository and tag; a digest is allowed)",
        },
        {
          name: P.imageDigest,
          type: "string",
          description: "The digest of its manifest (sha256:…): this digest is signed",
        },
        {
          name: P.signingSecret,
          type: "string",
          default: IMAGE_SIGNING_SECRET,
          description:
            "The Secret of `toolkit image-security setup-signing`: the vault, the key's id, the IAM API key",
        },
        {
          name: P.registrySecret,
          type: "string",
          default: DEFAULT_REGISTRY_SECRET,
          description:
            "A kubernetes.io/dockerconfigjson Secret that may push to the image's repository (absent: anonymous)",
        },
        {
          name: P.tlsVerify,
          type: "string",
          default: "true",
          description: "Verify the registry's TLS certificate (false: plain HTTP or untrusted)",
        },
        {
          name: P.recursive,
          type: "string",
          default: "true",
          description:
            "When the digest is a multi-platform index, also sign every platform manifest it lists and attest its provenance (sign and attest --recursive); false: the index alone",
        },
        {
          name: P.image,
          type: "string",
          default: DEFAULT_TOOLKIT_IMAGE,
          description: "The toolkit CLI's image",
        },
        ...PROVENANCE_PARAMS.map(([name, description]) => ({
          name,
          type: "string",
          default: name === P.provenanceRequired ? "false" : "",
          description,
        })),
      ],
      results: [
        { name: R.digest, type: "string", description: "The digest that was signed" },
        { name: R.store, type: "string", description: "Where the signature was stored" },
      ],
      workspaces: [{
        name: SIGNATURES_WORKSPACE,
        optional: true,
        description:
          "A lookaside-staging directory for registries without the signature extension (served to the webhook's registries.d lookaside)",
      }],
      volumes: [
        {
          name: "image-signing",
          secret: { secretName: `$(params.${P.signingSecret})`, optional: true },
        },
        {
          name: "registry-credentials",
          secret: { secretName: `$(params.${P.registrySecret})`, optional: true },
        },
      ],
      steps: [
        step(SIGN_TASK_STEPS.sign, [
          "sign",
          ...common,
          `--lookaside-staging=$(workspaces.${SIGNATURES_WORKSPACE}.path)`,
          `--digest-file=$(results.${R.digest}.path)`,
          `--store-file=$(results.${R.store}.path)`,
        ]),
        step(SIGN_TASK_STEPS.provenance, [
          "attest",
          ...common,
          `--build-repository=$(params.${P.repositoryUrl})`,
          `--build-revision=$(params.${P.revision})`,
          `--build-commit=$(params.${P.commit})`,
          `--build-pipeline=$(params.${P.pipelineName})`,
          `--build-task=$(params.${P.buildTask})`,
          `--build-invocation-id=$(params.${P.pipelineRunUid})`,
          `--build-started-on=$(params.${P.startedOn})`,
          `--build-finished-on=$(params.${P.finishedOn})`,
          `--build-required=$(params.${P.provenanceRequired})`,
        ]),
      ],
    },
  };
}
