/**
 * Tekton Pipelines' own code for tests, built by `tests/env/provision.sh` from
 * `github.com/tektoncd/pipeline` at the version whose CRDs the test environment installs
 * (`tests/env/tekton-pipeline/main.go`), and a way to run a TaskRun's step here as a process. No
 * Tekton controller runs on these machines, and a PipelineRun cannot start Pods; what Tekton would
 * do is done by Tekton's code where it decides something, and by this module only where a kubelet
 * would act:
 *
 * - {@link tektonValidate}: the admission webhook's decoding (unknown fields refused),
 *   `SetDefaults` and `Validate` of v1 and v1beta1 Tasks and Pipelines;
 * - {@link pipelineTaskRun}: the TaskRun the PipelineRun reconciler makes for one pipeline task
 *   (params, context variables and earlier tasks' results applied with Tekton's functions);
 * - {@link taskRunPod}: the Pod the TaskRun reconciler makes (Tekton's substitutions and pod
 *   builder);
 * - {@link runStep}: one step container of that Pod run as a local process, as a kubelet would
 *   run it: the command and arguments Tekton's entrypoint would exec (`-entrypoint X -- ARGS`),
 *   exactly the container's environment, its volumes made as directories (Secret volumes as one
 *   file an entry, missing optional Secrets as empty directories, emptyDirs and workspaces as
 *   directories) and every path of the container rewritten under one root directory. The
 *   container's `readOnlyRootFilesystem` is kept: the process may write only to its writable
 *   volumes (Deno's `--allow-write` names them); `runAsNonRoot` and the user are checked, not
 *   applied (the test runs as whoever runs it).
 *
 * @module
 */
import { run } from "./process.ts";
import { requireTool } from "./tools.ts";

/** A Kubernetes object as JSON. */
// deno-lint-ignore no-explicit-any
export type Json = any;

async function tektonPipeline(mode: string, input: unknown): Promise<Json> {
  const r = await run(requireTool("tekton-pipeline"), [mode], { stdin: JSON.stringify(input) });
  if (r.code !== 0) throw new Error(`tekton-pipeline ${mode}: ${(r.stderr || r.stdout).trim()}`);
  return JSON.parse(r.stdout);
}

/** Tekton's verdict on one object: `error` is "" when it is valid. */
export interface TektonVerdict {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly error: string;
}

/** Tekton's webhook decoding, defaulting and validation of each Task and Pipeline. */
export async function tektonValidate(objects: readonly unknown[]): Promise<TektonVerdict[]> {
  return await tektonPipeline("validate", { items: objects });
}

/** What {@link pipelineTaskRun} resolves. */
export interface PipelineTaskRunInput {
  readonly pipeline: Json;
  readonly pipelineRun: Json;
  /** The pipeline task whose TaskRun is made. */
  readonly pipelineTask: string;
  /** The results of the tasks that ran before it: `{task: {result: value}}`. */
  readonly results: Record<string, Record<string, string>>;
}

/** The TaskRun Tekton's PipelineRun reconciler makes for one task of the run. */
export async function pipelineTaskRun(input: PipelineTaskRunInput): Promise<Json> {
  return await tektonPipeline("pipeline-taskrun", input);
}

/** The Pod Tekton's TaskRun reconciler makes for `taskRun` of `task`. */
export async function taskRunPod(task: Json, taskRun: Json): Promise<Json> {
  return await tektonPipeline("taskrun-pod", { task, taskRun });
}

/** How {@link runStep} runs a step. */
export interface StepRun {
  /** The Pod of {@link taskRunPod}. */
  readonly pod: Json;
  /** The step's name (`sign`: the container `step-sign`). */
  readonly step: string;
  /** The Secrets of the Pod's namespace, by name (their `data` in base64, as the API has it). */
  readonly secrets: Readonly<Record<string, Json>>;
  /**
   * Directories standing for the volumes mounted at these paths (a workspace's volume, whose
   * name Tekton makes up); any other emptyDir of the Pod is a new directory.
   */
  readonly volumes?: Readonly<Record<string, string>>;
  /**
   * How the container's command runs here: `[program, ...args]` for an absolute command path
   * of the image (`/usr/local/bin/toolkit` → `deno run … cli/main.ts`). `writable` are the
   * directories the process may write to.
   */
  readonly commands: Readonly<
    Record<string, (writable: readonly string[]) => readonly string[]>
  >;
  /** Variables the runtime itself needs (Deno's cache), added to the container's. */
  readonly runtimeEnv?: Readonly<Record<string, string>>;
}

/** What a step did. */
export interface StepResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The files of `/tekton/results` (the task's results). */
  readonly results: Record<string, string>;
  /** The exact command line and environment the process ran with. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The local directory of each of the container's mount paths. */
  readonly mounts: Readonly<Record<string, string>>;
  /** The directory under which the container's paths were made; removed by `dispose`. */
  readonly root: string;
  /** Removes {@link root}. */
  dispose(): Promise<void>;
}

function decode(value: string): Uint8Array {
  return Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
}

/** Runs one step of `pod` as a local process (see the module's description). */
export async function runStep(options: StepRun): Promise<StepResult> {
  const { pod } = options;
  const container = (pod.spec.containers as Json[]).find((c) => c.name === `step-${options.step}`);
  if (!container) throw new Error(`the Pod has no step "${options.step}"`);
  const security = container.securityContext ?? {};
  if (security.runAsNonRoot !== true || !(security.runAsUser > 0)) {
    throw new Error(`step ${options.step} does not run as a non-root user`);
  }
  const root = await Deno.makeTempDir({ prefix: "toolkit-step-" });
  const volumes = new Map<string, Json>((pod.spec.volumes as Json[]).map((v) => [v.name, v]));
  const mounts: Record<string, string> = {};
  const writable: string[] = [];
  for (const mount of container.volumeMounts as Json[]) {
    const volume = volumes.get(mount.name);
    if (!volume) throw new Error(`volume ${mount.name} is not in the Pod`);
    const bound = options.volumes?.[mount.mountPath];
    const dir = bound ?? `${root}${mount.mountPath}`;
    await Deno.mkdir(dir, { recursive: true });
    if (volume.secret && !bound) {
      const secret = options.secrets[volume.secret.secretName];
      if (!secret && volume.secret.optional !== true) {
        throw new Error(`Secret "${volume.secret.secretName}" not found (the kubelet would wait)`);
      }
      for (const [key, value] of Object.entries(secret?.data ?? {})) {
        await Deno.writeFile(`${dir}/${key}`, decode(value as string), { mode: 0o444 });
      }
    } else if (!volume.emptyDir && !volume.persistentVolumeClaim && !bound) {
      if (!volume.downwardAPI) throw new Error(`volume ${mount.name}: kind not handled here`);
    }
    mounts[mount.mountPath] = dir;
    if (!mount.readOnly && !volume.secret) writable.push(dir);
  }
  const rewrite = (value: string): string => {
    let best = "";
    for (const path of Object.keys(mounts)) {
      if (
        (value === path || value.includes(`${path}/`) || value.endsWith(path)) &&
        path.length > best.length
      ) best = path;
    }
    return best ? value.replace(best, mounts[best]!) : value;
  };

  const args = container.args as string[];
  const at = args.indexOf("-entrypoint");
  const separator = args.indexOf("--");
  if (container.command?.[0] !== "/tekton/bin/entrypoint" || at < 0 || separator < at) {
    throw new Error("the step is not run by Tekton's entrypoint with a command");
  }
  const command = args[at + 1]!;
  const stepArgs = args.slice(separator + 1).map(rewrite);
  const program = options.commands[command];
  if (!program) throw new Error(`no local program for the image's ${command}`);
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    if (variable.valueFrom) throw new Error(`env ${variable.name}: valueFrom not handled here`);
    env[variable.name] = rewrite(variable.value ?? "");
  }
  const argv = [...program(writable), ...stepArgs];
  const r = await run(argv[0]!, argv.slice(1), {
    env: { ...env, ...options.runtimeEnv },
    cwd: mounts[container.workingDir ?? ""] ?? root,
  });
  const results: Record<string, string> = {};
  const resultsDir = mounts["/tekton/results"];
  if (resultsDir) {
    for await (const entry of Deno.readDir(resultsDir)) {
      results[entry.name] = await Deno.readTextFile(`${resultsDir}/${entry.name}`);
    }
  }
  return {
    code: r.code,
    stdout: r.stdout,
    stderr: r.stderr,
    results,
    argv,
    env,
    mounts,
    root,
    dispose: () => Deno.remove(root, { recursive: true }).catch(() => {}),
  };
}
