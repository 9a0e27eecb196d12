/**
 * The template pipelines of the template namespace (`tools` by default): listed at the Pipelines
 * version the cluster serves, narrowed to the repository's runtime by their
 * `app.openshift.io/runtime` and `app.openshift.io/builder` annotations (a pipeline without them
 * fits every runtime; when none fits, all are candidates, as igc did), one chosen (by name, the
 * only candidate, or the caller's choice on a terminal), and its parameters answered (from
 * `-p name=value`, the caller's questions, or their defaults).
 *
 * @module
 */
import type { KubeClient, KubeObject } from "../kube/mod.ts";
import { ToolkitError, UsageError } from "../errors.ts";
import type { Runtime } from "./runtime.ts";
import type { TektonApis } from "./versions.ts";

/** The annotation naming a template pipeline's runtime. */
export const RUNTIME_ANNOTATION = "app.openshift.io/runtime";
/** The annotation naming a template pipeline's builder (`maven`, `gradle`). */
export const BUILDER_ANNOTATION = "app.openshift.io/builder";
/** The params every pipeline gets from the push, never asked. */
export const GIT_PARAMS: readonly string[] = ["git-url", "git-revision"];

/** A parameter of a pipeline, as Tekton declares it. */
export interface PipelineParamSpec {
  readonly name: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly type?: string;
}

/** A Tekton Pipeline as toolkit reads it. */
export interface TektonPipeline extends KubeObject {
  spec?: {
    params?: PipelineParamSpec[];
    tasks?: PipelineTask[];
    finally?: PipelineTask[];
    [field: string]: unknown;
  };
}

/** A task of a pipeline. */
export interface PipelineTask {
  readonly name?: string;
  readonly taskRef?: {
    readonly name?: string;
    readonly kind?: string;
    readonly resolver?: string;
    readonly [field: string]: unknown;
  };
  readonly [field: string]: unknown;
}

/** The template namespace has no template pipelines (igc said so and exited 0). */
export class NoTemplatePipelinesError extends ToolkitError {
  /** Creates the error. */
  constructor(namespace: string, version: string) {
    super(
      `There are no template pipelines in namespace "${namespace}" (tekton.dev/${version}): install them (the Cloud-Native Toolkit's are at https://github.com/IBM/ibm-garage-tekton-tasks), or pass -t with the namespace that has them`,
    );
    this.name = "NoTemplatePipelinesError";
  }
}

/** Lists the template pipelines of `namespace`, by name. */
export async function listTemplatePipelines(
  client: KubeClient,
  apis: TektonApis,
  namespace: string,
): Promise<TektonPipeline[]> {
  const pipelines = await client.list(apis.pipelines, namespace) as TektonPipeline[];
  if (pipelines.length === 0) {
    throw new NoTemplatePipelinesError(namespace, apis.pipelinesVersion);
  }
  return pipelines.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/**
 * The pipelines made for `runtime`: those whose runtime and builder annotations are absent or
 * equal to it. When none is, or the runtime is unknown, every pipeline.
 */
export function pipelinesForRuntime(
  pipelines: readonly TektonPipeline[],
  runtime: Runtime | undefined,
): { candidates: TektonPipeline[]; filtered: boolean } {
  if (!runtime) return { candidates: [...pipelines], filtered: false };
  const fits = pipelines.filter((p) => {
    const a = p.metadata.annotations ?? {};
    const r = a[RUNTIME_ANNOTATION];
    const b = a[BUILDER_ANNOTATION];
    return (!r || r === runtime.runtime) && (!b || b === runtime.builder);
  });
  return fits.length > 0
    ? { candidates: fits, filtered: true }
    : { candidates: [...pipelines], filtered: false };
}

/** How {@link choosePipeline} chooses among several candidates. */
export interface PipelineChoice {
  /** `--pipeline NAME`: this one, which must be a template. */
  readonly name?: string | undefined;
  /** Asks the user (on a terminal); absent without one. */
  readonly choose?: (names: readonly string[]) => Promise<string>;
}

/**
 * The template pipeline to use: `--pipeline` (among all templates), else the only candidate,
 * else the user's choice; without a way to ask, a usage error listing the candidates.
 */
export async function choosePipeline(
  templates: readonly TektonPipeline[],
  candidates: readonly TektonPipeline[],
  choice: PipelineChoice,
): Promise<TektonPipeline> {
  if (choice.name !== undefined) {
    const named = templates.find((p) => p.metadata.name === choice.name);
    if (!named) {
      throw new UsageError(
        `There is no template pipeline "${choice.name}": choose one of ${
          templates.map((p) => p.metadata.name).join(", ")
        } with --pipeline`,
      );
    }
    return named;
  }
  if (candidates.length === 1) return candidates[0]!;
  const names = candidates.map((p) => p.metadata.name);
  if (!choice.choose) {
    throw new UsageError(
      `Several template pipelines fit: ${names.join(", ")}; choose one with --pipeline NAME`,
    );
  }
  const chosen = await choice.choose(names);
  return candidates.find((p) => p.metadata.name === chosen)!;
}

/** A parameter to answer: what the template says of it. */
export interface TemplateParam {
  readonly name: string;
  readonly description: string;
  /** The default, as text; undefined when there is none. */
  readonly default: string | undefined;
  /** Whether its default is `true` or `false` (asked as yes/no). */
  readonly boolean: boolean;
}

/** The parameters of a template a user answers: all but `git-url` and `git-revision`. */
export function templateParams(pipeline: TektonPipeline): TemplateParam[] {
  return (pipeline.spec?.params ?? []).filter((p) => !GIT_PARAMS.includes(p.name)).map((p) => {
    const text = typeof p.default === "string"
      ? p.default
      : p.default === undefined
      ? undefined
      : JSON.stringify(p.default);
    return {
      name: p.name,
      description: p.description ?? "",
      default: text,
      boolean: text === "true" || text === "false",
    };
  });
}

/**
 * The answers to a template's parameters: `given` (`-p`) first, then `ask` (a terminal), then
 * the default. A `-p` the template does not declare, or a parameter without default nor answer,
 * is a usage error naming the parameters.
 */
export async function answerParams(
  params: readonly TemplateParam[],
  given: ReadonlyMap<string, string>,
  ask?: (param: TemplateParam) => Promise<string>,
): Promise<Map<string, string>> {
  const known = new Set(params.map((p) => p.name));
  const unknown = [...given.keys()].filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new UsageError(
      `The pipeline has no parameter ${
        unknown.map((u) => `"${u}"`).join(", ")
      }: its parameters are ${
        params.map((p) => p.name).join(", ") || "none (besides git-url and git-revision)"
      }`,
    );
  }
  const answers = new Map<string, string>();
  for (const param of params) {
    const value = given.get(param.name) ?? (ask ? await ask(param) : param.default);
    if (value === undefined) {
      throw new UsageError(
        `The pipeline parameter "${param.name}" has no default: pass -p ${param.name}=VALUE`,
      );
    }
    answers.set(param.name, value);
  }
  return answers;
}
