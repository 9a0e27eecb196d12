/**
 * What policies cost the webhook: `deno bench -A lib/policy/select_bench.ts`.
 *
 * - compiling a cluster's policies from nothing: 100 namespaces of 512 patterns each (the most
 *   one namespace may hold);
 * - compiling again after one namespace's ImagePolicy changed (the rest reused): what every
 *   policy update costs the event loop, bounded by one namespace's patterns;
 * - validating one ImagePolicy of 512 repositories;
 * - choosing the policy of one 200-character name among 512 patterns of 20 wildcards that all
 *   get past their first and last pieces (the slowest choice a namespace can ask for).
 */
import { parseReference } from "../image/mod.ts";
import { type ImagePolicy, PolicySet, validatePolicy } from "./mod.ts";

function object(namespace: string, version: number): Record<string, unknown> {
  return {
    apiVersion: "toolkit.dev/v1",
    kind: "ImagePolicy",
    metadata: { name: "p", namespace, resourceVersion: String(version) },
    spec: {
      repositories: Array.from({ length: 512 }, (_, i) => ({
        name: `reg${i}.example.com/team-${namespace}/*a*b*${i}-${version}`,
        policy: { simple: { requirements: [{ type: "signedBy", keySecret: `key-${i}` }] } },
      })),
    },
  };
}

const namespaces = Array.from({ length: 100 }, (_, i) => `ns${i}`);
const policies: ImagePolicy[] = namespaces.map((ns) =>
  validatePolicy(object(ns, 1), ["toolkit.dev"])
);
const full = new PolicySet(policies);
const changed = [...policies];
let version = 2;

Deno.bench("compile 100 namespaces x 512 patterns from nothing", { group: "compile" }, () => {
  new PolicySet(policies);
});

Deno.bench(
  "compile again after one namespace changed",
  { group: "compile", baseline: true },
  () => {
    changed[37] = validatePolicy(object("ns37", version++), ["toolkit.dev"]);
    new PolicySet(changed, full);
  },
);

Deno.bench("validate one ImagePolicy of 512 repositories", () => {
  validatePolicy(object("ns1", 1), ["toolkit.dev"]);
});

const hostile = new PolicySet([{
  kind: "ImagePolicy",
  name: "hostile",
  namespace: "evil",
  repositories: Array.from({ length: 512 }, (_, i) => ({
    name: `*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c${i}*b`,
    policy: {},
  })),
}]);
let n = 0;
Deno.bench("choose among 512 twenty-wildcard patterns for a 200-character name", () => {
  const text = `evil.io/${"a".repeat(200)}:t${n++ % 1000}b`;
  hostile.select("evil", parseReference(text), text);
});
