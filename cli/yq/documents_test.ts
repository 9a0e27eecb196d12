import assert from "node:assert/strict";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { chosenIndices, editDocuments, EditResultError, parseDocumentChoice } from "./documents.ts";
import { locate } from "./locate.ts";
import { parsePath } from "./path.ts";

Deno.test("parseDocumentChoice() reads -d N (from 0) and -d '*'", () => {
  assert.equal(parseDocumentChoice("0"), 0);
  assert.equal(parseDocumentChoice("12"), 12);
  assert.equal(parseDocumentChoice("*"), "all");
  for (const bad of ["-1", "x", "1.5", ""]) {
    assert.throws(() => parseDocumentChoice(bad), UsageError, bad);
  }
});

Deno.test("chosenIndices() names the documents a file has when -d is out of range", () => {
  assert.deepEqual(chosenIndices("all", 3, "f"), [0, 1, 2]);
  assert.deepEqual(chosenIndices(1, 3, "f"), [1]);
  assert.throws(
    () => chosenIndices(3, 2, "f.yaml"),
    (e: unknown) =>
      e instanceof ToolkitError &&
      e.message === 'Cannot find document 3 of "f.yaml": it has 2 documents (0 to 1)',
  );
});

Deno.test("editDocuments() edits only the chosen documents, and refuses an orphaned alias", () => {
  const text = "a: 1 # one\n---\na: 2\n...\n---\na: 3\n";
  const docs = parseYamlStream(text);
  const write = (indices: number[]) =>
    editDocuments(text, docs, indices, "write", (editor) => {
      for (const f of locate(editor.doc, parsePath("a"), "write").found) {
        editor.writeScalar(f.place, "9", undefined);
      }
    });
  assert.equal(write([1]), "a: 1 # one\n---\na: 9\n...\n---\na: 3\n");
  assert.equal(write([0, 2]), "a: 9 # one\n---\na: 2\n...\n---\na: 9\n");
  assert.equal(write([]), text);
  const linked = "a: &x 1\nb: *x\n";
  assert.throws(
    () =>
      editDocuments(linked, parseYamlStream(linked), [0], 'delete "a"', (editor) => {
        editor.delete(locate(editor.doc, parsePath("a"), "delete").found.map((f) => f.place));
      }),
    (e: unknown) =>
      e instanceof EditResultError &&
      e.message.startsWith('Cannot delete "a": an alias elsewhere in the document refers'),
  );
});
