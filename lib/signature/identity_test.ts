import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import {
  DEFAULT_IDENTITY_RULE,
  type IdentityRule,
  InvalidIdentityRuleError,
  matchIdentity,
  parseIdentityRule,
} from "./identity.ts";

const D1 = "sha256:" + "1".repeat(64);

function matches(rule: IdentityRule, image: string, signed: string): boolean {
  return matchIdentity(rule, parseReference(image), signed).matches;
}

function reason(rule: IdentityRule, image: string, signed: string): string {
  const result = matchIdentity(rule, parseReference(image), signed);
  assert.equal(result.matches, false, `${image} vs ${signed}`);
  return result.matches ? "" : result.reason;
}

Deno.test("parseIdentityRule() gives the default rule for nothing, null and the empty type", () => {
  for (const raw of [undefined, null, "", { type: "" }, {}, "matchRepoDigestOrExact"]) {
    assert.deepEqual(parseIdentityRule(raw), DEFAULT_IDENTITY_RULE, JSON.stringify(raw));
  }
  assert.deepEqual(DEFAULT_IDENTITY_RULE, { type: "matchRepoDigestOrExact" });
});

Deno.test("parseIdentityRule() accepts the Portieris and the containers/image names", () => {
  assert.deepEqual(parseIdentityRule({ type: "matchExact" }), { type: "matchExact" });
  assert.deepEqual(parseIdentityRule({ type: "matchRepository" }), { type: "matchRepository" });
  for (const type of ["matchExactReference", "exactReference"]) {
    assert.deepEqual(parseIdentityRule({ type, dockerReference: "nginx:1.25" }), {
      type: "matchExactReference",
      dockerReference: "docker.io/library/nginx:1.25",
    });
  }
  for (const type of ["matchExactRepository", "exactRepository"]) {
    assert.deepEqual(parseIdentityRule({ type, dockerRepository: "quay.io/team/app" }), {
      type: "matchExactRepository",
      dockerRepository: "quay.io/team/app",
    });
  }
  assert.deepEqual(
    parseIdentityRule({
      type: "remapIdentity",
      prefix: "mirror.example.com/hub",
      signedPrefix: "docker.io",
    }),
    { type: "remapIdentity", prefix: "mirror.example.com/hub", signedPrefix: "docker.io" },
  );
});

Deno.test("parseIdentityRule() ignores empty fields a CRD may carry", () => {
  assert.deepEqual(
    parseIdentityRule({ type: "matchRepository", dockerReference: "", prefix: "" }),
    { type: "matchRepository" },
  );
});

Deno.test("parseIdentityRule() rejects unknown types with a clear error", () => {
  assert.throws(
    () => parseIdentityRule({ type: "matchEverything" }),
    (error: unknown) =>
      error instanceof InvalidIdentityRuleError &&
      error.message.startsWith('Cannot use signedIdentity type "matchEverything": unknown type'),
  );
  assert.throws(() => parseIdentityRule({ type: 3 }), /must be a string/);
  assert.throws(() => parseIdentityRule(7), /must be an object/);
  assert.throws(() => parseIdentityRule(["matchExact"]), /must be an object/);
});

Deno.test("parseIdentityRule() rejects missing, invalid and misplaced fields", () => {
  assert.throws(
    () => parseIdentityRule({ type: "matchExactReference" }),
    /needs a non-empty "dockerReference"/,
  );
  assert.throws(
    () => parseIdentityRule({ type: "matchExactReference", dockerReference: "nginx" }),
    /needs a tag or digest/,
  );
  assert.throws(
    () => parseIdentityRule({ type: "exactReference", dockerReference: "nginx:bad tag" }),
    InvalidIdentityRuleError,
  );
  assert.throws(() => parseIdentityRule({ type: "exactRepository" }), /dockerRepository/);
  assert.throws(
    () => parseIdentityRule({ type: "matchExactRepository", dockerRepository: "bad repo" }),
    InvalidIdentityRuleError,
  );
  assert.throws(
    () => parseIdentityRule({ type: "matchExact", dockerReference: "nginx:1" }),
    /does not take "dockerReference"/,
  );
  assert.throws(
    () => parseIdentityRule({ type: "matchExact", colour: "red" }),
    /unknown field "colour"/,
  );
  assert.throws(
    () => parseIdentityRule({ type: "remapIdentity", prefix: "quay.io" }),
    /signedPrefix/,
  );
});

Deno.test("parseIdentityRule() accepts remapIdentity prefixes as hosts, namespaces or repositories only", () => {
  for (
    const prefix of ["quay.io", "localhost:5000", "[::1]:5000", "docker.io/library", "quay.io/a/b"]
  ) {
    assert.doesNotThrow(
      () => parseIdentityRule({ type: "remapIdentity", prefix, signedPrefix: "example.com" }),
      prefix,
    );
  }
  for (
    const prefix of ["quay.io/a:1", "quay.io/a@" + D1, "http://x", "quay.io/A", "quay.io/", ""]
  ) {
    assert.throws(
      () => parseIdentityRule({ type: "remapIdentity", prefix, signedPrefix: "example.com" }),
      /must be a host\[:port\] or a fully qualified namespace or repository|non-empty/,
      prefix,
    );
  }
});

Deno.test("matchRepoDigestOrExact: a tagged image needs the same name and tag", () => {
  const rule = DEFAULT_IDENTITY_RULE;
  assert.ok(matches(rule, "nginx:1.25", "docker.io/library/nginx:1.25"));
  assert.match(
    reason(rule, "nginx:1.25", "docker.io/library/nginx:1.26"),
    /does not match docker.io\/library\/nginx:1.25/,
  );
  assert.match(reason(rule, "nginx:1.25", "docker.io/library/other:1.25"), /does not match/);
  assert.match(reason(rule, "nginx:1.25", "docker.io/library/nginx"), /has neither tag nor digest/);
  assert.match(reason(rule, "nginx:1.25", `docker.io/library/nginx@${D1}`), /does not match/);
});

Deno.test("matchRepoDigestOrExact: an image by digest needs the same repository only", () => {
  const rule = DEFAULT_IDENTITY_RULE;
  assert.ok(matches(rule, `nginx@${D1}`, "docker.io/library/nginx:1.25"));
  assert.ok(matches(rule, `nginx@${D1}`, `docker.io/library/nginx@${D1}`));
  assert.ok(matches(rule, `nginx:1.25@${D1}`, "docker.io/library/nginx:any"));
  assert.match(
    reason(rule, `nginx@${D1}`, "docker.io/library/redis:1"),
    /is not in the image's repository docker.io\/library\/nginx/,
  );
  assert.match(reason(rule, `nginx@${D1}`, "docker.io/library/nginx"), /neither tag nor digest/);
});

Deno.test("matchRepoDigestOrExact: an image with neither tag nor digest matches nothing", () => {
  assert.match(
    reason(DEFAULT_IDENTITY_RULE, "nginx", "docker.io/library/nginx:latest"),
    /image reference docker.io\/library\/nginx has neither tag nor digest/,
  );
});

Deno.test("matchIdentity() normalises the signed identity like containers/image", () => {
  for (
    const signed of [
      "nginx:1.25",
      "docker.io/nginx:1.25",
      "index.docker.io/library/nginx:1.25",
      "docker.io/library/nginx:1.25",
    ]
  ) {
    assert.ok(matches(DEFAULT_IDENTITY_RULE, "nginx:1.25", signed), signed);
  }
  for (const signed of ["", "x y", "NGINX:1.25"]) {
    assert.match(reason(DEFAULT_IDENTITY_RULE, "nginx:1.25", signed), /is not a valid reference/);
  }
});

Deno.test("matchExact: the full reference must be equal, tag or digest included", () => {
  const rule: IdentityRule = { type: "matchExact" };
  assert.ok(matches(rule, "quay.io/a/b:1", "quay.io/a/b:1"));
  assert.match(reason(rule, "quay.io/a/b:1", "quay.io/a/b:2"), /does not match quay.io\/a\/b:1/);
  // By digest, like containers/image: equal only to the same digest reference, never to a tag.
  assert.ok(matches(rule, `quay.io/a/b@${D1}`, `quay.io/a/b@${D1}`));
  assert.match(reason(rule, `quay.io/a/b@${D1}`, "quay.io/a/b:1"), /does not match/);
  assert.match(reason(rule, "quay.io/a/b", "quay.io/a/b:latest"), /has neither tag nor digest/);
  assert.match(reason(rule, "quay.io/a/b:1", "quay.io/a/b"), /has neither tag nor digest/);
});

Deno.test("matchRepository: only the repository must be equal", () => {
  const rule: IdentityRule = { type: "matchRepository" };
  assert.ok(matches(rule, "quay.io/a/b:1", "quay.io/a/b:2"));
  assert.ok(matches(rule, `quay.io/a/b@${D1}`, "quay.io/a/b"));
  assert.ok(matches(rule, "quay.io/a/b", "quay.io/a/b:x"));
  assert.match(
    reason(rule, "quay.io/a/b:1", "quay.io/a/c:1"),
    /is not in the image's repository quay.io\/a\/b/,
  );
  assert.match(
    reason(rule, "quay.io/a/b:1", "docker.io/a/b:1"),
    /is not in the image's repository/,
  );
});

Deno.test("matchExactReference: the signed identity must equal the configured reference", () => {
  const rule = parseIdentityRule({
    type: "matchExactReference",
    dockerReference: "quay.io/a/b:prod",
  });
  // Whatever the image is called.
  assert.ok(matches(rule, "mirror.example.com/b:7", "quay.io/a/b:prod"));
  assert.match(
    reason(rule, "quay.io/a/b:prod", "quay.io/a/b:dev"),
    /does not match the required reference quay.io\/a\/b:prod/,
  );
  assert.match(reason(rule, "quay.io/a/b:prod", "quay.io/a/b"), /neither tag nor digest/);
});

Deno.test("matchExactRepository: the signed identity must be in the configured repository", () => {
  const rule = parseIdentityRule({ type: "exactRepository", dockerRepository: "quay.io/a/b" });
  assert.ok(matches(rule, "mirror.example.com/b:7", "quay.io/a/b:any"));
  assert.ok(matches(rule, "mirror.example.com/b:7", `quay.io/a/b@${D1}`));
  assert.match(
    reason(rule, "quay.io/a/b:1", "quay.io/a/c:1"),
    /is not in the required repository quay.io\/a\/b/,
  );
});

Deno.test("remapIdentity: the prefix is replaced at a / boundary, then matchRepoDigestOrExact applies", () => {
  const rule = parseIdentityRule({
    type: "remapIdentity",
    prefix: "mirror.example.com/hub",
    signedPrefix: "docker.io/library",
  });
  assert.ok(matches(rule, "mirror.example.com/hub/nginx:1.25", "docker.io/library/nginx:1.25"));
  assert.ok(matches(rule, `mirror.example.com/hub/nginx@${D1}`, "docker.io/library/nginx:9"));
  assert.match(
    reason(rule, "mirror.example.com/hub/nginx:1.25", "docker.io/library/nginx:1.26"),
    /does not match docker.io\/library\/nginx:1.25/,
  );
  // Not at a boundary: "hubx" does not start with "hub/", so no remapping happens.
  assert.match(
    reason(rule, "mirror.example.com/hubx/nginx:1.25", "docker.io/library/nginx:1.25"),
    /does not match mirror.example.com\/hubx\/nginx:1.25/,
  );
  // Unremapped images still match their own name.
  assert.ok(matches(rule, "quay.io/x/y:1", "quay.io/x/y:1"));
});

Deno.test("remapIdentity: a whole-name prefix and a host prefix", () => {
  const whole = parseIdentityRule({
    type: "remapIdentity",
    prefix: "mirror.example.com/nginx",
    signedPrefix: "docker.io/library/nginx",
  });
  assert.ok(matches(whole, "mirror.example.com/nginx:1", "docker.io/library/nginx:1"));
  const host = parseIdentityRule({
    type: "remapIdentity",
    prefix: "localhost:5000",
    signedPrefix: "quay.io",
  });
  assert.ok(matches(host, "localhost:5000/team/app:1", "quay.io/team/app:1"));
  assert.match(reason(host, "localhost:5001/team/app:1", "quay.io/team/app:1"), /does not match/);
});

Deno.test("remapIdentity: prefixes name their registries in the canonical spelling", () => {
  const rule = parseIdentityRule({
    type: "remapIdentity",
    prefix: "MIRROR.example.com:0443/hub",
    signedPrefix: "Registry-1.Docker.IO/library",
  });
  assert.deepEqual(rule, {
    type: "remapIdentity",
    prefix: "mirror.example.com/hub",
    signedPrefix: "docker.io/library",
  });
  assert.ok(matches(rule, "mirror.example.com:443/hub/nginx:1", "docker.io/library/nginx:1"));
  assert.ok(matches(rule, "Mirror.Example.com/hub/nginx:1", "index.docker.io/library/nginx:1"));
});

Deno.test("matchIdentity() compares a signed identity in any spelling of its registry", () => {
  assert.ok(matches(DEFAULT_IDENTITY_RULE, "reg.example.com/app:1", "REG.EXAMPLE.COM:443/app:1"));
  assert.ok(matches(DEFAULT_IDENTITY_RULE, "LOCALHOST:05000/app:1", "localhost:5000/app:1"));
});

Deno.test("remapIdentity: a remapping that gives a non-canonical name does not match", () => {
  // docker.io/nginx is not canonical (docker.io/library/nginx is): the remapped name is invalid.
  const rule = parseIdentityRule({
    type: "remapIdentity",
    prefix: "quay.io/lib",
    signedPrefix: "docker.io",
  });
  assert.match(
    reason(rule, "quay.io/lib/nginx:1", "docker.io/library/nginx:1"),
    /remapped to docker.io\/nginx:1 is not valid/,
  );
});

Deno.test("matchIdentity() normalises references in rules built without parseIdentityRule()", () => {
  assert.ok(
    matches(
      { type: "matchExactReference", dockerReference: "nginx:1" },
      "x.io/y:1",
      "docker.io/library/nginx:1",
    ),
  );
  assert.ok(
    matches(
      { type: "matchExactRepository", dockerRepository: "nginx" },
      "x.io/y:1",
      "docker.io/library/nginx:2",
    ),
  );
  assert.match(
    reason(
      { type: "matchExactReference", dockerReference: "Not Valid" },
      "x.io/y:1",
      "docker.io/library/nginx:1",
    ),
    /the required reference "Not Valid" is not valid/,
  );
});
