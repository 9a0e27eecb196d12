import assert from "node:assert/strict";
import { parsePath, PathSyntaxError } from "./path.ts";

Deno.test("parsePath() reads keys, indexes, wildcards, filters, quoted keys and JSONPath", () => {
  assert.deepEqual(parsePath("a.b[0].c"), [
    { kind: "key", key: "a" },
    { kind: "key", key: "b" },
    { kind: "index", index: 0 },
    { kind: "key", key: "c" },
  ]);
  assert.deepEqual(parsePath("a.*.c")[1], { kind: "wildcard" });
  assert.deepEqual(parsePath("a[name==x].c")[1], { kind: "filter", key: "name", value: "x" });
  assert.deepEqual(parsePath('dependencies[?(@.name == "image")].version'), [
    { kind: "key", key: "dependencies" },
    { kind: "filter", key: "name", value: "image" },
    { kind: "key", key: "version" },
  ]);
  assert.deepEqual(parsePath('"a.b".c'), [{ kind: "key", key: "a.b" }, { kind: "key", key: "c" }]);
  assert.deepEqual(parsePath("$.a.b"), [{ kind: "key", key: "a" }, { kind: "key", key: "b" }]);
  assert.deepEqual(parsePath("a[*]")[1], { kind: "wildcard" });
});

Deno.test("parsePath() says where a path goes wrong", () => {
  for (
    const [path, message] of [["a[", /character 2: no closing \]/], ["a..b", /empty key/], [
      "",
      /empty path/,
    ], ["a[x y]", /not an index/]] as const
  ) {
    assert.throws(
      () => parsePath(path),
      (e: unknown) => e instanceof PathSyntaxError && message.test(e.message),
      path,
    );
  }
});
