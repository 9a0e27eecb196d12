import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import {
  connaisseurChoice,
  connaisseurImageName,
  connaisseurMatches,
  translateConnaisseurPattern,
} from "./connaisseur_pattern.ts";

Deno.test("Connaisseur's image names: index.docker.io, latest by default, digest kept", () => {
  assert.equal(
    connaisseurImageName(parseReference("nginx")),
    "index.docker.io/library/nginx:latest",
  );
  assert.equal(connaisseurImageName(parseReference("reg.io/a/b:1")), "reg.io/a/b:1");
  const digest = `sha256:${"a".repeat(64)}`;
  assert.equal(connaisseurImageName(parseReference(`reg.io/a@${digest}`)), `reg.io/a@${digest}`);
});

Deno.test("patterns match anywhere in the name, as *pattern*", () => {
  assert.ok(connaisseurMatches("docker.io/*:*", "index.docker.io/library/nginx:latest"));
  assert.ok(connaisseurMatches("my.registry/test", "evil.io/my.registry/testing:1"));
  assert.ok(!connaisseurMatches("registry.k8s.io/*:*", "reg.io/a:1"));
});

// Connaisseur's own internal/policy/match_test.go TestCompare cases (image docker.io/…/sample:v1).
Deno.test("the most specific rule is chosen as Connaisseur's match.go chooses it", () => {
  const image = "docker.io/securesystemsengineering/sample:v1";
  const cases: [string, string, number][] = [
    ["*:*", "*/*", 1],
    ["docker*/*", "*/*/*", 1],
    ["*", "*:*", 1],
    ["*/*", "docker*/*", 1],
    ["docker.i*/s*", "docker.io/*", 1],
    ["*:test", "*/*", 1],
    ["securesystemsengineering/sample:*", "securesystemsengineering/sample:v*", 1],
    ["*", "*", 1], // identical: the later rule
  ];
  for (const [a, b, expected] of cases) {
    // "*:test" does not match; the other one is chosen either way. (match.go's case of
    // "*/*/image:v1" and "*/sam*/*" compares patterns neither of which matches the image.)
    assert.equal(connaisseurChoice([a, b], image), expected, `${a} vs ${b}`);
  }
  assert.equal(connaisseurChoice(["reg.io/*"], image), undefined);
});

Deno.test("patterns translate to toolkit's, with the difference said", () => {
  const exact: [string, string][] = [
    ["*:*", "*"],
    ["*", "*"],
    ["nginx", "*nginx*"],
  ];
  for (const [from, to] of exact) {
    assert.deepEqual(translateConnaisseurPattern(from), { pattern: to });
  }
  const anchored: [string, string][] = [
    ["docker.io/securesystemsengineering/*:*", "docker.io/securesystemsengineering/*"],
    ["my.registry/test", "my.registry/test*"],
    [
      "docker.io/securesystemsengineering/sample:v1",
      "docker.io/securesystemsengineering/sample:v1*",
    ],
    ["registry.k8s.io", "registry.k8s.io/*"],
    ["securesystemsengineering/sample:*", "*/*securesystemsengineering/sample"],
    ["*/sec*/*:*", "*/sec*/*"],
  ];
  for (const [from, to] of anchored) {
    const translated = translateConnaisseurPattern(from);
    assert.ok(
      "pattern" in translated && translated.pattern === to,
      `${from}: ${JSON.stringify(translated)}`,
    );
    assert.match(translated.difference ?? "", /anywhere/);
  }
  for (const refused of ["docker.io/library/redis@sha256:abc", "reg.io/a?", "reg.io/{a,b}", ""]) {
    assert.ok("refused" in translateConnaisseurPattern(refused), refused);
  }
});
