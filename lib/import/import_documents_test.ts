import assert from "node:assert/strict";
import { importedObjects, importWith } from "./import_documents.ts";
import { keySecretObject, policyObject } from "./objects.ts";
import type { ImportedRule, PolicyImporter } from "./types.ts";

const context = { controllerNamespace: "toolkit-system" };

/** A fake importer: documents `{fake: name, pattern}` become one ClusterImagePolicy each. */
function fake(everyMatchingRuleApplies: boolean, kind = "fake"): PolicyImporter {
  return {
    name: kind,
    everyMatchingRuleApplies,
    accepts: (d) => typeof d === "object" && d !== null && (d as { fake?: string }).fake === kind,
    convert(document, index): Promise<readonly ImportedRule[]> {
      const source = { apiVersion: "x/v1", kind, name: String(document.name), document: index };
      if (document.throw) throw new Error("boom");
      const requirements = document.bad ? [{ type: "nonsense" }] : [{ type: "reject" }];
      const namespace = typeof document.namespace === "string" ? document.namespace : undefined;
      return Promise.resolve([{
        source,
        objects: [
          policyObject(String(document.name), namespace, [{
            name: String(document.pattern),
            policy: { simple: { requirements } },
          }], source),
        ],
        findings: [],
        refused: false,
      }]);
    },
  };
}

Deno.test("importDocuments() sends each document to the importer that accepts it, lists the others", async () => {
  const result = await importWith([fake(false)], [
    { fake: "fake", name: "a", pattern: "ghcr.io/a/*" },
    { kind: "Deployment" },
    "text",
    { fake: "fake", name: "b", pattern: "ghcr.io/b/*" },
  ], context);
  assert.deepEqual(result.unknown, [1, 2]);
  assert.deepEqual(result.rules.map((r) => [r.source.name, r.source.document, r.refused]), [
    ["a", 0, false],
    ["b", 3, false],
  ]);
});

Deno.test("importDocuments() refuses a rule whose policy toolkit's validator refuses, or whose importer throws", async () => {
  const result = await importWith([fake(false)], [
    { fake: "fake", name: "bad", pattern: "ghcr.io/a/*", bad: true },
    { fake: "fake", name: "throws", pattern: "x", throw: true },
  ], context);
  assert.equal(result.rules.length, 2);
  for (const rule of result.rules) {
    assert.equal(rule.refused, true);
    assert.deepEqual(rule.objects, []);
    assert.equal(rule.findings.at(-1)!.kind, "refused");
  }
  assert.match(result.rules[0]!.findings[0]!.reason, /requirements\[0\]\.type/);
  assert.match(result.rules[1]!.findings[0]!.reason, /boom/);
});

Deno.test("importDocuments() reports overlapping patterns when the source applies every matching rule", async () => {
  const docs = [
    { fake: "fake", name: "wide", pattern: "ghcr.io/*" },
    { fake: "fake", name: "narrow", pattern: "ghcr.io/team/app" },
    { fake: "fake", name: "apart", pattern: "quay.io/x/*" },
  ];
  const all = await importWith([fake(true)], docs, context);
  const weaker = all.rules.map((r) => r.findings.filter((f) => f.kind === "weaker").length);
  assert.deepEqual(weaker, [1, 1, 0]);
  assert.match(all.rules[0]!.findings[0]!.reason, /"ghcr.io\/\*" overlaps "ghcr.io\/team\/app"/);
  const one = await importWith([fake(false)], docs, context);
  assert.deepEqual(one.rules.map((r) => r.findings.length), [0, 0, 0]);
});

Deno.test("importDocuments() reports an ImagePolicy that shadows imported cluster policies", async () => {
  const result = await importWith([fake(false)], [
    { fake: "fake", name: "cluster", pattern: "ghcr.io/*" },
    { fake: "fake", name: "team", pattern: "quay.io/*", namespace: "team" },
  ], context);
  assert.deepEqual(result.rules[0]!.findings, []);
  assert.equal(result.rules[1]!.findings[0]!.path, "metadata.namespace");
  assert.match(result.rules[1]!.findings[0]!.reason, /x\/v1 fake cluster no longer apply/);
});

Deno.test("importDocuments() refuses a rule that makes an object an earlier rule makes", async () => {
  const result = await importWith([fake(false)], [
    { fake: "fake", name: "same", pattern: "ghcr.io/a/*" },
    { fake: "fake", name: "same", pattern: "ghcr.io/b/*" },
  ], context);
  assert.deepEqual(result.rules.map((r) => r.refused), [false, true]);
  assert.deepEqual(result.rules[1]!.findings, [{
    path: "metadata.name",
    kind: "refused",
    reason:
      "it makes ClusterImagePolicy same, as x/v1 fake same (document 0) does, with other content: rename one of them",
  }]);
});

Deno.test("importDocuments() takes an object two rules make alike as one (no clash)", async () => {
  const result = await importWith([fake(false)], [
    { fake: "fake", name: "same", pattern: "ghcr.io/a/*" },
    { fake: "fake", name: "same", pattern: "ghcr.io/a/*" },
  ], context);
  assert.deepEqual(result.rules.map((r) => r.refused), [false, false]);
});

Deno.test("importedObjects() lists an object two rules make alike once", async () => {
  const result = await importWith([fake(false)], [
    { fake: "fake", name: "same", pattern: "ghcr.io/a/*" },
    { fake: "fake", name: "same", pattern: "ghcr.io/a/*" },
    { fake: "fake", name: "other", pattern: "ghcr.io/b/*" },
  ], context);
  assert.deepEqual(
    importedObjects(result.rules).map((o) => (o.metadata as { name: string }).name),
    ["same", "other"],
  );
});

Deno.test("importDocuments() refuses a rule whose key Secret holds a key the webhook refuses", async () => {
  // A 1024-bit RSA key: readable, but under the webhook's 2048 bits.
  const { publicKey } = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 1024,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const der = new Uint8Array(await crypto.subtle.exportKey("spki", publicKey));
  const pem = `-----BEGIN PUBLIC KEY-----\n${
    btoa(String.fromCharCode(...der)).replace(/(.{64})/g, "$1\n")
  }\n-----END PUBLIC KEY-----\n`;
  const importer: PolicyImporter = {
    name: "keyed",
    accepts: (d) => (d as { keyed?: unknown }).keyed !== undefined,
    convert: (_d, index) =>
      Promise.resolve([{
        source: { apiVersion: "x/v1", kind: "keyed", name: "k", document: index },
        objects: [
          keySecretObject("k", "toolkit-system", pem, {
            apiVersion: "x/v1",
            kind: "keyed",
            name: "k",
            document: index,
          }),
          policyObject("k", undefined, [{
            name: "ghcr.io/a/*",
            policy: { simple: { requirements: [{ type: "sigstoreSigned", keySecret: "k" }] } },
          }], { apiVersion: "x/v1", kind: "keyed", name: "k", document: index }),
        ],
        findings: [],
        refused: false,
      }]),
  };
  const result = await importWith([importer], [{ keyed: true }], context);
  assert.equal(result.rules[0]!.refused, true);
  assert.match(
    result.rules[0]!.findings[0]!.reason,
    /^the key of Secret toolkit-system\/k would be refused by the webhook: .*1024/,
  );
});
