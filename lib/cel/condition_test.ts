import assert from "node:assert/strict";
import { CelLimitError, compileCondition, DEFAULT_CEL_LIMITS } from "./condition.ts";
import { jsonShape, listShape, mapShape } from "./shapes.ts";

const STATEMENT = 256 * 1024;
const VARIABLES = {
  statement: jsonShape(STATEMENT),
  predicate: jsonShape(STATEMENT),
  subject: jsonShape(STATEMENT),
  predicateType: jsonShape(STATEMENT),
  attestations: mapShape(16, listShape(16, jsonShape(STATEMENT)), 256),
};

const PROVENANCE = {
  buildDefinition: {
    buildType: "https://toolkit.dev/tekton/image-build/v1",
    externalParameters: { repository: "https://git.example/team/app", revision: "main" },
    resolvedDependencies: [{ uri: "git+https://git.example/team/app", digest: { sha1: "ab" } }],
  },
  runDetails: { builder: { id: "https://tekton.example/cluster" } },
};

function evaluate(expression: string, predicate: unknown = PROVENANCE) {
  return compileCondition("c", expression, VARIABLES).evaluate({
    statement: { predicate },
    predicate,
    subject: [{ name: "r", digest: { sha256: "00" } }],
    predicateType: "https://slsa.dev/provenance/v1",
    attestations: {
      "https://spdx.dev/Document": [{ predicate: { name: "sbom", packages: [1, 2] } }],
    },
  });
}

Deno.test("conditions over a statement: strings, macros, has, several attestations", () => {
  const cases: [string, boolean][] = [
    [
      'predicate.buildDefinition.externalParameters.repository == "https://git.example/team/app"',
      true,
    ],
    ['predicate.runDetails.builder.id.startsWith("https://tekton.example/")', true],
    ['predicate.runDetails.builder.id.endsWith("/other")', false],
    ['predicate.buildDefinition.resolvedDependencies.all(d, d.uri.startsWith("git+"))', true],
    ['predicate.buildDefinition.resolvedDependencies.exists(d, d.digest.sha1 == "ab")', true],
    ["predicate.buildDefinition.resolvedDependencies.exists_one(d, has(d.digest))", true],
    [
      'predicate.buildDefinition.resolvedDependencies.map(d, d.uri).filter(u, u.contains("team")).size() == 1',
      true,
    ],
    ["has(predicate.buildDefinition.externalParameters.pipeline)", false],
    ['predicate.runDetails.builder.id.matches("^https://tekton\\\\.example/[a-z]+$")', true],
    [
      'subject.exists(s, s.digest.sha256 == "00") && predicateType == "https://slsa.dev/provenance/v1"',
      true,
    ],
    ['attestations["https://spdx.dev/Document"].exists(s, s.predicate.name == "sbom")', true],
    ['"https://example/none" in attestations', false],
    ["size(attestations['https://spdx.dev/Document'][0].predicate.packages) == 2", true],
  ];
  for (const [expression, expected] of cases) {
    assert.deepEqual(evaluate(expression), { ok: true, value: expected }, expression);
  }
});

Deno.test("a condition without a boolean value, or failing, says so", () => {
  assert.deepEqual(evaluate("predicate.runDetails"), {
    ok: false,
    reason: "its value is not a boolean",
  });
  const missing = evaluate("predicate.nothing.here == 1");
  assert.equal(missing.ok, false);
  assert.match((missing as { reason: string }).reason, /^its evaluation failed: /);
});

Deno.test("the limits are checked when the condition is compiled, naming it", () => {
  assert.throws(
    () => compileCondition("long", "true || ".repeat(1000) + "true", VARIABLES),
    (e: unknown) =>
      e instanceof CelLimitError && e.condition === "long" &&
      /is 8004 characters long, more than 5000/.test(e.message),
  );
  assert.throws(
    () =>
      compileCondition(
        "nested",
        "predicate.a.all(x, predicate.a.all(y, predicate.a.all(z, x == y)))",
        VARIABLES,
      ),
    (e: unknown) =>
      e instanceof CelLimitError &&
      /^Cannot use the CEL condition "nested": its estimated cost \d+ is more than the limit 10000000$/
        .test(e.message),
  );
  assert.throws(
    () => compileCondition("syntax", "predicate.(", VARIABLES),
    (e: unknown) => e instanceof CelLimitError && /does not parse/.test(e.message),
  );
  // Nesting is bounded before anything recurses over the expression.
  assert.throws(
    () => compileCondition("deep", "predicate" + ".b".repeat(2400) + " == 1", VARIABLES),
    (e: unknown) =>
      e instanceof CelLimitError && /is nested 251 deep, more than 250/.test(e.message),
  );
  assert.throws(
    () => compileCondition("parens", "(".repeat(2400) + "true" + ")".repeat(2400), VARIABLES),
    (e: unknown) => e instanceof CelLimitError && /does not parse/.test(e.message),
  );
  // One loop over the statement is within the estimate.
  const one = compileCondition("one", "predicate.a.all(x, x > 0)", VARIABLES);
  assert.ok(one.estimatedCost <= DEFAULT_CEL_LIMITS.maxEstimatedCost);
});

Deno.test("a type test costs nothing of its operand's size: type(x) and the type names are no data", () => {
  const test = compileCondition("type", "type(predicate.a) == map", VARIABLES);
  assert.ok(test.estimatedCost < 100, `${test.estimatedCost}`);
  assert.deepEqual(
    test.evaluate({
      statement: {},
      predicate: { a: { b: 1 } },
      subject: [],
      predicateType: "t",
      attestations: {},
    }),
    { ok: true, value: true },
  );
});

Deno.test("an evaluation stops at its runtime limit, even where an error would be absorbed", () => {
  const limits = { ...DEFAULT_CEL_LIMITS, maxEstimatedCost: Infinity, maxRuntimeCost: 10_000 };
  const vars = { predicate: jsonShape(4096) };
  const list = Array.from({ length: 200 }, (_, i) => i);
  // `|| true` absorbs an error value: the meter still refuses.
  const condition = compileCondition(
    "quadratic",
    "predicate.l.all(x, predicate.l.all(y, y >= 0)) || true",
    vars,
    limits,
  );
  assert.deepEqual(condition.evaluate({ predicate: { l: list } }), {
    ok: false,
    reason: "its evaluation took more than the runtime cost limit 10000",
  });
  const small = compileCondition("small", "predicate.l.all(x, x >= 0)", vars, limits);
  assert.deepEqual(small.evaluate({ predicate: { l: list } }), { ok: true, value: true });
});
