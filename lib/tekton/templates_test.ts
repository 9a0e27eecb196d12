import assert from "node:assert/strict";
import {
  answerParams,
  choosePipeline,
  pipelinesForRuntime,
  type TektonPipeline,
  templateParams,
} from "./templates.ts";
import { UsageError } from "../errors.ts";

function pipeline(name: string, annotations: Record<string, string> = {}): TektonPipeline {
  return { metadata: { name, annotations }, spec: {} };
}

const JAVA = pipeline("ibm-java-maven", {
  "app.openshift.io/runtime": "openjdk",
  "app.openshift.io/builder": "maven",
});
const GRADLE = pipeline("ibm-java-gradle", {
  "app.openshift.io/runtime": "openjdk",
  "app.openshift.io/builder": "gradle",
});
const NODE = pipeline("ibm-nodejs", { "app.openshift.io/runtime": "nodejs" });
const ANY = pipeline("ibm-general");
const ALL = [ANY, GRADLE, JAVA, NODE];

Deno.test("pipelinesForRuntime() keeps pipelines for the runtime and builder, and those for any", () => {
  const names = (r: ReturnType<typeof pipelinesForRuntime>) =>
    r.candidates.map((p) => p.metadata.name);
  assert.deepEqual(names(pipelinesForRuntime(ALL, { runtime: "openjdk", builder: "maven" })), [
    "ibm-general",
    "ibm-java-maven",
  ]);
  assert.deepEqual(names(pipelinesForRuntime(ALL, { runtime: "nodejs" })), [
    "ibm-general",
    "ibm-nodejs",
  ]);
  const none = pipelinesForRuntime([JAVA, NODE], { runtime: "python" });
  assert.equal(none.filtered, false);
  assert.equal(none.candidates.length, 2);
  assert.equal(pipelinesForRuntime(ALL, undefined).candidates.length, 4);
});

Deno.test("choosePipeline(): --pipeline, the only candidate, a choice, or an error listing them", async () => {
  assert.equal((await choosePipeline(ALL, [NODE], {})).metadata.name, "ibm-nodejs");
  assert.equal(
    (await choosePipeline(ALL, [NODE], { name: "ibm-java-gradle" })).metadata.name,
    "ibm-java-gradle",
  );
  await assert.rejects(
    choosePipeline(ALL, [NODE], { name: "nope" }),
    (e: unknown) => e instanceof UsageError && /no template pipeline "nope"/.test(e.message),
  );
  await assert.rejects(
    choosePipeline(ALL, [ANY, NODE], {}),
    (e: unknown) =>
      e instanceof UsageError &&
      /ibm-general, ibm-nodejs; choose one with --pipeline/.test(e.message),
  );
  const chosen = await choosePipeline(ALL, [ANY, NODE], {
    choose: (names) => Promise.resolve(names[1]!),
  });
  assert.equal(chosen.metadata.name, "ibm-nodejs");
});

Deno.test("templateParams() and answerParams(): -p, then the question, then the default", async () => {
  const p: TektonPipeline = {
    metadata: { name: "x" },
    spec: {
      params: [
        { name: "git-url" },
        { name: "git-revision", default: "main" },
        { name: "scan-image", description: "Scan the image", default: "true" },
        { name: "image-server", default: "icr.io" },
        { name: "health-endpoint" },
      ],
    },
  };
  const params = templateParams(p);
  assert.deepEqual(params.map((x) => [x.name, x.default, x.boolean]), [
    ["scan-image", "true", true],
    ["image-server", "icr.io", false],
    ["health-endpoint", undefined, false],
  ]);
  const given = new Map([["health-endpoint", "/health"]]);
  assert.deepEqual(
    [...await answerParams(params, given)],
    [["scan-image", "true"], ["image-server", "icr.io"], ["health-endpoint", "/health"]],
  );
  const asked = await answerParams(params, given, (q) => Promise.resolve(`asked-${q.name}`));
  assert.equal(asked.get("scan-image"), "asked-scan-image");
  assert.equal(asked.get("health-endpoint"), "/health");
  await assert.rejects(answerParams(params, new Map()), /"health-endpoint" has no default/);
  await assert.rejects(
    answerParams(params, new Map([["nope", "1"], ["health-endpoint", "/"]])),
    /no parameter "nope": its parameters are scan-image, image-server, health-endpoint/,
  );
});
