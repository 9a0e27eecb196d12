import assert from "node:assert/strict";
import type { KubeObject } from "../kube/resources.ts";
import { UsageError } from "../errors.ts";
import type { TektonPipeline } from "./templates.ts";
import {
  imageProducers,
  SIGN_PIPELINE_TASK,
  signingTaskOf,
  withSigningTask,
} from "./signing_step.ts";
import { SIGN_TASK_NAME, signTask, SignTaskVersionError } from "./sign_task.ts";

function task(name: string, results: string[] = []): KubeObject {
  return {
    apiVersion: "tekton.dev/v1",
    kind: "Task",
    metadata: { name },
    spec: { results: results.map((r) => ({ name: r })), steps: [{ name: "s", image: "x" }] },
  };
}

function pipeline(tasks: Record<string, unknown>[]): TektonPipeline {
  return {
    apiVersion: "tekton.dev/v1",
    kind: "Pipeline",
    metadata: { name: "app" },
    spec: { tasks },
  };
}

const TASKS = new Map<string, KubeObject>([
  ["setup", task("setup", ["image-url"])],
  ["build", task("build", ["IMAGE_URL", "IMAGE_DIGEST", "other"])],
  ["build-ui", task("build-ui", ["UI_IMAGE_URL", "UI_IMAGE_DIGEST"])],
  ["deploy", task("deploy")],
  ["scan", task("scan")],
]);

const IBM_LIKE = pipeline([
  { name: "setup", taskRef: { name: "setup" } },
  { name: "build", taskRef: { name: "build" }, runAfter: ["setup"] },
  { name: "scan", taskRef: { name: "scan" }, runAfter: ["setup"] },
  {
    name: "deploy",
    taskRef: { name: "deploy" },
    params: [{ name: "image", value: "$(tasks.build.results.IMAGE_URL)" }],
  },
]);

Deno.test("the producer is the task whose Task reports IMAGE_URL and IMAGE_DIGEST", () => {
  assert.deepEqual(imageProducers(IBM_LIKE, TASKS), [
    { task: "build", urlResult: "IMAGE_URL", digestResult: "IMAGE_DIGEST" },
  ]);
  // Prefixed pairs, and embedded task specs, count as Chains counts them.
  const embedded = pipeline([{
    name: "kaniko",
    taskSpec: { results: [{ name: "APP_IMAGE_URL" }, { name: "APP_IMAGE_DIGEST" }] },
  }]);
  assert.deepEqual(imageProducers(embedded, TASKS), [
    { task: "kaniko", urlResult: "APP_IMAGE_URL", digestResult: "APP_IMAGE_DIGEST" },
  ]);
  // A URL without its digest, a cluster task or a resolver's task: none.
  const none = pipeline([
    { name: "a", taskSpec: { results: [{ name: "IMAGE_URL" }] } },
    { name: "b", taskRef: { name: "build", kind: "ClusterTask" } },
    { name: "c", taskRef: { resolver: "bundles" } },
  ]);
  assert.deepEqual(imageProducers(none, TASKS), []);
});

Deno.test("the signing task runs after the producer, wired to its results, before its dependents", () => {
  const { pipeline: signed, signTask: name, producer, added } = withSigningTask(IBM_LIKE, TASKS);
  assert.equal(added, true);
  assert.equal(name, SIGN_PIPELINE_TASK);
  assert.equal(producer?.task, "build");
  const tasks = signed.spec!.tasks!;
  assert.deepEqual(tasks.map((t) => t.name), ["setup", "build", "image-sign", "scan", "deploy"]);
  assert.deepEqual(tasks[2], {
    name: "image-sign",
    taskRef: { name: SIGN_TASK_NAME, kind: "Task" },
    runAfter: ["build"],
    params: [
      { name: "IMAGE_URL", value: "$(tasks.build.results.IMAGE_URL)" },
      { name: "IMAGE_DIGEST", value: "$(tasks.build.results.IMAGE_DIGEST)" },
    ],
  });
  // deploy reads the build's results: it now waits for the signature; scan does not depend on it.
  assert.deepEqual(tasks[4]!.runAfter, ["image-sign"]);
  assert.equal(tasks[3]!.runAfter?.toString(), "setup");
  // The template is untouched, and signing twice changes nothing.
  assert.equal(IBM_LIKE.spec!.tasks!.length, 4);
  assert.equal(signingTaskOf(signed), "image-sign");
  const again = withSigningTask(signed, TASKS);
  assert.equal(again.added, false);
  assert.equal(again.pipeline, signed);
});

Deno.test("a task already named image-sign keeps its name; the signing task gets another", () => {
  const taken = pipeline([
    { name: "build", taskRef: { name: "build" } },
    { name: "image-sign", taskRef: { name: "scan" }, runAfter: ["build"] },
  ]);
  const { pipeline: signed, signTask: name } = withSigningTask(taken, TASKS);
  assert.equal(name, "image-sign-2");
  const tasks = signed.spec!.tasks!;
  assert.deepEqual(tasks.find((t) => t.name === "image-sign")!.runAfter, ["build", "image-sign-2"]);
});

Deno.test("several producers are an error naming them, unless --sign-after chooses", () => {
  const two = pipeline([
    { name: "build", taskRef: { name: "build" } },
    { name: "build-ui", taskRef: { name: "build-ui" } },
  ]);
  assert.throws(
    () => withSigningTask(two, TASKS),
    (e) =>
      e instanceof UsageError &&
      e.message.includes("several tasks report one") &&
      e.message.includes(
        "build (IMAGE_URL, IMAGE_DIGEST), build-ui (UI_IMAGE_URL, UI_IMAGE_DIGEST)",
      ) &&
      e.message.includes("--sign-after TASK"),
  );
  const chosen = withSigningTask(two, TASKS, "build-ui");
  assert.equal(chosen.producer?.digestResult, "UI_IMAGE_DIGEST");
  assert.throws(
    () => withSigningTask(two, TASKS, "nope"),
    /Cannot sign after task "nope" of pipeline "app": it reports no image; the tasks that do are build/,
  );
});

Deno.test("a pipeline whose tasks report no image is an error pointing at --no-sign", () => {
  const none = pipeline([{ name: "setup", taskRef: { name: "setup" } }]);
  assert.throws(
    () => withSigningTask(none, TASKS),
    /none of its tasks reports the image it pushed \(a pair of results IMAGE_URL and IMAGE_DIGEST.*--no-sign/,
  );
});

Deno.test("the signing Task is written at v1 and v1beta1 only", () => {
  const v1 = signTask({ version: "v1", namespace: "tools" });
  assert.equal(v1.apiVersion, "tekton.dev/v1");
  assert.equal(v1.metadata.namespace, "tools");
  const step = (v1.spec as { steps: Record<string, unknown>[] }).steps[0]!;
  assert.ok(step.computeResources);
  assert.deepEqual(step.command, ["/usr/local/bin/toolkit"]);
  // Nothing secret is an argument: the Secret's entries are files.
  assert.ok((step.args as string[]).every((a) => !/apikey|API_KEY/i.test(a)));
  const v1beta1 = signTask({ version: "v1beta1" });
  const old = (v1beta1.spec as { steps: Record<string, unknown>[] }).steps[0]!;
  assert.ok(old.resources);
  assert.equal(old.computeResources, undefined);
  assert.throws(() => signTask({ version: "v1alpha1" }), SignTaskVersionError);
});

Deno.test("the signing task gets the provenance's parameters: git params, a clone's commit, Tekton's context", () => {
  const withGit: TektonPipeline = {
    ...IBM_LIKE,
    spec: {
      ...IBM_LIKE.spec,
      params: [{ name: "git-url" }, { name: "git-revision" }],
      tasks: [
        { name: "clone", taskRef: { name: "git-clone" } },
        ...IBM_LIKE.spec!.tasks!,
      ],
    },
  };
  const tasks = new Map([...TASKS, ["git-clone", task("git-clone", ["commit", "url"])]]);
  const sign = withSigningTask(withGit, tasks).pipeline.spec!.tasks!.find((t) =>
    t.name === "image-sign"
  )!;
  const params = (t: Record<string, unknown>) => t.params as { name: string; value: string }[];
  assert.deepEqual(params(sign).slice(2), [
    { name: "REPOSITORY_URL", value: "$(params.git-url)" },
    { name: "REVISION", value: "$(params.git-revision)" },
    { name: "COMMIT", value: "$(tasks.clone.results.commit)" },
    { name: "PIPELINE_NAME", value: "$(context.pipeline.name)" },
    { name: "BUILD_TASK", value: "build" },
    { name: "PIPELINE_RUN_UID", value: "$(context.pipelineRun.uid)" },
    { name: "PROVENANCE_REQUIRED", value: "true" },
  ]);
  // Without a clone task reporting its commit, the revision is the commit (a trigger's push).
  const noClone = withSigningTask({
    ...withGit,
    spec: { ...withGit.spec, tasks: IBM_LIKE.spec!.tasks },
  }, TASKS);
  assert.deepEqual(
    params(noClone.pipeline.spec!.tasks!.find((t) => t.name === "image-sign")!).find((p) =>
      p.name === "COMMIT"
    ),
    { name: "COMMIT", value: "$(params.git-revision)" },
  );
});

Deno.test("the Task's provenance step attests with the sign step's key, Secrets and digest", () => {
  const spec = signTask({ version: "v1" }).spec as {
    steps: { name: string; args: string[]; volumeMounts: unknown }[];
    params: { name: string; default?: string }[];
  };
  assert.deepEqual(spec.steps.map((s) => s.name), ["sign", "provenance"]);
  const [sign, provenance] = spec.steps;
  assert.deepEqual(provenance!.args.slice(0, 3), [
    "image-security",
    "attest",
    "$(params.IMAGE_URL)",
  ]);
  // Same digest, key, registry Secret, TLS flags and --recursive as the signature: a platform
  // signed is a platform attested.
  for (const arg of sign!.args.filter((a) => !/lookaside|-file=/.test(a)).slice(3)) {
    assert.ok(provenance!.args.includes(arg), arg);
  }
  assert.deepEqual(provenance!.volumeMounts, sign!.volumeMounts);
  assert.ok(provenance!.args.includes("--build-invocation-id=$(params.PIPELINE_RUN_UID)"));
  assert.ok(provenance!.args.includes("--build-required=$(params.PROVENANCE_REQUIRED)"));
  assert.equal(spec.params.find((p) => p.name === "PROVENANCE_REQUIRED")?.default, "false");
});
