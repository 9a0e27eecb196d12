/**
 * Printing data in the format asked for with `-o`: JSON (two-space indented), YAML (quoted so
 * YAML 1.1 readers such as kubectl read strings back as strings), or text written by the
 * command itself; and the one shape of what a command that changes objects did
 * ({@linkcode reportData}, docs/cli.md): `results` (kind, apiVersion, namespace, name, outcome of
 * each object) and `failures` (the same, with the error), besides the command's own fields.
 *
 * @module
 */
import { stringify } from "yaml";
import type { CliIO, TextSink } from "./io.ts";
import type { ResourceType } from "../lib/kube/mod.ts";

/** The formats of `-o`. */
export type OutputFormat = "text" | "json" | "yaml";

/** Formats data as JSON or YAML. */
export function formatData(data: unknown, format: "json" | "yaml"): string {
  return format === "json"
    ? `${JSON.stringify(data, null, 2)}\n`
    : stringify(data, { version: "1.1", lineWidth: 0 });
}

/** Writes data as JSON or YAML; for text, calls `text` to write it. */
export function printData(
  sink: TextSink,
  format: OutputFormat,
  data: unknown,
  text: () => string,
): void {
  sink.write(format === "text" ? text() : formatData(data, format));
}

/** Which object: its type, namespace and name. */
export interface ObjectRef {
  readonly type: ResourceType;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** What a command that writes or removes objects did, as data for `-o json|yaml`. */
export interface WriteReport {
  /** Each object written (or removed, or left), with what happened to it. */
  readonly results: readonly (ObjectRef & { readonly outcome: string })[];
  /** Each object that could not be written, with why. */
  readonly failures?: readonly (ObjectRef & { readonly error: unknown })[];
}

/** An object as results name it: kind, apiVersion, namespace (when namespaced), name. */
export function objectData(ref: ObjectRef): Record<string, string> {
  const { type } = ref;
  return {
    kind: type.kind,
    apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
    ...(type.namespaced && ref.namespace ? { namespace: ref.namespace } : {}),
    name: ref.name,
  };
}

/** `ConfigMap "dev/app-config"`: an object as messages name it. */
function objectLabel(ref: ObjectRef): string {
  const where = ref.type.namespaced && ref.namespace ? `${ref.namespace}/` : "";
  return `${ref.type.kind} "${where}${ref.name}"`;
}

/**
 * The data of a {@linkcode WriteReport}, the one shape of every command's result: `results` with
 * the kind, apiVersion, namespace, name and outcome of each object, and `failures` with the same
 * and the error (and `object`, the object as messages name it).
 */
export function reportData(report: WriteReport): Record<string, unknown> {
  return {
    results: report.results.map((r) => ({ ...objectData(r), outcome: r.outcome })),
    failures: (report.failures ?? []).map((f) => ({
      ...objectData(f),
      object: objectLabel(f),
      error: f.error instanceof Error ? f.error.message : String(f.error),
    })),
  };
}

/**
 * Prints what a command did on stdout as JSON or YAML when `-o` asks for it (with `extra` fields
 * of the command's own); without `-o`, prints nothing (the messages went to stderr).
 */
export function printReport(
  io: CliIO,
  output: "json" | "yaml" | "text" | undefined,
  report: WriteReport,
  extra: Record<string, unknown> = {},
): void {
  if (!output || output === "text") return;
  io.stdout.write(formatData({ ...extra, ...reportData(report) }, output));
}
