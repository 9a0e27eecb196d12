/**
 * The documents of a multi-document YAML stream a `toolkit yq` command works on (`-d N`,
 * counted from 0 as yq does, or `-d '*'` for all of them), and the edit of a stream: each chosen
 * document edited on the original text, the edits applied together, and the result checked to
 * be YAML that parses before anything is written.
 *
 * @module
 */
import type { Document } from "yaml";
import { InputSyntaxError, ToolkitError, UsageError } from "../../lib/errors.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { applyEdits } from "./edits.ts";
import { DocumentEditor } from "./editor.ts";
import { detectStyle, RawTexts } from "./render.ts";

/** Which documents: one (0-based) or all. */
export type DocumentChoice = number | "all";

/** Reads `-d`: a document number from 0, or `*`. */
export function parseDocumentChoice(text: string): DocumentChoice {
  if (text === "*") return "all";
  if (!/^[0-9]+$/.test(text)) {
    throw new UsageError(`-d must be a document number (0 is the first) or '*', not "${text}"`);
  }
  return Number(text);
}

/** The indices of the chosen documents of a stream of `count` documents from `name`. */
export function chosenIndices(choice: DocumentChoice, count: number, name: string): number[] {
  if (choice === "all") return Array.from({ length: count }, (_, i) => i);
  if (choice >= count) {
    throw new ToolkitError(
      `Cannot find document ${choice} of "${name}": it has ${count} document${
        count === 1 ? "" : "s"
      }${count > 0 ? ` (0 to ${count - 1})` : ""}`,
    );
  }
  return [choice];
}

/** An edit that would leave the stream invalid. */
export class EditResultError extends ToolkitError {
  /** Creates the error for what the command was doing. */
  constructor(what: string, detail: string, options?: ErrorOptions) {
    super(`Cannot ${what}: ${detail}`, options);
    this.name = "EditResultError";
  }
}

/**
 * Edits the documents `indices` of the stream `text` (parsed as `docs`) with `edit`, and
 * returns the new text. `what` names the change for an error (`write "a.b" in "f.yaml"`);
 * `indent` is the indentation of what is added where the file shows none.
 *
 * @throws {EditResultError} when the result would not parse (an alias left without its anchor).
 */
export function editDocuments(
  text: string,
  docs: readonly Document.Parsed[],
  indices: readonly number[],
  what: string,
  edit: (editor: DocumentEditor, index: number) => void,
  indent = 2,
): string {
  const raw = new RawTexts();
  const edits = [];
  for (const index of indices) {
    const doc = docs[index]!;
    const editor = new DocumentEditor(text, doc, detectStyle(text, doc, indent), raw);
    edit(editor, index);
    edits.push(...editor.edits);
  }
  if (edits.length === 0) return text;
  const result = applyEdits(text, edits);
  try {
    parseYamlStream(result);
  } catch (error) {
    if (error instanceof InputSyntaxError && error.code === "BAD_ALIAS") {
      throw new EditResultError(
        what,
        "an alias elsewhere in the document refers to an anchor that would go",
        { cause: error },
      );
    }
    throw new EditResultError(what, "the result would not be valid YAML (a bug in toolkit)", {
      cause: error,
    });
  }
  return result;
}
