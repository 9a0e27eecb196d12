/**
 * `toolkit pipeline --tekton` signs what it builds: when signing is set up (the `image-signing`
 * Secret of `toolkit image-security setup-signing` in the namespace or the template namespace),
 * or with `--sign`, the pipeline copied into the namespace runs the signing Task
 * `toolkit-image-sign` after the task that reports the image it pushed (`--sign-after` when
 * several do), and the Secret is copied into the namespace when only the template namespace holds
 * it (a namespace's own is used as it is). Without a setup, the command says once that the images
 * it builds will be denied by any policy that requires signatures. `--no-sign` leaves the pipeline
 * as the template has it.
 *
 * @module
 */
import { UsageError } from "../../lib/errors.ts";
import {
  copyForNamespace,
  describeObject,
  type KubeClient,
  type KubeObject,
  SECRETS,
} from "../../lib/kube/mod.ts";
import { IMAGE_SIGNING_SECRET } from "../../lib/signing/mod.ts";
import {
  referencedTasks,
  SIGN_TASK_NAME,
  type SigningInsertion,
  type TektonApis,
  type TektonPipeline,
  withSigningTask,
} from "../../lib/tekton/mod.ts";
import type { Logger } from "./common.ts";

/** How the pipeline signs. */
export interface PipelineSigning {
  /** The template as it is copied: with the signing task when the pipeline signs. */
  readonly template: TektonPipeline;
  /** The signing task's place, when the pipeline signs. */
  readonly insertion?: SigningInsertion;
  /** The image-signing Secret to copy into the namespace, when only the template has it. */
  readonly secretCopy?: KubeObject;
  /** For the report. */
  readonly summary: Record<string, unknown> | false;
}

/** What {@link planSigning} decides from. */
export interface SigningRequest {
  readonly namespace: string;
  readonly templateNamespace: string;
  readonly template: TektonPipeline;
  /** `--sign` (true), `--no-sign` (false), or neither. */
  readonly sign: boolean | undefined;
  /** `--sign-after`. */
  readonly after: string | undefined;
}

/** Decides whether and how the copied pipeline signs; reads, writes nothing. */
export async function planSigning(
  client: KubeClient,
  apis: TektonApis,
  request: SigningRequest,
  log: Logger,
): Promise<PipelineSigning> {
  const { namespace, templateNamespace, template } = request;
  if (request.sign === false) {
    log.step("--no-sign: the pipeline is copied without the signing task");
    return { template, summary: false };
  }
  const [own, shared] = await Promise.all([
    client.read(SECRETS, namespace, IMAGE_SIGNING_SECRET),
    namespace === templateNamespace
      ? undefined
      : client.read(SECRETS, templateNamespace, IMAGE_SIGNING_SECRET),
  ]);
  if (!own && !shared) {
    const why =
      `there is no Secret ${IMAGE_SIGNING_SECRET} in ${namespace} or ${templateNamespace}`;
    if (request.sign !== true) {
      log.warn(
        `The images this pipeline builds will not be signed (${why}): a policy that requires ` +
          "signatures will deny them. Set signing up with `toolkit image-security setup-signing`, " +
          "then run this command again (or pass --no-sign to say so)",
      );
      return { template, summary: false };
    }
    log.warn(
      `--sign: the pipeline signs, but ${why}: its signing step fails until ` +
        "`toolkit image-security setup-signing` (and `toolkit sync`) put it there",
    );
  }
  const names = [...new Set([...referencedTasks(template), SIGN_TASK_NAME])];
  const tasks = new Map<string, KubeObject>();
  await Promise.all(names.map(async (name) => {
    const task = await client.read(apis.tasks, templateNamespace, name);
    if (task) tasks.set(name, task);
  }));
  const insertion = withSigningTask(template, tasks, request.after);
  if (!tasks.has(SIGN_TASK_NAME)) {
    throw new UsageError(
      `Cannot sign the pipeline's images: namespace "${templateNamespace}" has no Task ` +
        `${SIGN_TASK_NAME}; install it with \`toolkit image-security setup-signing -t ${templateNamespace}\`, ` +
        "or pass --no-sign",
    );
  }
  const secretCopy = !own && shared ? copyForNamespace(SECRETS, shared, namespace) : undefined;
  log.info(
    insertion.added
      ? `Signing: task ${insertion.signTask} signs the image of task ${insertion.producer!.task} ` +
        `(${insertion.producer!.urlResult}, ${insertion.producer!.digestResult})`
      : `Signing: the template already signs its images (task ${insertion.signTask})`,
  );
  return {
    template: insertion.pipeline,
    insertion,
    ...(secretCopy ? { secretCopy } : {}),
    summary: {
      task: insertion.signTask,
      ...(insertion.producer ? { after: insertion.producer.task } : {}),
      secret: own
        ? describeObject(SECRETS, namespace, IMAGE_SIGNING_SECRET)
        : shared
        ? `${describeObject(SECRETS, namespace, IMAGE_SIGNING_SECRET)} (from ${templateNamespace})`
        : "missing",
    },
  };
}
