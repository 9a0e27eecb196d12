import assert from "node:assert/strict";
import { formatPath, parsePath, PathSyntaxError, type Segment } from "./path.ts";
import { UsageError } from "../../lib/errors.ts";

const key = (name: string): Segment => ({ kind: "key", name });
const match = (field: string[], value: string, quoted = false): Segment => ({
  kind: "match",
  path: field.map(key),
  value,
  quoted,
});

Deno.test("parsePath() reads yq's dotted paths", () => {
  assert.deepEqual(parsePath("a.b[0].c"), [
    key("a"),
    key("b"),
    { kind: "index", index: 0 },
    key("c"),
  ]);
  assert.deepEqual(parsePath("a.*.c"), [key("a"), { kind: "wildcard" }, key("c")]);
  assert.deepEqual(parsePath("a[*]"), [key("a"), { kind: "wildcard" }]);
  assert.deepEqual(parsePath("a[+]"), [key("a"), { kind: "append" }]);
  assert.deepEqual(parsePath("a[-1]"), [key("a"), { kind: "index", index: -1 }]);
  assert.deepEqual(parsePath("a.[0]"), [key("a"), { kind: "index", index: 0 }]);
  assert.deepEqual(parsePath("[1].x"), [{ kind: "index", index: 1 }, key("x")]);
  assert.deepEqual(parsePath("image.tag-name/x:y"), [key("image"), key("tag-name/x:y")]);
  assert.deepEqual(parsePath("$ref.x"), [key("$ref"), key("x")]);
});

Deno.test("parsePath() takes the document itself as empty, . or $", () => {
  assert.deepEqual(parsePath(""), []);
  assert.deepEqual(parsePath("."), []);
  assert.deepEqual(parsePath("$"), []);
});

Deno.test("parsePath() reads quoted keys with dots and brackets", () => {
  assert.deepEqual(parsePath('"a.b".c'), [key("a.b"), key("c")]);
  assert.deepEqual(parsePath("x.'y.z'"), [key("x"), key("y.z")]);
  assert.deepEqual(parsePath(`a["b[0]"]['it''s']`), [key("a"), key("b[0]"), key("it's")]);
  assert.deepEqual(parsePath('a."q\\"uote"'), [key("a"), key('q"uote')]);
  assert.deepEqual(parsePath("metadata.annotations.'app.kubernetes.io/name'"), [
    key("metadata"),
    key("annotations"),
    key("app.kubernetes.io/name"),
  ]);
});

Deno.test("parsePath() reads elements chosen by a field", () => {
  assert.deepEqual(parsePath("a[name==x].c"), [key("a"), match(["name"], "x"), key("c")]);
  assert.deepEqual(parsePath('a[ name == "x y" ]'), [key("a"), match(["name"], "x y", true)]);
  assert.deepEqual(parsePath("a[meta.name==x]"), [key("a"), match(["meta", "name"], "x")]);
  assert.deepEqual(parsePath("a.(name==x).c"), [key("a"), match(["name"], "x"), key("c")]);
  assert.deepEqual(parsePath("a[1==x]"), [key("a"), match(["1"], "x")]);
});

Deno.test("parsePath() reads every path form yq v3 documents", () => {
  const glob = (pattern: string): Segment => ({ kind: "glob", pattern });
  const deep: Segment = { kind: "deep" };
  const self = (value: string, quoted = false): Segment => ({
    kind: "match",
    path: [],
    value,
    quoted,
  });
  assert.deepEqual(parsePath("b.there*.c"), [key("b"), glob("there*"), key("c")]);
  assert.deepEqual(parsePath("c.te*"), [key("c"), glob("te*")]);
  assert.deepEqual(parsePath("holder*"), [glob("holder*")]);
  assert.deepEqual(parsePath("a.**.c"), [key("a"), deep, key("c")]);
  assert.deepEqual(parsePath("**"), [deep]);
  assert.deepEqual(parsePath("**.thing"), [deep, key("thing")]);
  assert.deepEqual(parsePath("b.e(name==sam).value"), [
    key("b"),
    key("e"),
    match(["name"], "sam"),
    key("value"),
  ]);
  assert.deepEqual(parsePath("b.e[name==fr*]"), [key("b"), key("e"), match(["name"], "fr*")]);
  assert.deepEqual(parsePath("a.(child.subchild==co*).c"), [
    key("a"),
    match(["child", "subchild"], "co*"),
    key("c"),
  ]);
  assert.deepEqual(parsePath("animals(.==dog)"), [key("animals"), self("dog")]);
  assert.deepEqual(parsePath("(.==dog)"), [self("dog")]);
  assert.deepEqual(parsePath("(name == fred smith)"), [match(["name"], "fred smith")]);
  assert.deepEqual(parsePath("(**.city==foo)"), [
    { kind: "match", path: [deep, key("city")], value: "foo", quoted: false },
  ]);
  assert.deepEqual(parsePath("[-0]"), [{ kind: "index", index: 0 }]);
  assert.deepEqual(parsePath("[x].y"), [key("x"), key("y")], "a bare word in brackets is a key");
  assert.deepEqual(parsePath("b.d.*.[x]"), [key("b"), key("d"), { kind: "wildcard" }, key("x")]);
  assert.deepEqual(parsePath('a."te*"'), [key("a"), key("te*")], "a quoted key is no glob");
  assert.deepEqual(parsePath('a(name=="fr*")'), [key("a"), match(["name"], "fr*", true)]);
});

Deno.test("parsePath() reads the JSONPath that igc users wrote", () => {
  assert.deepEqual(parsePath('dependencies[?(@.name == "image")].version'), [
    key("dependencies"),
    match(["name"], "image", true),
    key("version"),
  ]);
  assert.deepEqual(parsePath("$.a.b"), [key("a"), key("b")]);
  assert.deepEqual(parsePath("$['a.b'][0]"), [key("a.b"), { kind: "index", index: 0 }]);
  assert.deepEqual(parsePath("$.deps[?(@.port==8080)]"), [key("deps"), match(["port"], "8080")]);
  assert.deepEqual(parsePath("x[?(@.meta['app.name'] == 'a')]"), [
    key("x"),
    match(["meta", "app.name"], "a", true),
  ]);
  assert.deepEqual(parsePath("dependencies[*].version"), [
    key("dependencies"),
    { kind: "wildcard" },
    key("version"),
  ]);
});

Deno.test("parsePath() says where a path goes wrong", () => {
  const cases: [string, RegExp][] = [
    ["a..b", /recursive descent \(\.\.\) is not supported at character 2$/],
    ["a.", /a key expected after the dot at character 3$/],
    ["a[0", /"]" expected at character 4$/],
    ["a[]", /an index, \*, \+, a key or field==value expected at character 3$/],
    ['a."b', /unterminated double quote at character 3$/],
    ["a[name!=x]", /only == is supported at character 7$/],
    ["a(name)", /"==" expected, found "\)" \(a filter is \(field==value\)\) at character 7$/],
    ["a[?(name == 'x')]", /"@" \(the current item\) expected, found "n" at character 5$/],
    ["a[name==]", /a value expected after == at character 9$/],
    ['a"b', /a quote in a key \(put the key in quotes\) at character 2$/],
    ["a]b", /"]" in a key \(put the key in quotes\) at character 2$/],
    ["a[0]b", /"\." or "\[" expected, found "b" at character 5$/],
    ["a(b==c", /"\)" expected at character 7$/],
    ["a[0:2]", /slices \(\[a:b\]\) are not supported .* at character 3$/],
    ["a[:-1]", /slices/],
    ["a[0,1]", /unions \(\[a,b\]\) are not supported .* at character 3$/],
    ["a.(x)", /"==" expected, found "\)" \(a filter is \(field==value\)\) at character 5$/],
  ];
  for (const [path, message] of cases) {
    let error: unknown;
    try {
      parsePath(path);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof PathSyntaxError && error instanceof UsageError, path);
    assert.match(error.message, message, path);
    assert.ok(error.message.startsWith(`Cannot read path "${path}": `));
  }
});

Deno.test("formatPath() writes a path that parses back to the same segments", () => {
  for (
    const path of [
      "a.b[0].c",
      "a.*.c",
      'a["x.y"].z',
      "a[name==x]",
      'a[name=="x y"]',
      "a[+]",
      "a.**.b*",
      "a[.==x*]",
      "a[b.**.c==d]",
    ]
  ) {
    assert.equal(formatPath(parsePath(path)), path);
    assert.deepEqual(parsePath(formatPath(parsePath(path))), parsePath(path));
  }
});
