import assert from "node:assert/strict";
import type {
  AdmissionDecision,
  AdmissionEvaluator,
  AdmissionRequest,
  EventRecorder,
} from "../lib/admission/mod.ts";
import { createRoutes, type HandlerDeps, RequestBodyTooLargeError } from "./handler.ts";
import { serveRoutes, type WebhookLoopback } from "../tests/fakes/webhook_loopback.ts";
import { createJsonLog, type JsonLog, type LogRecord } from "./log.ts";
import { WebhookMetrics } from "./metrics.ts";

const ALLOW: AdmissionDecision = {
  allowed: true,
  outcome: "allow",
  kind: "Pod",
  reasons: [],
  warnings: [],
  patch: [{ op: "replace", path: "/spec/containers/0/image", value: "r.example/app@sha256:aa" }],
  sites: [],
};

const DENY: AdmissionDecision = {
  ...ALLOW,
  allowed: false,
  outcome: "deny",
  reasons: ["policy denied the request: one", "policy denied the request: two"],
  patch: [],
  cause: "policy",
};

function review(uid = "0d5e8a7c-1") {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      namespace: "dev",
      name: "p",
      operation: "CREATE",
      object: { metadata: { name: "p" }, spec: { containers: [{ name: "a", image: "x" }] } },
    },
  };
}

/**
 * The routes of `deps` as production serves them (`Http1Connection` over `createRoutes`, with
 * the body limit the webhook gives both), minus TLS; `handler` sends a `Request` to them.
 */
async function serve(
  deps: HandlerDeps,
): Promise<WebhookLoopback & { handler: WebhookLoopback["send"] }> {
  const webhook = await serveRoutes(createRoutes(deps), {
    maxBodyBytes: deps.maxBodyBytes ?? 3 * 1024 * 1024,
  });
  return Object.assign(webhook, { handler: (request: Request) => webhook.send(request) });
}

async function setup(
  evaluate: (r: AdmissionRequest) => Promise<AdmissionDecision>,
  ready = true,
) {
  const records: LogRecord[] = [];
  const log: JsonLog = { write: (r) => records.push(r), flush() {} };
  const denied: string[] = [];
  const events: EventRecorder = { denied: (r) => denied.push(r.uid) };
  const metrics = new WebhookMetrics();
  let isReady = ready;
  const evaluator: AdmissionEvaluator = { evaluate };
  const deps: HandlerDeps = { evaluator, ready: () => isReady, metrics, log, events, guardMs: 200 };
  const webhook = await serve(deps);
  return {
    handler: webhook.handler,
    [Symbol.asyncDispose]: () => webhook[Symbol.asyncDispose](),
    records,
    denied,
    metrics,
    setReady: (v: boolean) => (isReady = v),
  };
}

function post(body: unknown): Request {
  return new Request("https://webhook/admit?timeout=10s", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

Deno.test("createRoutes() over HTTP/1.1 answers an AdmissionReview with the uid and a base64 JSON patch", async () => {
  await using served = await setup(() => Promise.resolve(ALLOW));
  const { handler, records } = served;
  const response = await handler(post(review()));
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.equal(body.apiVersion, "admission.k8s.io/v1");
  assert.equal(body.kind, "AdmissionReview");
  assert.equal(body.response.uid, "0d5e8a7c-1");
  assert.equal(body.response.allowed, true);
  assert.equal(body.response.patchType, "JSONPatch");
  assert.deepEqual(JSON.parse(atob(body.response.patch)), ALLOW.patch);
  assert.equal(records.length, 1);
  assert.deepEqual(
    {
      msg: records[0]?.msg,
      uid: records[0]?.uid,
      decision: records[0]?.decision,
      kind: records[0]?.kind,
    },
    { msg: "review", uid: "0d5e8a7c-1", decision: "allow", kind: "Pod" },
  );
  assert.equal(typeof records[0]?.durationMs, "number");
  assert.equal(JSON.stringify(records).includes('"spec"'), false, "the object is never logged");
});

Deno.test("createRoutes() over HTTP/1.1 reads a review after a byte order mark, as parseJsonWithin does", async () => {
  await using served = await setup(() => Promise.resolve(ALLOW));
  const { handler } = served;
  const response = await handler(post(`\ufeff${JSON.stringify(review("bom-1"))}`));
  assert.equal(response.status, 200);
  assert.equal((await response.json()).response.uid, "bom-1");
});

Deno.test("createRoutes() over HTTP/1.1 denies with every reason on its own line and records an Event", async () => {
  await using served = await setup(() => Promise.resolve(DENY));
  const { handler, denied, records, metrics } = served;
  const body = await (await handler(post(review()))).json();
  assert.equal(body.response.allowed, false);
  assert.equal(body.response.status.code, 403);
  assert.equal(body.response.status.message, DENY.reasons.join("\n"));
  assert.equal(body.response.patch, undefined);
  assert.deepEqual(denied, ["0d5e8a7c-1"]);
  assert.equal(records[0]?.cause, "policy", "the log line says who denied");
  assert.match(metrics.render(true), /reviews_total\{decision="deny",cause="policy"\} 1$/m);
});

Deno.test("createRoutes() over HTTP/1.1 counts and logs a fail-closed denial as such", async () => {
  await using served = await setup(() => Promise.resolve({ ...DENY, cause: "error" as const }));
  const { handler, records, metrics } = served;
  assert.equal((await (await handler(post(review()))).json()).response.allowed, false);
  assert.equal(records[0]?.cause, "error");
  assert.match(metrics.render(true), /reviews_total\{decision="deny",cause="error"\} 1$/m);
  assert.match(metrics.render(true), /reviews_total\{decision="deny",cause="policy"\} 0$/m);
});

Deno.test("createRoutes() over HTTP/1.1 refuses a body that is not an AdmissionReview with 400", async () => {
  await using served = await setup(() => Promise.resolve(ALLOW));
  const { handler } = served;
  for (
    const body of ["{not json", { apiVersion: "v1", kind: "Pod" }, { ...review(), request: {} }]
  ) {
    const response = await handler(post(body));
    assert.equal(response.status, 400);
    await response.body?.cancel();
  }
});

Deno.test("createRoutes() over HTTP/1.1 denies with a generic message when the evaluator fails", async () => {
  await using served = await setup(() => Promise.reject(new Error("secret detail at line 12")));
  const { handler, metrics } = served;
  const body = await (await handler(post(review()))).json();
  assert.equal(body.response.allowed, false);
  assert.doesNotMatch(JSON.stringify(body), /secret detail|line 12|at /);
  assert.match(body.response.status.message, /^policy denied the request: .*internal error/);
  assert.match(
    metrics.render(true),
    /toolkit_admission_reviews_total\{decision="error",cause="error"\} 1/,
  );
});

Deno.test("createRoutes() over HTTP/1.1 denies when the evaluator does not answer in time", async () => {
  let release!: () => void;
  await using served = await setup(() =>
    new Promise((resolve) => (release = () => resolve(ALLOW)))
  );
  const { handler } = served;
  const body = await (await handler(post(review()))).json();
  assert.equal(body.response.allowed, false);
  release();
});

Deno.test("createRoutes() over HTTP/1.1 reports readiness, health and metrics", async () => {
  await using served = await setup(() => Promise.resolve(ALLOW), false);
  const { handler, setReady } = served;
  const notReady = await handler(new Request("https://webhook/readyz"));
  assert.equal(notReady.status, 503);
  await notReady.body?.cancel();
  setReady(true);
  assert.equal(await (await handler(new Request("https://webhook/readyz"))).text(), "ok\n");
  assert.equal(await (await handler(new Request("https://webhook/healthz"))).text(), "ok\n");
  await (await handler(post(review()))).body?.cancel();
  const metrics = await (await handler(new Request("https://webhook/metrics"))).text();
  assert.match(metrics, /^toolkit_admission_reviews_total\{decision="allow",cause="policy"\} 1$/m);
  assert.match(metrics, /^toolkit_admission_review_duration_seconds_count 1$/m);
  assert.match(metrics, /^portieris_pod_admission_decision_allow_count 1$/m);
  assert.match(metrics, /^toolkit_admission_ready 1$/m);
});

Deno.test("createRoutes() over HTTP/1.1 answers unknown paths with 404 and wrong methods with 405", async () => {
  await using served = await setup(() => Promise.resolve(ALLOW));
  const { handler } = served;
  const cases: [Request, number][] = [
    [new Request("https://webhook/nope"), 404],
    [new Request("https://webhook/healthz", { method: "POST" }), 405],
    [new Request("https://webhook/admit"), 405],
  ];
  for (const [request, status] of cases) {
    const response = await handler(request);
    assert.equal(response.status, status);
    await response.body?.cancel();
  }
});

Deno.test("createRoutes() over HTTP/1.1 refuses a body over the limit", async () => {
  const records: LogRecord[] = [];
  await using served = await serve({
    evaluator: { evaluate: () => Promise.resolve(ALLOW) },
    ready: () => true,
    metrics: new WebhookMetrics(),
    log: { write: (r) => records.push(r), flush() {} },
    guardMs: 100,
    maxBodyBytes: 10,
  });
  const { handler } = served;
  const response = await handler(post(review()));
  assert.equal(response.status, 413);
  await response.body?.cancel();
});

Deno.test("createRoutes() over HTTP/1.1 refuses a review past its shape with 413 before parsing it, naming the bound", async () => {
  const records: LogRecord[] = [];
  let evaluated = 0;
  await using served = await serve({
    evaluator: {
      evaluate: () => {
        evaluated++;
        return Promise.resolve(ALLOW);
      },
    },
    ready: () => true,
    metrics: new WebhookMetrics(),
    log: { write: (r) => records.push(r), flush() {} },
    guardMs: 100,
  });
  const { handler } = served;
  const deep = await handler(post("[".repeat(65) + "]".repeat(65)));
  assert.equal(deep.status, 413);
  assert.match(await deep.text(), /nested more than 64 levels deep/);
  const wide = await handler(post(`[${"[],".repeat(100_000)}[]]`));
  assert.equal(wide.status, 413);
  assert.match(await wide.text(), /holds more than \d+ JSON values/);
  assert.equal(evaluated, 0);
  assert.equal(records.filter((r) => r.msg === "bad request").length, 2);
  // A real review is within its shape.
  assert.equal((await handler(post(review()))).status, 200);
});

Deno.test("createRoutes() over HTTP/1.1 answers /healthz and /readyz while a huge review is in progress", async () => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let started = false;
  await using served = await setup(async () => {
    started = true;
    await released;
    return DENY;
  });
  const { handler } = served;
  const huge = review("huge-1");
  huge.request.object.spec.containers = Array.from(
    { length: 20_000 },
    (_, i) => ({ name: `c${i}`, image: `registry.example/app:t${i}` }),
  );
  const admitting = handler(post(huge));
  let answered = false;
  void admitting.then(() => (answered = true));
  while (!started) await new Promise((r) => setTimeout(r, 1));
  for (const path of ["/healthz", "/readyz"]) {
    const probe = await handler(new Request(`https://webhook${path}`));
    assert.equal(await probe.text(), "ok\n");
  }
  assert.equal(answered, false, "the probes were answered while the review was in progress");
  release();
  const response = await admitting;
  assert.equal((await response.json()).response.uid, "huge-1");
});

Deno.test("createRoutes() over HTTP/1.1 log lines quote a bounded prefix of a huge image", async () => {
  const huge = "A".repeat(2_900_000);
  await using served = await setup(() =>
    Promise.resolve({ ...DENY, reasons: [`policy denied the request: image "${huge}"`] })
  );
  const { handler, records } = served;
  const response = await handler(post(review()));
  await response.body?.cancel();
  const logged: string[] = [];
  const log = createJsonLog((b) => logged.push(new TextDecoder().decode(b)));
  for (const record of records) log.write(record);
  log.flush();
  assert.ok(logged.join("").length < 16_384, "the review's log line is bounded");
});

Deno.test("createRoutes() answers as text, whatever server carries the request", async () => {
  const records: LogRecord[] = [];
  const routes = createRoutes({
    evaluator: { evaluate: () => Promise.resolve(ALLOW) },
    ready: () => true,
    metrics: new WebhookMetrics(),
    log: { write: (r) => records.push(r), flush() {} },
    guardMs: 100,
  });
  const answer = await routes({
    method: "POST",
    path: "/admit",
    json: () => Promise.resolve(review("routes-1")),
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.contentType, "application/json");
  assert.equal(JSON.parse(answer.body).response.uid, "routes-1");
  // The review's log line and metrics wait until the server has written the answer.
  assert.equal(records.length, 0);
  answer.written?.();
  assert.deepEqual(records.map((r) => [r.msg, r.uid]), [["review", "routes-1"]]);
  const tooLarge = await routes({
    method: "POST",
    path: "/admit",
    json: () => Promise.reject(new RequestBodyTooLargeError()),
  });
  assert.equal(tooLarge.status, 413);
  const probe = await routes({ method: "HEAD", path: "/healthz", json: () => Promise.resolve() });
  assert.deepEqual([probe.status, probe.body], [200, "ok\n"]);
});

Deno.test("createRoutes() hands the evaluator the request's gone signal", async () => {
  const seen: (AbortSignal | undefined)[] = [];
  const routes = createRoutes({
    evaluator: {
      evaluate: (_request, gone) => {
        seen.push(gone);
        return Promise.resolve(ALLOW);
      },
    },
    ready: () => true,
    metrics: new WebhookMetrics(),
    log: { write() {}, flush() {} },
    guardMs: 100,
  });
  const gone = new AbortController().signal;
  await routes({ method: "POST", path: "/admit", json: () => review("gone-1"), gone });
  await routes({ method: "POST", path: "/admit", json: () => Promise.resolve(review("gone-2")) });
  assert.deepEqual(seen, [gone, undefined]);
});
