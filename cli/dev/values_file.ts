/**
 * The `--values FILE` of `git-secret` and `gitops`: extra attributes for the git secret, as a
 * flat YAML or JSON mapping, or a Java `.properties` file (igc read JSON or properties only, and
 * called it YAML). Values must be scalars; keys must be valid Secret keys.
 *
 * @module
 */
import { ToolkitError } from "../../lib/errors.ts";

/** A values file that cannot be read or is not a flat mapping of scalars. */
export class ValuesFileError extends ToolkitError {
  /** Creates the error for the file. */
  constructor(file: string, detail: string, options?: ErrorOptions) {
    super(`Cannot read values file "${file}": ${detail}`, options);
    this.name = "ValuesFileError";
  }
}

const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

/** Parses `.properties` text: `key=value` or `key: value` lines, `#`/`!` comments. */
export function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.replace(/\\\r?\n\s*/g, "").split(/\r?\n/);
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    const m = /^((?:\\.|[^=:\s\\])+)\s*(?:[=:]\s*|\s+)?(.*)$/.exec(line);
    if (!m) continue;
    out[m[1]!.replace(/\\(.)/g, "$1")] = m[2]!;
  }
  return out;
}

function flatten(file: string, value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValuesFileError(file, "it is not a mapping of keys to values");
  }
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v !== null && typeof v === "object") {
      throw new ValuesFileError(file, `the value of "${key}" is not a string, number or boolean`);
    }
    out[key] = v === null || v === undefined ? "" : String(v);
  }
  return out;
}

/** Parses the text of a values file named `file`. */
export async function parseValues(file: string, text: string): Promise<Record<string, string>> {
  let values: Record<string, string>;
  if (file.endsWith(".properties")) {
    values = parseProperties(text);
  } else {
    const { parseYaml } = await import("../../lib/yaml.ts");
    let parsed: unknown;
    try {
      parsed = parseYaml(text);
    } catch (error) {
      throw new ValuesFileError(file, "it is not valid YAML or JSON", { cause: error });
    }
    values = parsed === null || parsed === undefined
      ? {}
      : typeof parsed === "string" && /^[^=\s]+\s*=/.test(text.trim())
      ? parseProperties(text)
      : flatten(file, parsed);
  }
  for (const key of Object.keys(values)) {
    if (!SECRET_KEY.test(key)) {
      throw new ValuesFileError(
        file,
        `"${key}" is not a valid key (letters, digits, '-', '_' and '.' only)`,
      );
    }
  }
  return values;
}

/** Reads and parses a values file. */
export async function readValuesFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new ValuesFileError(
      path,
      error instanceof Deno.errors.NotFound ? "no such file" : "it cannot be read",
      { cause: error },
    );
  }
  return await parseValues(path, text);
}
