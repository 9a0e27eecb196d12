/**
 * A pipeline that signs what it builds: the signing Task `toolkit-image-sign` is added to a copy
 * of a template pipeline right after the task that produces the image, wired to that task's
 * results, and every task that ran after the producer now also waits for the signature (so a
 * deploy task never starts an image the cluster would deny).
 *
 * The producer is found as Tekton Chains finds the images a TaskRun built: a pair of string
 * results `IMAGE_URL` and `IMAGE_DIGEST`, or `<PREFIX>_IMAGE_URL` and `<PREFIX>_IMAGE_DIGEST`, of
 * the Task a pipeline task references (or embeds). Several producers are ambiguous: the caller
 * names one (`--sign-after`), else the error names the candidates. A pipeline that already runs
 * the signing Task is left as it is, so the change is made once however often it is applied.
 *
 * The signing task also gets what its provenance step attests: `REPOSITORY_URL` and `REVISION`
 * from the pipeline's `git-url` and `git-revision` parameters (what the PipelineRun got),
 * `COMMIT` from the `commit` result of a task that reports one (Tekton's git-clone; else the
 * revision, which a trigger sets to the pushed commit and `toolkit pipeline --start` to the
 * branch's head commit), `PIPELINE_NAME` and `PIPELINE_RUN_UID`
 * from Tekton's context (no task can set them), `BUILD_TASK` the producer's name, and
 * `PROVENANCE_REQUIRED` true: a run without them fails instead of shipping unattested.
 *
 * @module
 */
import type { KubeObject } from "../kube/mod.ts";
import { UsageError } from "../errors.ts";
import type { PipelineTask, TektonPipeline } from "./templates.ts";
import { SIGN_TASK_NAME, SIGN_TASK_PARAMS } from "./sign_task.ts";

/** The name the signing task gets in a pipeline (another is chosen when it is taken). */
export const SIGN_PIPELINE_TASK = "image-sign";

/** A task of a pipeline that reports an image it pushed. */
export interface ImageProducer {
  /** The pipeline task's name. */
  readonly task: string;
  /** Its result naming the image (`IMAGE_URL`, `<PREFIX>_IMAGE_URL`). */
  readonly urlResult: string;
  /** Its result with the image's digest. */
  readonly digestResult: string;
}

/** The results a Task declares (`spec.results[].name`). */
function resultNames(spec: unknown): string[] {
  const results = (spec as { results?: unknown } | undefined)?.results;
  if (!Array.isArray(results)) return [];
  return results.flatMap((r) => typeof r?.name === "string" ? [r.name as string] : []);
}

/** The pairs of image results among `names`, as Tekton Chains pairs them. */
function imageResultPairs(names: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (const url of names) {
    if (!url.endsWith("IMAGE_URL")) continue;
    const digest = `${url.slice(0, -"URL".length)}DIGEST`;
    if (names.includes(digest)) pairs.push([url, digest]);
  }
  return pairs;
}

/** The spec of the Task a pipeline task runs: embedded, or the referenced one of `tasks`. */
function taskSpecOf(
  task: PipelineTask,
  tasks: ReadonlyMap<string, KubeObject>,
): unknown {
  if (task.taskSpec !== undefined) return task.taskSpec;
  const ref = task.taskRef;
  if (!ref?.name || ref.resolver || (ref.kind ?? "Task") !== "Task") return undefined;
  return tasks.get(ref.name)?.spec;
}

/** The pipeline's tasks that report an image (`tasks` holds the Tasks it references, by name). */
export function imageProducers(
  pipeline: TektonPipeline,
  tasks: ReadonlyMap<string, KubeObject>,
): ImageProducer[] {
  return (pipeline.spec?.tasks ?? []).flatMap((task) => {
    if (!task.name) return [];
    return imageResultPairs(resultNames(taskSpecOf(task, tasks))).map((
      [urlResult, digestResult],
    ) => ({
      task: task.name!,
      urlResult,
      digestResult,
    }));
  });
}

/** The task of the pipeline that already runs the signing Task, if any. */
export function signingTaskOf(pipeline: TektonPipeline): string | undefined {
  return [...pipeline.spec?.tasks ?? [], ...pipeline.spec?.finally ?? []].find((t) =>
    t.taskRef?.name === SIGN_TASK_NAME && !t.taskRef.resolver
  )?.name;
}

function describeProducer(p: ImageProducer): string {
  return `${p.task} (${p.urlResult}, ${p.digestResult})`;
}

/** What {@link withSigningTask} did. */
export interface SigningInsertion {
  /** The pipeline, signing what it builds. */
  readonly pipeline: TektonPipeline;
  /** The pipeline task that runs the signing Task. */
  readonly signTask: string;
  /** The task whose image is signed; undefined when the pipeline signed already. */
  readonly producer?: ImageProducer;
  /** False when the pipeline already ran the signing Task (it is returned unchanged). */
  readonly added: boolean;
}

/**
 * The provenance parameters of the signing task in `pipeline`: the git parameters when the
 * pipeline declares them (none: the provenance is not required and not written), the commit of
 * a clone task's `commit` result when one reports it, Tekton's context for the run.
 */
function provenanceParams(
  pipeline: TektonPipeline,
  tasks: ReadonlyMap<string, KubeObject>,
  producer: string,
): { name: string; value: string }[] {
  const P = SIGN_TASK_PARAMS;
  const declared = new Set((pipeline.spec?.params ?? []).map((p) => p.name));
  if (!declared.has(GIT_URL) || !declared.has(GIT_REVISION)) return [];
  const clone = (pipeline.spec?.tasks ?? []).find((task) =>
    task.name !== undefined && resultNames(taskSpecOf(task, tasks)).includes(COMMIT_RESULT)
  );
  return [
    { name: P.repositoryUrl, value: `$(params.${GIT_URL})` },
    { name: P.revision, value: `$(params.${GIT_REVISION})` },
    {
      name: P.commit,
      value: clone
        ? `$(tasks.${clone.name}.results.${COMMIT_RESULT})`
        : `$(params.${GIT_REVISION})`,
    },
    { name: P.pipelineName, value: "$(context.pipeline.name)" },
    { name: P.buildTask, value: producer },
    { name: P.pipelineRunUid, value: "$(context.pipelineRun.uid)" },
    { name: P.provenanceRequired, value: "true" },
  ];
}

/** The pipeline parameters of the repository and revision (toolkit's templates, triggers). */
const GIT_URL = "git-url";
const GIT_REVISION = "git-revision";
/** The result of Tekton's git-clone Task naming the commit it checked out. */
const COMMIT_RESULT = "commit";

/** Whether a pipeline task depends on `producer` (runs after it, or reads its results). */
function dependsOn(task: PipelineTask, producer: string): boolean {
  if ((task.runAfter as string[] | undefined)?.includes(producer)) return true;
  const { name: _n, taskRef: _r, taskSpec: _s, runAfter: _a, ...rest } = task;
  return JSON.stringify(rest).includes(`$(tasks.${producer}.`);
}

/**
 * A copy of `pipeline` that runs the signing Task after the task producing the image.
 *
 * @param tasks The Tasks the pipeline references, by name.
 * @param after The producer to sign after (`--sign-after`), when there are several.
 * @throws {UsageError} when no task reports an image, when several do and `after` does not
 *   choose one, or when `after` names none of them.
 */
export function withSigningTask(
  pipeline: TektonPipeline,
  tasks: ReadonlyMap<string, KubeObject>,
  after?: string,
): SigningInsertion {
  const existing = signingTaskOf(pipeline);
  if (existing !== undefined) return { pipeline, signTask: existing, added: false };
  const name = pipeline.metadata.name;
  const producers = imageProducers(pipeline, tasks);
  const convention = "a pair of results IMAGE_URL and IMAGE_DIGEST (or <PREFIX>_IMAGE_URL and " +
    "<PREFIX>_IMAGE_DIGEST), as Tekton Chains reads them";
  if (producers.length === 0) {
    throw new UsageError(
      `Cannot sign the images of pipeline "${name}": none of its tasks reports the image it pushed ` +
        `(${convention}); add those results to the build Task, or pass --no-sign`,
    );
  }
  const chosen = after === undefined ? producers : producers.filter((p) => p.task === after);
  if (chosen.length !== 1) {
    const list = producers.map(describeProducer).join(", ");
    throw new UsageError(
      after !== undefined && chosen.length === 0
        ? `Cannot sign after task "${after}" of pipeline "${name}": it reports no image; the tasks that do are ${list}`
        : `Cannot tell which image of pipeline "${name}" to sign: ${
          after === undefined ? "several tasks report one" : `task "${after}" reports several`
        } (${list}); choose the task with --sign-after TASK`,
    );
  }
  const producer = chosen[0]!;
  const taken = new Set(
    [...pipeline.spec?.tasks ?? [], ...pipeline.spec?.finally ?? []].map((t) => t.name),
  );
  let signTask = SIGN_PIPELINE_TASK;
  for (let n = 2; taken.has(signTask); n++) signTask = `${SIGN_PIPELINE_TASK}-${n}`;
  const provenance = provenanceParams(pipeline, tasks, producer.task);
  const sign: PipelineTask = {
    name: signTask,
    taskRef: { name: SIGN_TASK_NAME, kind: "Task" },
    runAfter: [producer.task],
    params: [
      {
        name: SIGN_TASK_PARAMS.imageUrl,
        value: `$(tasks.${producer.task}.results.${producer.urlResult})`,
      },
      {
        name: SIGN_TASK_PARAMS.imageDigest,
        value: `$(tasks.${producer.task}.results.${producer.digestResult})`,
      },
      ...provenance,
    ],
  };
  const tasksAfter: PipelineTask[] = [];
  for (const task of pipeline.spec?.tasks ?? []) {
    tasksAfter.push(
      task.name !== producer.task && dependsOn(task, producer.task)
        ? { ...task, runAfter: [...(task.runAfter as string[] | undefined ?? []), signTask] }
        : task,
    );
    if (task.name === producer.task) tasksAfter.push(sign);
  }
  return {
    pipeline: { ...pipeline, spec: { ...pipeline.spec, tasks: tasksAfter } },
    signTask,
    producer,
    added: true,
  };
}
