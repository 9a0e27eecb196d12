import assert from "node:assert/strict";
import { InvalidPolicyError, PORTIERIS_API_GROUP } from "../policy/mod.ts";
import { parseReference } from "../image/mod.ts";
import { filePolicySource, parsePolicyManifests, PolicyFileError } from "./file_source.ts";
import { secretText } from "./source.ts";
import { describeError } from "../errors.ts";

const GROUPS = ["toolkit.dev"];

Deno.test("parsePolicyManifests() reads policies, Secrets, ServiceAccounts and Namespaces", () => {
  const docs = parsePolicyManifests(
    `
apiVersion: toolkit.dev/v1
kind: ImagePolicy
metadata: { name: p }
spec: { repositories: [{ name: "*" }] }
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Secret
    metadata: { name: signer }
    stringData: { key: "armoured text" }
  - apiVersion: v1
    kind: ServiceAccount
    metadata: { name: default, namespace: dev }
    imagePullSecrets: [{ name: regcred }]
---
apiVersion: v1
kind: Namespace
metadata: { name: sandbox, labels: { a: b } }
`,
    "f.yaml",
    { groups: GROUPS, defaultNamespace: "dev" },
  );
  assert.equal(docs.policies[0]?.namespace, "dev");
  assert.equal(secretText(docs.secrets[0]!, "key"), "armoured text");
  assert.deepEqual(docs.serviceAccounts[0]?.imagePullSecrets, [{ name: "regcred" }]);
  assert.deepEqual(docs.namespaces, [{ name: "sandbox", labels: { a: "b" } }]);
});

Deno.test("parsePolicyManifests() reports the field path of a bad policy", () => {
  assert.throws(
    () =>
      parsePolicyManifests(
        `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: bad }
spec:
  repositories:
    - name: x
      policy: { simple: { requirements: [{ type: signedby }] } }
`,
        "f.yaml",
        { groups: GROUPS },
      ),
    (error: unknown) =>
      error instanceof InvalidPolicyError &&
      /spec\.repositories\[0\]\.policy\.simple\.requirements\[0\]\.type/.test(error.message),
  );
});

Deno.test("parsePolicyManifests() accepts the Portieris group only when asked", () => {
  const text = `apiVersion: ${PORTIERIS_API_GROUP}/v1
kind: ClusterImagePolicy
metadata: { name: p }
spec: { repositories: [{ name: "*" }] }
`;
  assert.throws(() => parsePolicyManifests(text, "f", { groups: GROUPS }), InvalidPolicyError);
  const docs = parsePolicyManifests(text, "f", { groups: [...GROUPS, PORTIERIS_API_GROUP] });
  assert.equal(docs.policies.length, 1);
});

Deno.test("parsePolicyManifests() refuses other kinds and broken YAML", () => {
  assert.throws(
    () =>
      parsePolicyManifests("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", "f", {
        groups: GROUPS,
      }),
    PolicyFileError,
  );
  assert.throws(() => parsePolicyManifests("a: [", "f", { groups: GROUPS }), PolicyFileError);
});

Deno.test("filePolicySource() finds namespaced objects first, then namespace-less ones", async () => {
  const docs = parsePolicyManifests(
    `apiVersion: v1
kind: Secret
metadata: { name: s }
data: { key: YQ== }
---
apiVersion: v1
kind: Secret
metadata: { name: s, namespace: dev }
data: { key: Yg== }
---
apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: p }
spec: { repositories: [{ name: "*" }] }
`,
    "f",
    { groups: GROUPS },
  );
  const source = filePolicySource(docs);
  assert.equal(secretText((await source.secret("dev", "s"))!, "key"), "b");
  assert.equal(secretText((await source.secret("other", "s"))!, "key"), "a");
  assert.equal(await source.secret("dev", "missing"), undefined);
  assert.equal(source.ready(), true);
  const match = source.policies().select("dev", parseReference("nginx"), "nginx");
  assert.equal(match.policy !== undefined, true);
  source.replace({ policies: [], secrets: [], serviceAccounts: [], namespaces: [] });
  assert.equal(source.policies().select("dev", parseReference("nginx"), "nginx").policy, undefined);
});

Deno.test("parsePolicyManifests() does not quote a Secret's value on a line with a YAML error", () => {
  const canary = `CANARY-S3CR3T-${crypto.randomUUID()}`;
  const text = `apiVersion: v1
kind: Secret
metadata: { name: store }
stringData:
  password: ${canary}: oops
`;
  let error: unknown;
  try {
    parsePolicyManifests(text, "f", { groups: GROUPS });
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof PolicyFileError);
  assert.ok(!describeError(error).includes(canary), describeError(error));
  assert.ok(!String(error.stack).includes(canary));
  assert.ok(!String((error.cause as Error).stack).includes(canary));
  assert.match(error.message, /invalid YAML in document 1 at line 5, column \d+/);
});
