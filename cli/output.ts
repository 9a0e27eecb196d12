/**
 * Printing data in the format asked for with `-o`: JSON (two-space indented), YAML (quoted so
 * YAML 1.1 readers such as kubectl read strings back as strings), or text written by the
 * command itself.
 *
 * @module
 */
import { stringify } from "yaml";
import type { TextSink } from "./io.ts";
import { UsageError } from "../lib/errors.ts";

/** The formats of `-o`. */
export type OutputFormat = "text" | "json" | "yaml";

/** Reads `-o`/`--output` from parsed arguments, checking it against `allowed`. */
export function outputFormat(
  args: Readonly<Record<string, unknown>>,
  allowed: readonly OutputFormat[],
  fallback: OutputFormat,
): OutputFormat {
  const value = args.output ?? fallback;
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(
      `Cannot print as "${String(value)}": use -o ${allowed.join(", -o ")}`,
    );
  }
  return value as OutputFormat;
}

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
