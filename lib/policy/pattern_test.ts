import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { globMatch } from "../glob.ts";
import { parsePattern, patternMatches, patternProblem } from "./pattern.ts";

function matches(pattern: string, image: string): boolean {
  return patternMatches(parsePattern(pattern), parseReference(image));
}

Deno.test("globMatch() treats * as any run of characters and everything else literally", () => {
  assert.ok(globMatch("a*c", "abbbc"));
  assert.ok(globMatch("a*", "a/b:c"));
  assert.ok(!globMatch("a.c", "abc"));
  assert.ok(globMatch("(x)+[y]", "(x)+[y]"));
});

Deno.test("patternMatches() matches exact names and wildcards after normalisation", () => {
  const cases: [string, string, boolean][] = [
    ["*", "nginx", true],
    ["*", "quay.io/a/b@sha256:" + "a".repeat(64), true],
    ["docker.io/library/*", "nginx", true],
    ["docker.io/library/*", "nginx:1.26", true],
    ["nginx", "nginx:1.26", true],
    ["nginx", "docker.io/library/nginx", true],
    ["library/nginx", "nginx", true],
    ["docker.io/nginx", "nginx", false],
    ["index.docker.io/library/nginx", "nginx", true],
    ["icr.io/ns/img", "icr.io/ns/img:tag", true],
    ["icr.io/ns/img", `icr.io/ns/img@sha256:${"b".repeat(64)}`, true],
    ["icr.io/ns/img", `icr.io/ns/img:1@sha256:${"b".repeat(64)}`, true],
    ["icr.io/ns/img:1.*", "icr.io/ns/img:1.2", true],
    ["icr.io/ns/img:1.*", "icr.io/ns/img:2.0", false],
    ["icr.io/ns/img:1.*", `icr.io/ns/img@sha256:${"b".repeat(64)}`, false],
    ["icr.io/ns/*", "icr.io/ns/deep/img:1", true],
    ["icr.io/ns/*", "icr.io/other/img:1", false],
    ["*.icr.io/*", "us.icr.io/ns/img", true],
    ["*.icr.io/*", "icr.io/ns/img", false],
    ["localhost:5000/*", "localhost:5000/app", true],
    ["127.0.0.1:*/*", "127.0.0.1:5000/app:1", true],
  ];
  for (const [pattern, image, expected] of cases) {
    assert.equal(matches(pattern, image), expected, `${pattern} vs ${image}`);
  }
});

Deno.test("patternMatches() matches the host on its own (no cross-host bypass)", () => {
  assert.ok(!matches("*.trusted.example.com/*", "attacker.com/x.trusted.example.com/myorg/evil"));
  assert.ok(
    !matches("*.trusted.example.com/myorg/*", "attacker.com/x.trusted.example.com/myorg/e"),
  );
  assert.ok(matches("*.trusted.example.com/myorg/*", "reg.trusted.example.com/myorg/app"));
  assert.ok(!matches("trusted.example.com/*", "trusted.example.com.attacker.com/app"));
  assert.ok(!matches("docker.io/*", "evil.io/docker.io/app"));
});

// One spelling per registry: a pattern written for a registry governs every spelling of it, and
// a pattern written in any spelling governs the canonical one.
const SAME_REGISTRY: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["localhost:5000/*", ["LOCALHOST:5000/app", "localhost:05000/app", "LocalHost:005000/a/b:1"]],
  ["127.0.0.1:5000/*", ["127.0.0.1:05000/app", "0177.0.0.1:5000/app", "2130706433:5000/app"]],
  ["reg.example.com/*", [
    "REG.EXAMPLE.COM/app",
    "Reg.Example.Com/app:1",
    "reg.example.com:443/app",
    "reg.example.com:0443/app",
    "REG.EXAMPLE.COM:443/app",
  ]],
  ["REG.EXAMPLE.COM/*", ["reg.example.com/app", "reg.example.com:443/app"]],
  ["reg.example.com:443/*", ["reg.example.com/app", "REG.example.com/app"]],
  ["reg.example.com:*/*", ["reg.example.com/app", "reg.example.com:0443/app"]],
  ["*.example.com/*", ["REG.EXAMPLE.COM/app", "reg.example.com:443/app"]],
  ["*.Example.COM:0443/*", ["reg.example.com/app"]],
  ["[fc00::1]:5000/*", ["[FC00::1]:5000/app", "[fc00:0:0:0:0:0:0:1]:05000/app"]],
  ["MYREG/*", ["myreg:443/app", "MyReg/app"]],
  ["docker.io/library/*", [
    "nginx",
    "DOCKER.IO/library/nginx",
    "docker.io:443/library/nginx",
    "index.docker.io/library/nginx",
    "INDEX.DOCKER.IO/nginx",
    "registry-1.docker.io/library/nginx",
    "Registry-1.Docker.IO:0443/nginx",
  ]],
  ["registry-1.docker.io/library/nginx", ["nginx:1", "docker.io/library/nginx"]],
  ["INDEX.DOCKER.IO/library/*", ["nginx"]],
];

for (const [pattern, images] of SAME_REGISTRY) {
  Deno.test(`patternMatches() applies ${JSON.stringify(pattern)} to every spelling`, () => {
    for (const image of images) assert.ok(matches(pattern, image), `${pattern} vs ${image}`);
  });
}

Deno.test("patternMatches() keeps different registries apart", () => {
  const cases: [string, string][] = [
    ["reg.example.com/*", "reg.example.com:8443/app"],
    ["reg.example.com/*", "reg.example.com:80/app"],
    ["reg.example.com:80/*", "reg.example.com/app"],
    ["localhost:5000/*", "localhost:50000/app"],
    ["localhost:5000/*", "localhost/app"],
    ["docker.io/library/*", "docker.io:5000/library/nginx"],
    ["docker.io/library/*", "registry-2.docker.io/library/nginx"],
    ["myreg:443/*", "myreg/app"],
  ];
  for (const [pattern, image] of cases) {
    assert.ok(!matches(pattern, image), `${pattern} must not match ${image}`);
  }
});

Deno.test("parsePattern() writes the host in canonical form and scores it so", () => {
  assert.equal(parsePattern("REG.EXAMPLE.COM:0443/team/*").host, "reg.example.com");
  assert.equal(parsePattern("Registry-1.Docker.IO/library/*").host, "docker.io");
  assert.equal(
    parsePattern("REG.EXAMPLE.COM:0443/team/*").specificity,
    parsePattern("reg.example.com/team/*").specificity,
  );
});

Deno.test("parsePattern() scores specificity by literal characters", () => {
  assert.equal(parsePattern("icr.io/ns/*").specificity, 10);
  assert.equal(parsePattern("*").specificity, 0);
  assert.ok(parsePattern("icr.io/ns/img").exact);
  assert.ok(!parsePattern("icr.io/*").exact);
});

Deno.test("patternProblem() refuses what could never match an image name", () => {
  for (
    const ok of ["*", "icr.io/*", " nginx ", "REG.example.com:443/team/*", "app:V1", "[::1]:5000/*"]
  ) {
    assert.equal(patternProblem(ok), undefined, ok);
  }
  const refused: [string, RegExp][] = [
    ["x".repeat(513), /at most 512/],
    ["   ", /empty/],
    ["icr.io/app@sha256:" + "a".repeat(64), /digest/],
    ["icr.io/app name", /" "/],
    ["icr.io/" + "a".repeat(400) + "*", /longer than 384/],
    ["icr.io/Team/*", /upper case/],
  ];
  for (const [pattern, message] of refused) {
    assert.match(patternProblem(pattern) ?? "", message, pattern.slice(0, 30));
  }
});

Deno.test("patternMatches() takes linear steps on the worst pattern and the longest name", () => {
  const pattern = parsePattern("evil.io/*a*a*a*a*a*a*a*a*b");
  const image = parseReference(`evil.io/${"a".repeat(200)}:1`);
  const counter = { steps: 0 };
  assert.equal(patternMatches(pattern, image, counter), false);
  assert.ok(counter.steps < 2_000, `${counter.steps} steps`);
});
