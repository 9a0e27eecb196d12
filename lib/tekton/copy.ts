/**
 * Copying a template pipeline into the namespace a repository builds in: the Tasks it references
 * (not all Tasks of the template namespace, as igc copied), then the Pipeline itself under the
 * repository's name with the answered parameters as its defaults. Copies drop what the server
 * assigned to the originals and the Argo CD instance labels (`copyForNamespace`), so Argo CD does
 * not prune them; they are written with server-side apply, so a second run changes nothing.
 *
 * @module
 */
import { applyObject, type ApplyResult, copyForNamespace, type KubeClient } from "../kube/mod.ts";
import { ToolkitError } from "../errors.ts";
import type { PipelineTask, TektonPipeline } from "./templates.ts";
import type { TektonApis } from "./versions.ts";

const MAX_NAME = 56;

/**
 * The pipeline's name for a repository, igc's rule: lowercase, dots and other characters a name
 * cannot hold turned into `-`, runs of `-` collapsed; past 56 characters, the `-`-separated
 * words are cut to their first letter from the left until it fits (then it is cut).
 */
export function pipelineNameFor(repo: string): string {
  let name = repo.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (name === "") name = "pipeline";
  const words = name.split("-");
  for (let i = 0; i < words.length - 1 && words.join("-").length > MAX_NAME; i++) {
    words[i] = words[i]!.slice(0, 1);
  }
  name = words.join("-").slice(0, MAX_NAME).replace(/-+$/, "");
  return /^[a-z]/.test(name) ? name : `p-${name}`.slice(0, MAX_NAME);
}

/** The names of the namespaced Tasks a pipeline references (tasks and finally). */
export function referencedTasks(pipeline: TektonPipeline): string[] {
  const all: PipelineTask[] = [...(pipeline.spec?.tasks ?? []), ...(pipeline.spec?.finally ?? [])];
  const names = all.flatMap((t) => {
    const ref = t.taskRef;
    if (!ref?.name || ref.resolver) return [];
    return (ref.kind ?? "Task") === "Task" ? [ref.name] : [];
  });
  return [...new Set(names)].sort();
}

/** A Task the template pipeline references is not in the template namespace. */
export class MissingTaskError extends ToolkitError {
  /** Creates the error. */
  constructor(pipeline: string, namespace: string, tasks: readonly string[]) {
    super(
      `The template pipeline "${pipeline}" uses Task(s) ${
        tasks.map((t) => `"${t}"`).join(", ")
      } that namespace "${namespace}" does not have: install them there`,
    );
    this.name = "MissingTaskError";
  }
}

/** What {@link copyPipeline} copies. */
export interface PipelineCopy {
  /** The template namespace. */
  readonly from: string;
  /** The namespace the repository builds in. */
  readonly to: string;
  /** The template pipeline. */
  readonly template: TektonPipeline;
  /** The copy's name ({@link pipelineNameFor}). */
  readonly name: string;
  /** The answered parameters: the copy's defaults. */
  readonly params: ReadonlyMap<string, string>;
  /** Labels added to every copy (`app: <name>`). */
  readonly labels?: Readonly<Record<string, string>>;
}

/** The objects {@link copyPipeline} writes, without writing them (for `--dry-run`). */
export async function pipelineCopies(
  client: KubeClient,
  apis: TektonApis,
  copy: PipelineCopy,
): Promise<{ tasks: ReturnType<typeof copyForNamespace>[]; pipeline: TektonPipeline }> {
  const wanted = referencedTasks(copy.template);
  const tasks = await Promise.all(
    wanted.map((name) => client.read(apis.tasks, copy.from, name).then((t) => [name, t] as const)),
  );
  const missing = tasks.filter(([, t]) => !t).map(([name]) => name);
  if (missing.length > 0) {
    throw new MissingTaskError(copy.template.metadata.name, copy.from, missing);
  }
  const withLabels = <T extends { metadata: { labels?: Record<string, string> } }>(o: T): T => {
    if (copy.labels) o.metadata.labels = { ...o.metadata.labels, ...copy.labels };
    return o;
  };
  const taskCopies = tasks.map(([, t]) => withLabels(copyForNamespace(apis.tasks, t!, copy.to)));
  const pipeline = withLabels(
    copyForNamespace(apis.pipelines, copy.template, copy.to, copy.name) as TektonPipeline,
  );
  if (pipeline.spec?.params) {
    pipeline.spec.params = pipeline.spec.params.map((p) =>
      copy.params.has(p.name) ? { ...p, default: copy.params.get(p.name) } : p
    );
  }
  return { tasks: taskCopies, pipeline };
}

/** Copies the referenced Tasks, then the Pipeline; each result in order. */
export async function copyPipeline(
  client: KubeClient,
  apis: TektonApis,
  copy: PipelineCopy,
): Promise<ApplyResult[]> {
  const { tasks, pipeline } = await pipelineCopies(client, apis, copy);
  const results = await Promise.all(tasks.map((t) => applyObject(client, apis.tasks, t)));
  results.push(await applyObject(client, apis.pipelines, pipeline));
  return results;
}
