/**
 * What the commands that work in a cluster share: the namespace to work in, the step logger
 * that writes messages to stderr, and the per-object results of a batch as data. (The client
 * itself comes from the command's context: `ctx.kube(options)`.)
 *
 * @module
 */
import type { CommonOptions } from "../options.ts";
import { type CliIO, paint } from "../io.ts";
import type { ObjectRef } from "../output.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import {
  type ApplyResult,
  describeObject,
  type KubeClient,
  mapLimit,
  namespaceNameProblem,
  NAMESPACES,
  NoClusterContextError,
  PROJECTS,
} from "../../lib/kube/mod.ts";

/** A directory given by the user, relative to the command's working directory. */
export function resolveDir(io: CliIO, dir: string | undefined): string {
  if (!dir) return io.cwd;
  return dir.startsWith("/") ? dir : `${io.cwd.replace(/\/$/, "")}/${dir}`;
}

/** Checks a namespace name given by the user. */
export function checkNamespaceName(name: string, what = "namespace"): string {
  const problem = namespaceNameProblem(name);
  if (problem) throw new UsageError(`Invalid ${what} "${name}": ${problem}`);
  return name;
}

/**
 * The namespace to work in, its name checked: `-n`, else `fallback`, a namespace or a cluster
 * whose context's namespace it is (else `default`, as kubectl does; igc treated a context
 * namespace of `default` as not set). The one reading of `-n` (flags.ts, `NAMESPACE`).
 */
export function namespaceOf(
  given: string | undefined,
  fallback: Pick<KubeClient, "namespace"> | string,
): string {
  const absent = typeof fallback === "string" ? fallback : fallback.namespace || "default";
  return checkNamespaceName(given || absent);
}

/**
 * Fails with a clear message when `namespace` does not exist. A user who may not read
 * namespaces (403) is let through: the later requests will say what is wrong.
 */
export async function requireNamespace(client: KubeClient, namespace: string): Promise<void> {
  try {
    if (await client.read(NAMESPACES, undefined, namespace)) return;
  } catch (error) {
    if (error instanceof NoClusterContextError) throw error;
    if (await client.isOpenShift().catch(() => false)) {
      if (await client.read(PROJECTS, undefined, namespace).catch(() => true)) return;
    } else return;
  }
  throw new NamespaceNotFoundError(namespace);
}

/** Like {@linkcode requireNamespace}, naming the namespace the template namespace. */
export async function requireTemplateNamespace(
  client: KubeClient,
  template: string,
): Promise<void> {
  try {
    await requireNamespace(client, template);
  } catch (error) {
    if (error instanceof NamespaceNotFoundError) {
      throw new NamespaceNotFoundError(template, "template namespace");
    }
    throw error;
  }
}

/** The namespace a command was pointed at does not exist. */
export class NamespaceNotFoundError extends ToolkitError {
  /** Creates the error for the namespace. */
  constructor(namespace: string, what = "namespace") {
    super(`Cannot find ${what} "${namespace}": it does not exist in the cluster`);
    this.name = "NamespaceNotFoundError";
  }
}

/** The labels of the objects `tool-config` makes for a tool (`<name>-config`, `<name>-access`),
 * and other tools' Secrets (`image-signing`): `sync` copies them, `credentials` lists them. */
export function toolLabels(objectName: string): Record<string, string> {
  return {
    "app.kubernetes.io/name": objectName,
    "app.kubernetes.io/part-of": "catalyst",
    "app.kubernetes.io/component": "tools",
    group: "catalyst-tools",
    grouping: "garage-cloud-native-toolkit",
  };
}

/** Writes messages (never data) to stderr. */
export interface Logger {
  /** A message shown always (unless `--quiet`). */
  info(message: string): void;
  /** A step, shown only with `--verbose`/`--debug`. */
  step(message: string): void;
  /** A warning, shown always. */
  warn(message: string): void;
  /** The outcome of a write: shown with `--verbose`, or always when something changed. */
  result(result: ApplyResult, quietUnchanged?: boolean): void;
  /** A write that failed: shown always (even with `--quiet`), with the reason. */
  failed(failure: WriteFailure): void;
}

/** One object of a batch that could not be written. */
export interface WriteFailure extends ObjectRef {
  /** The object, as `describeObject` names it (`ConfigMap "dev/x"`). */
  readonly object: string;
  /** Why. */
  readonly error: unknown;
}

/**
 * Writes each item of a batch with at most `limit` writes at once, and keeps going when one
 * fails: the results of those that were written, in order, and the failures, each named. A
 * cluster that cannot be reached, or refuses the credentials, stops the batch with that error.
 */
export async function writeEach<T>(
  items: readonly T[],
  limit: number,
  refOf: (item: T) => ObjectRef,
  write: (item: T) => Promise<ApplyResult>,
): Promise<{ results: ApplyResult[]; failures: WriteFailure[] }> {
  const outcomes = await mapLimit(
    items,
    limit,
    async (item): Promise<ApplyResult | WriteFailure> => {
      try {
        return await write(item);
      } catch (error) {
        // A cluster that cannot be reached or refuses the credentials fails every item alike.
        if (error instanceof NoClusterContextError) throw error;
        const ref = refOf(item);
        return { ...ref, object: describeObject(ref.type, ref.namespace, ref.name), error };
      }
    },
  );
  const results: ApplyResult[] = [];
  const failures: WriteFailure[] = [];
  for (const o of outcomes) {
    if ("error" in o) failures.push(o);
    else results.push(o);
  }
  return { results, failures };
}

/** The error of a batch that went through with some failures: exit 1, naming each. */
export function batchFailed(failures: readonly WriteFailure[], done: number): ToolkitError {
  return new ToolkitError(
    `${failures.length} object(s) could not be written (${done} written): ${
      failures.map((f) => f.object).join(", ")
    }`,
  );
}

/** Makes the logger of a command from `--verbose`/`--debug` and `--quiet`. */
export function makeLogger(options: CommonOptions, io: CliIO): Logger {
  const { verbose, quiet } = options;
  const write = (text: string) => io.stderr.write(`${text}\n`);
  return {
    info: (m) => quiet || write(m),
    step: (m) => verbose && write(paint(io, "2", m)),
    warn: (m) => write(`${paint(io, "33", "warning:")} ${m}`),
    result(r, quietUnchanged = true) {
      const changed = r.outcome === "created" || r.outcome === "updated";
      if (quiet || (!changed && quietUnchanged && !verbose)) return;
      write(`  ${describeObject(r.type, r.namespace, r.name)} ${r.outcome}`);
    },
    failed(f) {
      const why = f.error instanceof Error ? f.error.message : String(f.error);
      write(`  ${f.object} ${paint(io, "31", "failed")}: ${why}`);
    },
  };
}

export { printReport, reportData, type WriteReport } from "../output.ts";

/** Reads a PEM file of CA certificates given by `flag`; a usage error when it holds none. */
export async function readCaFile(path: string, flag: string): Promise<string> {
  try {
    const text = await Deno.readTextFile(path);
    if (!text.includes("BEGIN CERTIFICATE")) {
      throw new UsageError(`${flag} "${path}" holds no PEM certificate`);
    }
    return text;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`Cannot read ${flag} "${path}"`, { cause: error });
  }
}
