import assert from "node:assert/strict";
import { fakeKubeClient } from "../../tests/fakes/kube_transport.ts";
import { parseReference } from "../image/mod.ts";
import type { TransportRequest } from "../kube/transport.ts";
import type { PolicyMatch } from "../policy/mod.ts";
import { createKubePolicySource, type KubePolicySource } from "./kube_source.ts";
import { TurnScheduler } from "../turns.ts";

function imagePolicy(namespace: string, version: number, repositories = 1) {
  return {
    apiVersion: "toolkit.dev/v1",
    kind: "ImagePolicy",
    metadata: { name: "p", namespace, uid: `uid-${namespace}`, resourceVersion: String(version) },
    spec: {
      repositories: Array.from({ length: repositories }, (_, i) => ({
        name: `icr.io/${namespace}/app-${i}-v${version}`,
        policy: { simple: { requirements: [{ type: "signedBy", keySecret: "key" }] } },
      })),
    },
  };
}

/**
 * A cluster whose ImagePolicy watch the test writes to; every other watch stays open until it
 * is stopped.
 */
function fakeCluster(initial: unknown[]) {
  let send!: (event: unknown) => void;
  const opened = Promise.withResolvers<void>();
  const hang = (request: TransportRequest) =>
    new Response(
      new ReadableStream({
        start(controller) {
          request.signal?.addEventListener("abort", () => controller.error(request.signal?.reason));
        },
      }),
    );
  let watches = 0;
  const client = fakeKubeClient((request) => {
    const url = new URL(request.url);
    const watch = url.searchParams.has("watch");
    if (url.pathname === "/apis/toolkit.dev/v1/imagepolicies") {
      if (!watch) return Response.json({ metadata: { resourceVersion: "1" }, items: initial });
      if (watches++ > 0) return hang(request);
      const encoder = new TextEncoder();
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            send = (event) => controller.enqueue(encoder.encode(`${JSON.stringify(event)}\n`));
            request.signal?.addEventListener(
              "abort",
              () => controller.error(request.signal?.reason),
            );
            opened.resolve();
          },
        }),
      );
    }
    if (!watch) return Response.json({ metadata: { resourceVersion: "1" }, items: [] });
    return hang(request);
  });
  return { client, send: (event: unknown) => send(event), opened: opened.promise };
}

function choose(source: KubePolicySource, namespace: string, image: string): PolicyMatch {
  const match = source.policies().select(namespace, parseReference(image), image);
  if (match.policy === undefined) throw new Error(`no policy for ${image}`);
  return match as PolicyMatch;
}

Deno.test("policy changes of a namespace are compiled one at a time, the latest winning, off the review path", async () => {
  const cluster = fakeCluster([imagePolicy("churn", 1, 512), imagePolicy("calm", 1)]);
  let published = 0;
  const source = createKubePolicySource({
    client: cluster.client,
    group: "toolkit.dev",
    controllerNamespace: "toolkit-system",
    onChange: () => published++,
    turns: new TurnScheduler({ maxSteps: 1, maxMs: 0 }), // every slice is due: many turns
  });
  try {
    assert.equal(source.ready(), false);
    source.start();
    await source.whenSynced;
    assert.equal(source.ready(), true);
    assert.equal(source.policies().size, 2);
    const calm = choose(source, "calm", "icr.io/calm/app-0-v1");
    choose(source, "churn", "icr.io/churn/app-511-v1");
    await cluster.opened;
    const before = published;
    const generation = source.generation!();

    // 50 versions, one per turn, while the first compile is still in slices.
    for (let version = 2; version <= 51; version++) {
      cluster.send({ type: "MODIFIED", object: imagePolicy("churn", version, 512) });
      await new Promise((resolve) => setTimeout(resolve, 0));
      // Reviews meanwhile use a set that was published whole: the last version or an earlier one.
      const match = source.policies().select(
        "churn",
        parseReference("icr.io/churn/app-0-v1"),
        "icr.io/churn/app-0-v1",
      );
      assert.ok(match.policy === undefined || match.pattern === "icr.io/churn/app-0-v1");
    }
    // The last version takes effect once its compile is published.
    for (let i = 0; i < 2000 && !hasVersion(source, 51); i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.ok(hasVersion(source, 51), "the last version is in effect");
    const compiles = published - before;
    assert.ok(compiles >= 1 && compiles < 50, `${compiles} compiles for 50 changes`);
    assert.ok(source.generation!() > generation);
    // The other namespace was not compiled again: its choice is the very same policy.
    assert.equal(choose(source, "calm", "icr.io/calm/app-0-v1").policy, calm.policy);
    // Deleting the ImagePolicy hands the namespace back to the cluster policies (none).
    cluster.send({ type: "DELETED", object: imagePolicy("churn", 52, 512) });
    for (let i = 0; i < 2000 && source.policies().hasImagePolicies("churn"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.equal(source.policies().hasImagePolicies("churn"), false);
    assert.equal(source.policies().size, 1);
  } finally {
    await source.stop();
  }
});

function hasVersion(source: KubePolicySource, version: number): boolean {
  const image = `icr.io/churn/app-511-v${version}`;
  const match = source.policies().select("churn", parseReference(image), image);
  return match.policy !== undefined;
}

Deno.test("an invalid ImagePolicy denies its namespace once compiled, and a fix lifts it", async () => {
  const broken = imagePolicy("dev", 1);
  broken.spec.repositories[0]!.name = "";
  const cluster = fakeCluster([broken]);
  const source = createKubePolicySource({
    client: cluster.client,
    group: "toolkit.dev",
    controllerNamespace: "toolkit-system",
  });
  try {
    source.start();
    await source.whenSynced;
    assert.match(source.policyProblem!("dev")!, /spec\.repositories\[0\]\.name: is required/);
    assert.equal(source.policyProblem!("other"), undefined);
    await cluster.opened;
    cluster.send({ type: "MODIFIED", object: imagePolicy("dev", 2) });
    for (let i = 0; i < 2000 && source.policyProblem!("dev") !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.equal(source.policyProblem!("dev"), undefined);
    choose(source, "dev", "icr.io/dev/app-0-v2");
  } finally {
    await source.stop();
  }
});

Deno.test("the toolkit.dev/enforcement label of a Namespace sets its mode", async () => {
  const hang = (request: TransportRequest) =>
    new Response(
      new ReadableStream({
        start(controller) {
          request.signal?.addEventListener("abort", () => controller.error(request.signal?.reason));
        },
      }),
    );
  const namespace = (name: string, mode: string) => ({
    metadata: { name, labels: { "toolkit.dev/enforcement": mode } },
  });
  const selectors: string[] = [];
  const client = fakeKubeClient((request) => {
    const url = new URL(request.url);
    if (url.searchParams.has("watch")) return hang(request);
    if (url.pathname === "/api/v1/namespaces") {
      selectors.push(url.searchParams.get("labelSelector") ?? "");
      return Response.json({
        metadata: { resourceVersion: "1" },
        items: [namespace("trial", "warn"), namespace("live", "enforce"), namespace("odd", "x")],
      });
    }
    return Response.json({ metadata: { resourceVersion: "1" }, items: [] });
  });
  const source = createKubePolicySource({
    client,
    group: "toolkit.dev",
    controllerNamespace: "toolkit-system",
  });
  try {
    source.start();
    await source.whenSynced;
    assert.deepEqual(selectors, ["toolkit.dev/enforcement"]);
    assert.equal(source.namespaceMode!("trial"), "warn");
    assert.equal(source.namespaceMode!("live"), "enforce");
    assert.equal(source.namespaceMode!("odd"), undefined);
    assert.equal(source.namespaceMode!("dev"), undefined);
  } finally {
    await source.stop();
  }
});
