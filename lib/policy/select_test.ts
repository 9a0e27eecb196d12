import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { MAX_PATTERNS_PER_NAMESPACE, type PolicyMatch, PolicySet } from "./select.ts";
import type { ImagePolicy, RepositoryPolicy } from "./types.ts";

const allow: RepositoryPolicy = {};
const signed = (key: string): RepositoryPolicy => ({
  simple: { requirements: [{ type: "signedBy", keySecret: key }] },
});

function cluster(name: string, repos: [string, RepositoryPolicy][]): ImagePolicy {
  return {
    kind: "ClusterImagePolicy",
    name,
    repositories: repos.map(([n, policy]) => ({ name: n, policy })),
  };
}

function local(ns: string, name: string, repos: [string, RepositoryPolicy][]): ImagePolicy {
  return { ...cluster(name, repos), kind: "ImagePolicy", namespace: ns };
}

function select(set: PolicySet, ns: string, image: string): PolicyMatch {
  const result = set.select(ns, parseReference(image), image);
  if (!("pattern" in result)) throw new Error(`no policy for ${image}: ${result.reason}`);
  return result;
}

function selectNone(set: PolicySet, ns: string, image: string): string {
  const result = set.select(ns, parseReference(image), image);
  assert.equal(result.policy, undefined, `${image} must match no policy`);
  return "reason" in result ? result.reason : "";
}

Deno.test("PolicySet.select() picks the most specific pattern", () => {
  const set = new PolicySet([
    cluster("default", [["*", allow], ["icr.io/*", signed("a")], ["icr.io/team/*", signed("b")]]),
  ]);
  assert.equal(select(set, "dev", "icr.io/team/app:1").pattern, "icr.io/team/*");
  assert.equal(select(set, "dev", "icr.io/other/app:1").pattern, "icr.io/*");
  assert.equal(select(set, "dev", "nginx").pattern, "*");
});

Deno.test("PolicySet.select() prefers an exact name over any wildcard", () => {
  const set = new PolicySet([
    cluster("a", [["icr.io/team/app*", signed("wild")], ["icr.io/team/app", signed("exact")]]),
  ]);
  const match = select(set, "dev", "icr.io/team/app:2");
  assert.equal(match.pattern, "icr.io/team/app");
});

Deno.test("PolicySet.select() lets any ImagePolicy of the namespace replace the cluster policies", () => {
  const set = new PolicySet([
    cluster("default", [["*", allow]]),
    local("secure", "only-icr", [["icr.io/*", signed("k")]]),
  ]);
  assert.equal(select(set, "other", "nginx").pattern, "*");
  assert.equal(select(set, "secure", "icr.io/a/b").source, 'ImagePolicy "secure/only-icr"');
  assert.match(selectNone(set, "secure", "nginx"), /no ImagePolicy in namespace "secure" matches/);
});

Deno.test("PolicySet.select() explains when there is no policy at all", () => {
  assert.match(selectNone(new PolicySet([]), "dev", "nginx"), /no ClusterImagePolicy/);
});

Deno.test("PolicySet.select() breaks ties by policy name, whatever the input order", () => {
  const a = cluster("a", [["icr.io/*", signed("from-a")]]);
  const b = cluster("b", [["icr.io/*", signed("from-b")]]);
  for (const order of [[a, b], [b, a]]) {
    assert.equal(select(new PolicySet(order), "x", "icr.io/n/i").source, 'ClusterImagePolicy "a"');
  }
});

Deno.test("PolicySet.select() says which policy kind, name and namespace matched", () => {
  const set = new PolicySet([
    cluster("default", [["*", allow]]),
    local("secure", "only-icr", [["icr.io/*", signed("k")]]),
  ]);
  const clusterMatch = select(set, "other", "nginx");
  assert.deepEqual([clusterMatch.kind, clusterMatch.name, clusterMatch.namespace], [
    "ClusterImagePolicy",
    "default",
    undefined,
  ]);
  const localMatch = select(set, "secure", "icr.io/a/b");
  assert.deepEqual([localMatch.kind, localMatch.name, localMatch.namespace], [
    "ImagePolicy",
    "only-icr",
    "secure",
  ]);
});

Deno.test("PolicySet.hasImagePolicies() counts an ImagePolicy with no repositories", () => {
  const set = new PolicySet([local("empty", "nothing", []), cluster("default", [["*", allow]])]);
  assert.equal(set.hasImagePolicies("empty"), true);
  assert.equal(set.hasImagePolicies("other"), false);
  assert.match(selectNone(set, "empty", "nginx"), /no ImagePolicy in namespace "empty" matches/);
  assert.equal(set.size, 2);
});

Deno.test("PolicySet.select() gives every spelling of a registry its registry's policy", () => {
  const set = new PolicySet([
    cluster("default", [
      ["*", allow],
      ["127.0.0.1:5000/*", signed("local")],
      ["localhost:5000/*", signed("local")],
      ["reg.example.com/*", signed("reg")],
      ["docker.io/library/*", signed("hub")],
    ]),
  ]);
  const cases: Array<[string, string]> = [
    ["127.0.0.1:05000/app:1", "127.0.0.1:5000/*"],
    ["0177.0.0.1:5000/app:1", "127.0.0.1:5000/*"],
    ["LOCALHOST:5000/app:1", "localhost:5000/*"],
    ["localhost:05000/app:1", "localhost:5000/*"],
    ["REG.EXAMPLE.COM/app:1", "reg.example.com/*"],
    ["reg.example.com:443/app:1", "reg.example.com/*"],
    ["reg.example.com:0443/app:1", "reg.example.com/*"],
    ["registry-1.docker.io/library/nginx", "docker.io/library/*"],
    ["Index.Docker.IO/library/nginx", "docker.io/library/*"],
    ["DOCKER.IO:443/nginx", "docker.io/library/*"],
    ["reg.example.com:8443/app:1", "*"],
  ];
  for (const [image, pattern] of cases) {
    assert.equal(select(set, "dev", image).pattern, pattern, image);
  }
});

Deno.test("PolicySet.select() says when a pattern matched only through the image's tag", () => {
  const set = new PolicySet([
    cluster("default", [
      ["icr.io/team/multi:1", allow],
      ["icr.io/team/multi", signed("k")],
      ["icr.io/other/*", signed("k")],
    ]),
  ]);
  const digest = `sha256:${"a".repeat(64)}`;
  const byTag = select(set, "dev", `icr.io/team/multi:1@${digest}`);
  assert.deepEqual([byTag.pattern, byTag.matchedByTag], ["icr.io/team/multi:1", true]);
  const byRepository = select(set, "dev", `icr.io/team/multi:2@${digest}`);
  assert.deepEqual([byRepository.pattern, byRepository.matchedByTag], ["icr.io/team/multi", false]);
  assert.equal(select(set, "dev", `icr.io/other/app:1@${digest}`).matchedByTag, false);
  assert.equal(select(set, "dev", `icr.io/team/multi@${digest}`).matchedByTag, false);
});

Deno.test("PolicySet indexes patterns by host without changing which one wins", () => {
  const set = new PolicySet([
    cluster("a", [["*.icr.io/*", signed("wild")], ["us.icr.io/team/*", signed("team")]]),
    cluster("b", [["us.icr.io/team/*", signed("later")], ["us.icr.io:443/*", signed("port")]]),
  ]);
  // Same specificity: the first in policy-name order wins, whatever the index does.
  assert.equal(select(set, "dev", "us.icr.io/team/app").source, 'ClusterImagePolicy "a"');
  assert.equal(select(set, "dev", "us.icr.io/other/app").pattern, "us.icr.io:443/*");
  assert.equal(select(set, "dev", "eu.icr.io/other/app").pattern, "*.icr.io/*");
});

Deno.test("PolicySet.problem() refuses a namespace governed by too many patterns", () => {
  const many = Array.from(
    { length: MAX_PATTERNS_PER_NAMESPACE + 1 },
    (_, i): [string, RepositoryPolicy] => [`evil.io/*a*${i}`, allow],
  );
  const set = new PolicySet([cluster("default", [["*", allow]]), local("evil", "p", many)]);
  assert.match(set.problem("evil") ?? "", /namespace "evil".*more than 512/);
  assert.equal(set.problem("dev"), undefined, "other namespaces keep their policies");
  assert.equal(select(set, "dev", "nginx").pattern, "*");
});

/** A slicer that says every slice is due, and counts the turns it was asked to wait. */
function everySlice() {
  const slicer = {
    counter: { steps: 0 },
    turns: 0,
    due: () => true,
    next: () => {
      slicer.turns++;
      return Promise.resolve();
    },
  };
  return slicer;
}

Deno.test("PolicySet.compileScope() compiles one scope in slices; withScope() swaps it in and shares the rest", async () => {
  const base = new PolicySet([
    cluster("c", [["*", signed("cluster")]]),
    local("a", "p", [["icr.io/a/*", signed("a1")]]),
    local("b", "p", [["icr.io/b/*", signed("b")]]),
  ]);
  const repos: [string, RepositoryPolicy][] = Array.from(
    { length: 512 },
    (_, i) => [`icr.io/a/app-${i}`, signed(`a2-${i}`)],
  );
  const slicer = everySlice();
  const compiled = await PolicySet.compileScope(
    "a",
    [local("a", "z", repos), local("a", "p", [])],
    slicer,
  );
  assert.equal(slicer.turns, 512 / 16 - 1);
  assert.deepEqual(compiled.policies.map((p) => p.name), ["p", "z"]);
  const next = base.withScope(compiled);
  assert.equal(next.size, 4);
  assert.equal(base.size, 3);
  assert.equal(select(next, "a", "icr.io/a/app-7").policy, repos[7]![1]);
  selectNone(next, "a", "icr.io/b/x");
  // The old set is unchanged; the other scopes are the same compiled objects.
  assert.equal(select(base, "a", "icr.io/a/app-7").pattern, "icr.io/a/*");
  assert.equal(select(next, "b", "icr.io/b/x").policy, select(base, "b", "icr.io/b/x").policy);
  assert.equal(select(next, "other", "x.io/y").policy, select(base, "other", "x.io/y").policy);
  // A scope with no policies any more: its namespace falls back to the cluster policies.
  const emptied = next.withScope(await PolicySet.compileScope("a", [], slicer));
  assert.equal(emptied.hasImagePolicies("a"), false);
  assert.equal(select(emptied, "a", "icr.io/a/app-7").pattern, "*");
  assert.equal(emptied.size, 2);
  const noCluster = emptied.withScope(await PolicySet.compileScope("", [], slicer));
  selectNone(noCluster, "a", "icr.io/a/app-7");
  assert.equal(noCluster.size, 1);
});
