import assert from "node:assert/strict";
import { isScalar, type Node } from "yaml";
import { parseYamlStream } from "../../lib/yaml.ts";
import {
  describeNode,
  joinPath,
  locate,
  PathTargetError,
  scalarReads,
  yqPathString,
} from "./locate.ts";
import { formatPath, parsePath } from "./path.ts";

const TEXT = `defaults: &d
  timeout: 30
svc:
  <<: *d
  name: web
  ports: [80, 443]
  deps:
    - name: image
      version: 0.1.0
    - name: other
      version: 2.0.0
  use: *d
  none:
"a.b": dotted
`;

function doc(text = TEXT) {
  return parseYamlStream(text)[0]!;
}

function values(path: string, mode: "read" | "write" | "delete" = "read"): unknown[] {
  return locate(doc(), parsePath(path), mode).found.map((f) =>
    isScalar(f.node) ? f.node.value : f.node === null ? null : describeNode(f.node as Node)
  );
}

Deno.test("locate() reads keys, indices, wildcards and matches", () => {
  assert.deepEqual(values("svc.name"), ["web"]);
  assert.deepEqual(values("svc.ports[1]"), [443]);
  assert.deepEqual(values("svc.ports[-1]"), [443]);
  assert.deepEqual(values("svc.ports.0"), [80], "digits index a sequence, as lodash did");
  assert.deepEqual(values("svc.deps[*].version"), ["0.1.0", "2.0.0"]);
  assert.deepEqual(values("svc.deps[name==other].version"), ["2.0.0"]);
  assert.deepEqual(values('svc.deps[?(@.name == "image")].version'), ["0.1.0"]);
  assert.deepEqual(values('"a.b"'), ["dotted"]);
  assert.deepEqual(values("svc.none"), [null]);
  assert.deepEqual(values(""), ["a mapping"]);
  assert.deepEqual(
    locate(doc(), parsePath("svc.deps[*].name"), "read").found.map((f) => f.path),
    ["svc.deps[0].name", "svc.deps[1].name"],
  );
});

Deno.test("locate() reads through aliases and merge keys, and passes over what does not fit", () => {
  assert.deepEqual(values("svc.timeout"), [30], "from the merge key");
  assert.deepEqual(values("svc.use.timeout"), [30], "through the alias");
  assert.deepEqual(values("svc.name.x"), []);
  assert.deepEqual(values("svc.ports[9]"), []);
  assert.deepEqual(values("svc.ports.x"), []);
  assert.deepEqual(values("svc.missing.x"), []);
  assert.deepEqual(
    values("svc.*"),
    ["web", "a sequence", "a sequence", "a mapping", null, 30],
    "* takes the keys the merge key brings in, after the map's own, not the merge key itself",
  );
});

Deno.test("locate() follows globs, ** and filters, as yq v3 does", () => {
  const text = `a: 2
b:
  hi: {c: things, d: else}
  there: {c: more}
  there2: {c: also}
people:
  - name: fred
    age: 3
    pets: [cat, dog]
  - name: sam
    age: 4
    pets: [rat]
animals: {great: yes, small: sometimes}
`;
  const paths = (path: string, mode: "read" | "write" | "delete" = "read") =>
    locate(doc(text), parsePath(path), mode).found.map((f) => f.path);
  assert.deepEqual(paths("b.there*.c"), ["b.there.c", "b.there2.c"]);
  assert.deepEqual(paths("b.*e*"), ["b.there", "b.there2"]);
  assert.deepEqual(paths("b.**"), ["b.hi.c", "b.hi.d", "b.there.c", "b.there2.c"]);
  assert.deepEqual(paths("**.c"), ["b.hi.c", "b.there.c", "b.there2.c"]);
  assert.deepEqual(paths("**.a"), ["a"], "** is zero or more levels");
  assert.deepEqual(paths("people(name==s*).age"), ["people[1].age"]);
  assert.deepEqual(paths("people.(pets.*==dog).name"), ["people[0].name"]);
  assert.deepEqual(paths("people[*].pets(.==rat)"), ["people[1].pets[0]"]);
  assert.deepEqual(paths("animals(.==y*)"), ["animals.great"], "a filter keeps map values too");
  assert.deepEqual(paths("(**.c==also)"), ["b"]);
  assert.deepEqual(paths("people[-1].name"), ["people[1].name"]);
  assert.deepEqual(paths("b.**", "delete"), ["b.hi", "b.there", "b.there2"]);
  assert.deepEqual(
    locate(doc(text), parsePath("people[-2].pets[-0]"), "read").found[0]!.elements,
    ["people", -2, "pets", 0],
    "yq's path keeps an index as given",
  );
  assert.throws(() => locate(doc(text), parsePath("people[-3]"), "read"), /\[-3\] is out of range/);
});

Deno.test("yqPathString() writes paths as yq's -p does", () => {
  assert.equal(yqPathString(["b", "e", 1, "name"]), "b.e.[1].name");
  assert.equal(yqPathString([-1]), "[-1]");
  assert.equal(yqPathString(["5", "a.b", 'q"x']), '"5"."a.b".(q"x)');
});

Deno.test("locate() for a write says where the document stops short of the path", () => {
  const { found, missing } = locate(doc(), parsePath("svc.x.y"), "write");
  assert.deepEqual(found, []);
  assert.equal(missing.length, 1);
  assert.equal(missing[0]!.path, "svc");
  assert.deepEqual(missing[0]!.rest, parsePath("x.y"));
  const none = locate(doc(), parsePath("svc.none.a"), "write").missing[0]!;
  assert.equal(none.node, null);
  assert.equal(none.place.kind, "pair");
  const append = locate(doc(), parsePath("svc.ports[2]"), "write").missing[0]!;
  assert.deepEqual(append.rest, [{ kind: "append" }]);
  const match = locate(doc(), parsePath("svc.deps[name==new].version"), "write").missing[0]!;
  assert.equal(match.path, "svc.deps");
  assert.equal(formatPath(match.rest), "[name==new].version");
  const merged = locate(doc(), parsePath("svc.timeout"), "write");
  assert.equal(merged.missing.length, 1, "a merged key is written into the map itself");
});

Deno.test("locate() refuses writes through aliases, into scalars and past a sequence's end", () => {
  const cases: [string, "write" | "delete", string][] = [
    [
      "svc.use.timeout",
      "write",
      'Cannot follow path "svc.use.timeout": "svc.use" is an alias (*d); change the node its anchor (&d) is on',
    ],
    ["svc.use.timeout", "delete", '"svc.use" is an alias (*d)'],
    ["svc.name.x", "write", '"svc.name" holds a string, which has no keys'],
    ["svc.ports[5]", "write", '"svc.ports" has 2 items, not [5] (add one with [2] or [+])'],
    [
      "svc.ports.x",
      "write",
      '"svc.ports" holds a sequence, which has no key "x" (an index is [0])',
    ],
    ["svc[0]", "write", '"svc" holds a mapping, which has no items'],
  ];
  for (const [path, mode, message] of cases) {
    assert.throws(
      () => locate(doc(), parsePath(path), mode),
      (e: unknown) => e instanceof PathTargetError && e.message.includes(message),
      path,
    );
  }
  assert.deepEqual(values("svc.use", "delete"), ["an alias (*d)"], "the alias itself can go");
  assert.deepEqual(values("svc.name.x", "delete"), [], "a delete passes over what is not there");
});

Deno.test("scalarReads(), describeNode() and joinPath()", () => {
  const d = doc("a: 1.10\nb: 'x'\n");
  assert.ok(scalarReads(d.get("a", true), "1.10"));
  assert.ok(scalarReads(d.get("a", true), "1.1"));
  assert.ok(!scalarReads(d.get("b", true), "'x'"));
  assert.equal(describeNode(d.get("a", true) as Node), "a number");
  assert.equal(describeNode(null), "null");
  assert.equal(joinPath("a.b", "c"), "a.b.c");
  assert.equal(joinPath("a", "[0]"), "a[0]");
  assert.equal(joinPath("", "x"), "x");
});
