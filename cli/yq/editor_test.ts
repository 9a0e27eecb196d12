import assert from "node:assert/strict";
import { YAMLMap, type YAMLSeq } from "yaml";
import { parseYamlStream } from "../../lib/yaml.ts";
import { applyEdits } from "./edits.ts";
import { DocumentEditor } from "./editor.ts";
import { locate, type Place } from "./locate.ts";
import { parsePath } from "./path.ts";
import { detectStyle } from "./render.ts";

/** The text after `change` edits the first document of `text`, checked to parse. */
function edited(text: string, change: (editor: DocumentEditor) => void): string {
  const doc = parseYamlStream(text)[0]!;
  const editor = new DocumentEditor(text, doc, detectStyle(text, doc));
  change(editor);
  const result = applyEdits(text, editor.edits);
  parseYamlStream(result);
  return result;
}

function placeOf(editor: DocumentEditor, path: string): Place {
  const found = locate(editor.doc, parsePath(path), "read").found;
  assert.equal(found.length, 1, path);
  return found[0]!.place;
}

const write = (text: string, path: string, value: string) =>
  edited(text, (e) => e.writeScalar(placeOf(e, path), value));

const remove = (text: string, path: string) =>
  edited(text, (e) => e.delete(locate(e.doc, parsePath(path), "delete").found.map((f) => f.place)));

Deno.test("writeScalar() changes only the scalar's characters", () => {
  const text = "# head\na:   &x 1.9   # keep\nb: 'q' # and this\n\nc: plain\n";
  assert.equal(
    write(text, "a", "1.10"),
    "# head\na:   &x 1.10   # keep\nb: 'q' # and this\n\nc: plain\n",
  );
  assert.equal(
    write(text, "b", "1.10"),
    "# head\na:   &x 1.9   # keep\nb: '1.10' # and this\n\nc: plain\n",
  );
  assert.equal(
    write(text, "c", "true"),
    "# head\na:   &x 1.9   # keep\nb: 'q' # and this\n\nc: 'true'\n",
  );
  assert.equal(write("a:\nb: 2\n", "a", "1"), "a: 1\nb: 2\n");
  assert.equal(write("- x\n- y # c\n", "[1]", "z"), "- x\n- z # c\n");
  assert.equal(write("m: {a: 1, b: 2}\n", "m.b", "x,y"), 'm: {a: 1, b: "x,y"}\n');
  assert.equal(write("just text # c\n", "", "other"), "other # c\n");
});

Deno.test("writeScalar() replaces a block with a scalar from the indicator on", () => {
  assert.equal(
    write("a: &x # note\n  b: 1\n  c: 2\nd: 3\n", "a", "v"),
    "a: &x v # note\nd: 3\n",
  );
  assert.equal(write("k: |\n  old\n  text\nn: 1\n", "k", "new"), "k: new\nn: 1\n");
  assert.equal(
    write("k: |\n  old\n  text\nn: 1\n", "k", "new\nlines\n"),
    "k: |\n  new\n  lines\nn: 1\n",
  );
  assert.equal(write("k: plain\nn: 1\n", "k", "two\nlines"), "k: |-\n  two\n  lines\nn: 1\n");
  assert.equal(write("- a: 1\n  b: 2\n- c\n", "[0]", "x"), "- x\n- c\n");
});

Deno.test("writeScalar() with --tag replaces or drops the old tag", () => {
  const tagged = (text: string, value: string, tag: "!!int" | "!!float" | "!!str") =>
    edited(text, (e) => e.writeScalar(placeOf(e, "k"), value, { tag }));
  assert.equal(tagged("k: !!str 5 # c\n", "6", "!!int"), "k: 6 # c\n");
  assert.equal(tagged("k: 5 # c\n", "1", "!!float"), "k: !!float 1 # c\n");
  assert.equal(tagged("k: &a !!int 5\n", "x", "!!str"), "k: &a x\n");
  assert.equal(
    edited("k: !!str 5\n", (e) => e.writeScalar(placeOf(e, "k"), "6")),
    "k: !!str 6\n",
  );
});

Deno.test("setValue() puts a new block under a key, a dash or at the top", () => {
  const tree = () => {
    const map = new YAMLMap();
    map.set("x", 1);
    map.set("y", 2);
    return { tree: map };
  };
  assert.equal(
    edited("a: ~ # why\nb: 1\n", (e) => e.setValue(placeOf(e, "a"), tree())),
    "a: # why\n  x: 1\n  y: 2\nb: 1\n",
  );
  assert.equal(
    edited("l:\n    - old\n    - 2\n", (e) => e.setValue(placeOf(e, "l[0]"), tree())),
    "l:\n    - x: 1\n      y: 2\n    - 2\n",
  );
  assert.equal(
    edited("l:\n- &a old\n", (e) => e.setValue(placeOf(e, "l[0]"), tree())),
    "l:\n- &a\n  x: 1\n  y: 2\n",
  );
  assert.equal(
    edited("--- # c\n", (e) => e.setValue({ kind: "root" }, tree())),
    "--- # c\nx: 1\ny: 2\n",
  );
  assert.equal(edited("old\n", (e) => e.setValue({ kind: "root" }, tree())), "x: 1\ny: 2\n");
  assert.equal(edited("a: 1", (e) => e.setValue(placeOf(e, "a"), tree())), "a:\n  x: 1\n  y: 2");
});

Deno.test("addPairs() and addItems() append at the collection's column, in its style", () => {
  const text = "top:\n  inner: 1\n  # about inner\nlist:\n- a\nflow: {a: 1}\nempty: []\n";
  const add = (path: string, key: string, value: string) =>
    edited(text, (e) => {
      const place = placeOf(e, path);
      e.addPairs(locate(e.doc, parsePath(path), "read").found[0]!.node as YAMLMap, place, [[
        key,
        e.leafAt(undefined, value, {}),
      ]]);
    });
  assert.equal(
    add("top", "more", "1.10"),
    "top:\n  inner: 1\n  more: 1.10\n  # about inner\nlist:\n- a\nflow: {a: 1}\nempty: []\n",
  );
  assert.equal(
    add("flow", "b", "x y"),
    "top:\n  inner: 1\n  # about inner\nlist:\n- a\nflow: {a: 1, b: x y}\nempty: []\n",
  );
  const items = (path: string, values: string[]) =>
    edited(text, (e) => {
      const found = locate(e.doc, parsePath(path), "read").found[0]!;
      e.addItems(
        found.node as YAMLSeq,
        found.place,
        values.map((v) => e.leafAt(undefined, v, {})),
      );
    });
  assert.equal(
    items("list", ["b", "c: d"]),
    'top:\n  inner: 1\n  # about inner\nlist:\n- a\n- b\n- "c: d"\nflow: {a: 1}\nempty: []\n',
  );
  assert.equal(
    items("empty", ["x"]),
    "top:\n  inner: 1\n  # about inner\nlist:\n- a\nflow: {a: 1}\nempty:\n- x\n",
    "an empty [] in a block becomes a block",
  );
});

Deno.test("delete() removes entries with their lines, and leaves {} or [] when all go", () => {
  const text =
    "# head\na: 1 # one\n\n# about b\nb:\n  c: 2\n  d: 3\ne: [1, 2, 3]\nf:\n- x: 1\n  y: 2\n- z\n";
  assert.equal(
    remove(text, "a"),
    "# head\n\n# about b\nb:\n  c: 2\n  d: 3\ne: [1, 2, 3]\nf:\n- x: 1\n  y: 2\n- z\n",
  );
  assert.equal(
    remove(text, "b.c"),
    "# head\na: 1 # one\n\n# about b\nb:\n  d: 3\ne: [1, 2, 3]\nf:\n- x: 1\n  y: 2\n- z\n",
  );
  assert.equal(
    remove(text, "b.*"),
    "# head\na: 1 # one\n\n# about b\nb: {}\ne: [1, 2, 3]\nf:\n- x: 1\n  y: 2\n- z\n",
  );
  assert.equal(
    remove(text, "e[1]"),
    "# head\na: 1 # one\n\n# about b\nb:\n  c: 2\n  d: 3\ne: [1, 3]\nf:\n- x: 1\n  y: 2\n- z\n",
  );
  assert.equal(
    remove(text, "e[0]"),
    "# head\na: 1 # one\n\n# about b\nb:\n  c: 2\n  d: 3\ne: [2, 3]\nf:\n- x: 1\n  y: 2\n- z\n",
  );
  assert.equal(
    remove(text, "e[*]"),
    "# head\na: 1 # one\n\n# about b\nb:\n  c: 2\n  d: 3\ne: []\nf:\n- x: 1\n  y: 2\n- z\n",
  );
  assert.equal(
    remove(text, "f[0].x"),
    "# head\na: 1 # one\n\n# about b\nb:\n  c: 2\n  d: 3\ne: [1, 2, 3]\nf:\n- y: 2\n- z\n",
  );
  assert.equal(
    remove(text, "f[0]"),
    "# head\na: 1 # one\n\n# about b\nb:\n  c: 2\n  d: 3\ne: [1, 2, 3]\nf:\n- z\n",
  );
  assert.equal(
    remove(text, "f[*]"),
    "# head\na: 1 # one\n\n# about b\nb:\n  c: 2\n  d: 3\ne: [1, 2, 3]\nf: []\n",
  );
  assert.equal(remove("a: 1\nb: 2", "b"), "a: 1\n");
  assert.equal(remove("a: 1\r\nb: 2\r\nc: 3\r\n", "b"), "a: 1\r\nc: 3\r\n");
  assert.throws(() => edited("a: 1\n", (e) => e.delete([{ kind: "root" }])), /document itself/);
});
