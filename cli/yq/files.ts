/**
 * The YAML files of `toolkit yq`: read from a file or standard input (`-`), every document of a
 * multi-document stream kept, and written back the way they came: a stream with no change is
 * given back byte for byte; a changed one is written by the `yaml` package with the sequence
 * indentation the file used, flow collections without padding and no line folding, so comments,
 * key order, quoting and `---` boundaries stay. `-i` replaces the file through a temporary file
 * (its mode kept) and only when something changed.
 *
 * @module
 */
import { type Document, parseAllDocuments } from "yaml";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import type { CliIO } from "../io.ts";

/** A YAML stream as read. */
export interface YamlStream {
  /** Where it came from (`-` for standard input). */
  readonly source: string;
  /** The path of the file, for `-i`. */
  readonly path?: string;
  readonly text: string;
  readonly documents: Document[];
}

/** A file that cannot be read or parsed. */
export class YamlFileError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "YamlFileError";
  }
}

/** Reads and parses `file` (`-`: standard input). */
export async function readYaml(io: CliIO, file: string): Promise<YamlStream> {
  let text: string;
  let path: string | undefined;
  if (file === "-") {
    if (!io.readStdin) throw new UsageError("Cannot read standard input here");
    text = await io.readStdin();
  } else {
    path = file.startsWith("/") ? file : `${io.cwd.replace(/\/$/, "")}/${file}`;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new YamlFileError(`Cannot read "${file}": no such file`);
      }
      throw new YamlFileError(`Cannot read "${file}"`, { cause: error });
    }
  }
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) {
    return { source: file, ...(path ? { path } : {}), text, documents: [] };
  }
  for (const doc of documents) {
    const error = doc.errors[0];
    if (error) {
      throw new YamlFileError(`Cannot parse "${file}": ${error.message.split("\n")[0]}`);
    }
  }
  return { source: file, ...(path ? { path } : {}), text, documents };
}

/** The documents `-d` picks: an index (default 0) or `*` for all. */
export function pickDocuments(stream: YamlStream, which: string): Document[] {
  if (which === "*") return stream.documents;
  if (!/^\d+$/.test(which)) {
    throw new UsageError(`-d must be a document index or *, not "${which}"`);
  }
  const index = Number(which);
  if (stream.documents.length === 0 && index === 0) return [];
  const doc = stream.documents[index];
  if (!doc) {
    throw new UsageError(
      `"${stream.source}" has ${stream.documents.length} document(s): there is no document ${index}`,
    );
  }
  return [doc];
}

/** Whether the text indents block sequences under their key (`key:\n  - a`) or not. */
function indentsSequences(text: string): boolean {
  const unindented = /^(\s*)[^\s#-][^\n]*:\s*\n\1- /m.test(text);
  const indented = /^(\s*)[^\s#-][^\n]*:\s*\n\1\s+- /m.test(text);
  return indented || !unindented;
}

/** The stream as text: the documents written back, in the file's own sequence style. */
export function formatYaml(stream: YamlStream): string {
  const options = {
    indentSeq: indentsSequences(stream.text),
    flowCollectionPadding: false,
    lineWidth: 0,
  };
  return stream.documents.map((doc) => doc.toString(options)).join("");
}

/**
 * Writes `text` over the stream's file through a temporary file in the same directory, keeping
 * its mode; nothing is written when it is unchanged. Returns whether it was written.
 */
export async function writeInPlace(stream: YamlStream, text: string): Promise<boolean> {
  if (!stream.path) throw new UsageError("-i needs a file, not standard input");
  if (text === stream.text) return false;
  const mode = (await Deno.stat(stream.path)).mode ?? 0o644;
  const dir = stream.path.slice(0, stream.path.lastIndexOf("/")) || "/";
  const temp = await Deno.makeTempFile({ dir, prefix: ".yq-" });
  try {
    await Deno.writeTextFile(temp, text);
    await Deno.chmod(temp, mode & 0o7777);
    await Deno.rename(temp, stream.path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw new YamlFileError(`Cannot write "${stream.source}"`, { cause: error });
  }
  return true;
}
