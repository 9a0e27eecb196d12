import assert from "node:assert/strict";
import type { AdmissionDecision } from "./evaluate.ts";
import { createEventRecorder, denialEvent } from "./events.ts";
import { assertNoCanary, canary } from "../../tests/fakes/secret_canary.ts";
import { fakeKubeClient } from "../../tests/fakes/kube_transport.ts";
import type { AdmissionRequest } from "./review.ts";

const decision: AdmissionDecision = {
  allowed: false,
  outcome: "deny",
  kind: "Pod",
  reasons: ["policy denied the request: x".padEnd(2000, ".")],
  warnings: [],
  patch: [],
  sites: [],
};

function request(overrides: Partial<AdmissionRequest>): AdmissionRequest {
  return {
    uid: "u",
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    subResource: "",
    name: "",
    namespace: "dev",
    operation: "CREATE",
    object: { metadata: { generateName: "web-7c5f-" } },
    oldObject: undefined,
    dryRun: false,
    ...overrides,
  };
}

const options = {
  controller: "toolkit.dev/image-security",
  instance: "w-0",
  now: new Date(0),
  suffix: "abc",
};

Deno.test("denialEvent() names the workload, even one with only a generateName", () => {
  const event = denialEvent(request({}), decision, options)!;
  assert.equal(event.apiVersion, "events.k8s.io/v1");
  assert.equal(event.type, "Warning");
  assert.equal(event.reason, "ImagePolicyDenied");
  assert.equal(event.eventTime, "1970-01-01T00:00:00.000000Z");
  assert.deepEqual(event.regarding, {
    apiVersion: "v1",
    kind: "Pod",
    name: "web-7c5f-",
    namespace: "dev",
  });
  assert.deepEqual(event.metadata, { name: "web-7c5f.abc", namespace: "dev" });
  assert.equal((event.note as string).length, 1024);
});

Deno.test("denialEvent() uses the group of a Deployment and its uid on UPDATE", () => {
  const event = denialEvent(
    request({
      kind: { group: "apps", version: "v1", kind: "Deployment" },
      name: "web",
      operation: "UPDATE",
      object: { metadata: { name: "web", uid: "123" } },
    }),
    decision,
    options,
  )!;
  assert.deepEqual(event.regarding, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: "web",
    namespace: "dev",
    uid: "123",
  });
  assert.equal(event.action, "Update");
});

Deno.test("denialEvent() gives nothing for an object without a name or namespace", () => {
  assert.equal(denialEvent(request({ object: {} }), decision, options), undefined);
});

Deno.test("createEventRecorder() reports a refused Event without quoting secrets from the answer", async () => {
  const secret = canary();
  const answers = [
    () =>
      Response.json({ kind: "Status", message: `admission denied: token=${secret}` }, {
        status: 403,
      }),
    () => new Response(`{"kind": "Event", "note": ${secret}}`),
  ];
  for (const answer of answers) {
    const messages: string[] = [];
    let reported!: () => void;
    const done = new Promise<void>((resolve) => (reported = resolve));
    const recorder = createEventRecorder({
      client: fakeKubeClient(() => answer()),
      instance: "w-0",
      onError: (message) => {
        messages.push(message);
        reported();
      },
    });
    recorder.denied(request({ name: "web" }), decision);
    await done;
    assert.match(messages[0]!, /^Cannot create an Event in "dev": /);
    assertNoCanary(messages[0], secret);
  }
});
