/**
 * The YAML a `toolkit yq` command works on, and where its result goes: a file or standard
 * input (`-`) in; standard output, or with `-i` the file itself, out. An in-place write goes
 * through lib/file_write.ts: a temporary file in the same directory and a rename (a reader
 * never sees half a file), the file's mode kept, through a symbolic link to the file it names
 * (the link stays), and refused when another program changed the file since it was read. The
 * file is not touched when nothing changed.
 *
 * @module
 */
import type { Document } from "yaml";
import type { CliIO } from "../io.ts";
import { InputSyntaxError, ToolkitError, UsageError } from "../../lib/errors.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { type FileSnapshot, readFileForUpdate, writeFileSafely } from "../../lib/file_write.ts";

/** YAML text and where it came from. */
export interface YamlSource {
  /** The name to show: the file as given, or `standard input`. */
  readonly name: string;
  /** The file's path (absolute); `undefined` for standard input. */
  readonly path: string | undefined;
  /** The text. */
  readonly text: string;
  /** What was read of the file, for refusing to replace it once changed; none for stdin. */
  readonly snapshot?: FileSnapshot;
}

/** A file that cannot be read or written. */
export class YamlFileError extends ToolkitError {
  /** Creates the error: `action` (`read`, `write`) of `name` failed for `detail`. */
  constructor(action: string, name: string, detail: string, options?: ErrorOptions) {
    super(`Cannot ${action} "${name}": ${detail}`, options);
    this.name = "YamlFileError";
  }
}

function resolvePath(cwd: string, path: string): string {
  return path.startsWith("/") ? path : `${cwd}/${path}`;
}

/** The error of `action` on `name`: a known reason in words, else the system's error as cause. */
function fileError(action: string, name: string, error: unknown): YamlFileError {
  if (error instanceof Deno.errors.NotFound) return new YamlFileError(action, name, "no such file");
  if (error instanceof Deno.errors.PermissionDenied) {
    return new YamlFileError(action, name, "permission denied");
  }
  if (error instanceof Deno.errors.IsADirectory) {
    return new YamlFileError(action, name, "it is a directory");
  }
  if (error instanceof TypeError) return new YamlFileError(action, name, "it is not UTF-8 text");
  return new YamlFileError(action, name, "failed", { cause: error });
}

/** Reads `file` (`-`: standard input, which must not be a terminal). */
export async function readSource(io: CliIO, file: string): Promise<YamlSource> {
  if (file === "-") {
    if (io.interactive) {
      throw new UsageError("Give a file, or pipe YAML to standard input (-)");
    }
    return { name: "standard input", path: undefined, text: await io.readStdin() };
  }
  const path = resolvePath(io.cwd, file);
  try {
    const { bytes, snapshot } = await readFileForUpdate(path);
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return { name: file, path, text, snapshot };
  } catch (error) {
    throw fileError("read", file, error);
  }
}

/** The documents of a source, for editing. A text that is not YAML is named by its source. */
export function parseSource(source: YamlSource): Document.Parsed[] {
  try {
    return parseYamlStream(source.text);
  } catch (error) {
    if (error instanceof InputSyntaxError) {
      throw new YamlFileError("read", source.name, error.message, { cause: error });
    }
    throw error;
  }
}

/** Refuses `-i` on standard input, before any work is done. */
export function checkInPlace(file: string, inPlace: boolean): void {
  if (inPlace && file === "-") {
    throw new UsageError("-i/--inplace needs a file; standard input cannot be edited in place");
  }
}

/**
 * Writes the result `text` of a command on `source`: to standard output, or with `inPlace`
 * to the file itself (only when it changed). Returns whether the file was written.
 */
export async function writeResult(
  io: CliIO,
  source: YamlSource,
  text: string,
  inPlace: boolean,
): Promise<boolean> {
  if (!inPlace) {
    io.stdout.write(text);
    return false;
  }
  if (source.path === undefined) checkInPlace("-", true);
  if (text === source.text) return false;
  await writeFileSafely(source.path!, text, {
    name: source.name,
    ...(source.snapshot ? { expected: source.snapshot } : {}),
  });
  return true;
}
