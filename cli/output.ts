/**
 * Printing data in the format asked for with `-o`: JSON (two-space indented), YAML (quoted so
 * YAML 1.1 readers such as kubectl read strings back as strings), or text written by the
 * command itself.
 *
 * @module
 */
import { stringify } from "yaml";
import type { TextSink } from "./io.ts";

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
