import assert from "node:assert/strict";
import { type Requirement, REQUIREMENT_TYPES } from "../policy/mod.ts";
import { KIND_ORDER, kindOf, REQUIREMENT_KINDS, unknownKind } from "./requirement_kinds.ts";
import { parseReference } from "../image/mod.ts";
import { pullCredentials } from "./credentials.ts";
import { filePolicySource } from "./file_source.ts";
import { createImageVerifier } from "./verifier.ts";
import { fakeMatch, fakePlanContext, fakeServices } from "../../tests/fakes/requirement_kinds.ts";

Deno.test("REQUIREMENT_KINDS has one kind for every requirement type, under its own type", () => {
  assert.deepEqual(Object.keys(REQUIREMENT_KINDS).sort(), [...REQUIREMENT_TYPES].sort());
  for (const [type, kind] of Object.entries(REQUIREMENT_KINDS)) assert.equal(kind.type, type);
});

Deno.test("KIND_ORDER verifies sigstoreSigned requirements before signedBy ones", () => {
  const order = KIND_ORDER.map((k) => k.type);
  assert.ok(order.indexOf("sigstoreSigned") < order.indexOf("signedBy"));
});

Deno.test("kindOf() gives each requirement its kind, and denies a type no module knows", async () => {
  assert.equal(kindOf({ type: "signedBy", keySecret: "k" }), REQUIREMENT_KINDS.signedBy);
  assert.equal(kindOf({ type: "reject" }), REQUIREMENT_KINDS.reject);
  // A policy that did not come through validation (a type added to the schema but not here).
  const stranger = { type: "attestedBy" } as unknown as Requirement;
  const kind = kindOf(stranger);
  assert.equal(kind.needs, "deny");
  assert.match(kind.denial("docker://r.example/a:1"), /r\.example\/a:1 .*"attestedBy"/);
  // Nor is `toString` or `constructor` a kind.
  assert.equal(kindOf({ type: "toString" } as unknown as Requirement).needs, "deny");
  await assert.rejects(kind.plan(stranger, fakePlanContext(fakeServices().services)));
});

Deno.test("unknownKind() never verifies", async () => {
  const kind = unknownKind("x");
  assert.throws(() => kind.planKey(undefined));
  await assert.rejects(kind.verify([], undefined as never, fakeServices().services));
});

Deno.test("the verifier denies an image under a requirement of a type no kind knows, without the registry", async () => {
  const calls: string[] = [];
  const source = filePolicySource({
    policies: [],
    secrets: [],
    serviceAccounts: [],
    namespaces: [],
  });
  const verifier = createImageVerifier({
    source,
    clusterKeyNamespace: "toolkit-system",
    fetch: (input) => {
      calls.push(String(input));
      return Promise.reject(new TypeError("connection refused"));
    },
    flightTimeoutMs: 10_000,
    verdictCache: { ttlMs: 60_000, maxEntries: 10 },
    digestCache: { ttlMs: 60_000, maxEntries: 10 },
  });
  const stranger = { type: "attestedBy" } as unknown as Requirement;
  for (const mutateImage of [true, false]) {
    const verdict = await verifier.verify({
      reference: parseReference("r.example/team/app:1"),
      match: { ...fakeMatch(), policy: { mutateImage, simple: { requirements: [stranger] } } },
      namespace: "dev",
      credentials: () => pullCredentials(source, "dev", [], "default"),
    });
    assert.deepEqual(verdict, {
      allowed: false,
      reason: unknownKind("attestedBy").denial("docker://r.example/team/app:1"),
      cause: "policy",
    });
  }
  assert.deepEqual(calls, []);
});
