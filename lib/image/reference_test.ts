import assert from "node:assert/strict";
import {
  canonicalDomain,
  familiarName,
  formatReference,
  type ImageReference,
  InvalidReferenceError,
  isDigest,
  MAX_REFERENCE_LENGTH,
  parseDockerReference,
  parseReference,
  repositoryName,
  withDefaultTag,
} from "./reference.ts";

// The cases below come from the test suites of the reference grammar
// (github.com/distribution/reference: reference_test.go and normalize_test.go). Those tables
// call the un-normalised `Parse`; here every input goes through the normalising parser, so the
// expected parts are the normalised ones (a single component lands in docker.io/library/).

const F64 = "f".repeat(64);
const F128 = "f".repeat(128);

interface Case {
  input: string;
  domain?: string;
  path?: string;
  tag?: string;
  digest?: string;
  /** A fragment of the expected reason, when the input must be rejected. */
  error?: string;
}

const GRAMMAR_CASES: Case[] = [
  { input: "test_com", domain: "docker.io", path: "library/test_com" },
  { input: "test.com:tag", domain: "docker.io", path: "library/test.com", tag: "tag" },
  { input: "test.com:5000", domain: "docker.io", path: "library/test.com", tag: "5000" },
  { input: "test.com/repo:tag", domain: "test.com", path: "repo", tag: "tag" },
  { input: "test:5000/repo", domain: "test:5000", path: "repo" },
  { input: "test:5000/repo:tag", domain: "test:5000", path: "repo", tag: "tag" },
  {
    input: `test:5000/repo@sha256:${F64}`,
    domain: "test:5000",
    path: "repo",
    digest: `sha256:${F64}`,
  },
  {
    input: `test:5000/repo:tag@sha256:${F64}`,
    domain: "test:5000",
    path: "repo",
    tag: "tag",
    digest: `sha256:${F64}`,
  },
  { input: "", error: "repository name must have at least one component" },
  { input: ":justtag", error: "invalid reference format" },
  { input: `@sha256:${F64}`, error: "invalid reference format" },
  { input: `repo@sha256:${"f".repeat(34)}`, error: "invalid checksum digest length" },
  { input: `validname@invaliddigest:${F64}`, error: "unsupported digest algorithm" },
  { input: "Uppercase:tag", error: "repository name must be lowercase" },
  { input: "test:5000/Uppercase/lowercase:tag", error: "repository name must be lowercase" },
  {
    input: "lowercase:Uppercase",
    domain: "docker.io",
    path: "library/lowercase",
    tag: "Uppercase",
  },
  { input: "a/".repeat(128) + "a:tag", error: "must not be more than 255 characters" },
  // 255 characters before normalisation; the docker.io/ prefix puts it over the limit.
  { input: "a/".repeat(127) + "a:tag-puts-this-over-max", error: "more than 255 characters" },
  {
    input: "a.b/" + "a/".repeat(125) + "a:tag-puts-this-over-max",
    domain: "a.b",
    path: "a/".repeat(125) + "a",
    tag: "tag-puts-this-over-max",
  },
  { input: "aa/asdf$$^/aa", error: "invalid reference format" },
  { input: "sub-dom1.foo.com/bar/baz/quux", domain: "sub-dom1.foo.com", path: "bar/baz/quux" },
  {
    input: "sub-dom1.foo.com/bar/baz/quux:some-long-tag",
    domain: "sub-dom1.foo.com",
    path: "bar/baz/quux",
    tag: "some-long-tag",
  },
  {
    input: "b.gcr.io/test.example.com/my-app:test.example.com",
    domain: "b.gcr.io",
    path: "test.example.com/my-app",
    tag: "test.example.com",
  },
  {
    input: "xn--n3h.com/myimage:xn--n3h.com",
    domain: "xn--n3h.com",
    path: "myimage",
    tag: "xn--n3h.com",
  },
  {
    input: `xn--7o8h.com/myimage:xn--7o8h.com@sha512:${F128}`,
    domain: "xn--7o8h.com",
    path: "myimage",
    tag: "xn--7o8h.com",
    digest: `sha512:${F128}`,
  },
  { input: "foo_bar.com:8080", domain: "docker.io", path: "library/foo_bar.com", tag: "8080" },
  { input: "foo/foo_bar.com:8080", domain: "docker.io", path: "foo/foo_bar.com", tag: "8080" },
  { input: "192.168.1.1", domain: "docker.io", path: "library/192.168.1.1" },
  { input: "192.168.1.1:tag", domain: "docker.io", path: "library/192.168.1.1", tag: "tag" },
  { input: "192.168.1.1:5000", domain: "docker.io", path: "library/192.168.1.1", tag: "5000" },
  { input: "192.168.1.1/repo", domain: "192.168.1.1", path: "repo" },
  { input: "192.168.1.1:5000/repo", domain: "192.168.1.1:5000", path: "repo" },
  { input: "192.168.1.1:5000/repo:5050", domain: "192.168.1.1:5000", path: "repo", tag: "5050" },
  { input: "[2001:db8::1]", error: "invalid reference format" },
  { input: "[2001:db8::1]:5000", error: "invalid reference format" },
  { input: "[2001:db8::1]:tag", error: "invalid reference format" },
  { input: "[2001:db8::1]/repo", domain: "[2001:db8::1]", path: "repo" },
  {
    input: "[2001:db8:1:2:3:4:5:6]/repo:tag",
    domain: "[2001:db8:1:2:3:4:5:6]",
    path: "repo",
    tag: "tag",
  },
  { input: "[2001:db8::1]:5000/repo", domain: "[2001:db8::1]:5000", path: "repo" },
  { input: "[2001:db8::1]:5000/repo:tag", domain: "[2001:db8::1]:5000", path: "repo", tag: "tag" },
  {
    input: `[2001:db8::1]:5000/repo@sha256:${F64}`,
    domain: "[2001:db8::1]:5000",
    path: "repo",
    digest: `sha256:${F64}`,
  },
  {
    input: `[2001:db8::1]:5000/repo:tag@sha256:${F64}`,
    domain: "[2001:db8::1]:5000",
    path: "repo",
    tag: "tag",
    digest: `sha256:${F64}`,
  },
  { input: "[2001:db8::]:5000/repo", domain: "[2001:db8::]:5000", path: "repo" },
  { input: "[::1]:5000/repo", domain: "[::1]:5000", path: "repo" },
  { input: "[fe80::1%eth0]:5000/repo", error: "invalid reference format" },
  { input: "[fe80::1%@invalidzone]:5000/repo", error: "invalid reference format" },
  // TestSerialization
  { input: "example.com:8000/named", domain: "example.com:8000", path: "named" },
  {
    input: "example.com:8000/named:tagged",
    domain: "example.com:8000",
    path: "named",
    tag: "tagged",
  },
  {
    input:
      "other.com/named@sha256:1234567890098765432112345667890098765432112345667890098765432112",
    domain: "other.com",
    path: "named",
    digest: "sha256:1234567890098765432112345667890098765432112345667890098765432112",
  },
  // TestNormalizedSplitHostname
  { input: "test.com/foo", domain: "test.com", path: "foo" },
  { input: "test_com/foo", domain: "docker.io", path: "test_com/foo" },
  { input: "docker/migrator", domain: "docker.io", path: "docker/migrator" },
  { input: "test.com:8080/foo", domain: "test.com:8080", path: "foo" },
  { input: "test-com:8080/foo", domain: "test-com:8080", path: "foo" },
  { input: "foo", domain: "docker.io", path: "library/foo" },
  { input: "xn--n3h.com/foo", domain: "xn--n3h.com", path: "foo" },
  { input: "xn--n3h.com:18080/foo", domain: "xn--n3h.com:18080", path: "foo" },
  { input: "docker.io/foo", domain: "docker.io", path: "library/foo" },
  { input: "docker.io/library/foo", domain: "docker.io", path: "library/foo" },
  { input: "docker.io/library/foo/bar", domain: "docker.io", path: "library/foo/bar" },
  // Cases this project adds.
  { input: "localhost/foo", domain: "localhost", path: "foo" },
  { input: "localhost:5000/foo", domain: "localhost:5000", path: "foo" },
  { input: "localhost", domain: "docker.io", path: "library/localhost" },
  { input: "index.docker.io/foo", domain: "docker.io", path: "library/foo" },
  // An upper-case host is a host, written in lower case; a host without "." or ":" keeps :443
  // so that its canonical form does not read as a Docker Hub namespace.
  { input: "Docker/docker", domain: "docker:443", path: "docker" },
  { input: `nginx@sha256:${"A".repeat(64)}`, error: "invalid checksum digest format" },
  {
    input: `nginx@sha384:${"a".repeat(96)}`,
    domain: "docker.io",
    digest: `sha384:${"a".repeat(96)}`,
  },
  { input: `nginx@sha384:${F64}`, error: "invalid checksum digest length" },
  { input: `nginx@md5:${"a".repeat(32)}`, error: "unsupported digest algorithm" },
  { input: "nginx:" + "t".repeat(128), domain: "docker.io", tag: "t".repeat(128) },
  { input: "nginx:" + "t".repeat(129), error: "invalid reference format" },
  { input: "nginx:-tag", error: "invalid reference format" },
  { input: "nginx:.tag", error: "invalid reference format" },
  { input: "nginx:_tag", domain: "docker.io", tag: "_tag" },
  { input: "nginx@", error: "invalid reference format" },
  { input: "nginx:", error: "invalid reference format" },
  { input: "nginx:1@sha256:abc@sha256:def", error: "invalid reference format" },
  { input: "a_b.c/x", error: "is not a valid registry host" },
  { input: "example.com:/x", error: "invalid reference format" },
  { input: "-example.com/x", error: "invalid reference format" },
  { input: "example-.com/x", error: "invalid reference format" },
  { input: "example.com/x/", error: "invalid reference format" },
  { input: " nginx", error: "invalid reference format" },
  { input: "nginx ", error: "invalid reference format" },
  { input: "nginx\n", error: "invalid reference format" },
  { input: "ex\u00e4mple.com/x", error: "invalid reference format" },
  { input: "example.com/x__y", domain: "example.com", path: "x__y" },
  { input: "example.com/x___y", error: "invalid reference format" },
  { input: "example.com/x---y", domain: "example.com", path: "x---y" },
];

for (const c of GRAMMAR_CASES) {
  const label = c.input.length > 60 ? `${c.input.slice(0, 57)}...` : c.input;
  if (c.error !== undefined) {
    const fragment = c.error;
    Deno.test(`parseReference() rejects ${JSON.stringify(label)} (${fragment})`, () => {
      assert.throws(() => parseReference(c.input), (e: unknown) => {
        assert.ok(e instanceof InvalidReferenceError);
        assert.equal(e.input, c.input);
        assert.ok(e.reason.includes(fragment), `reason "${e.reason}" lacks "${fragment}"`);
        assert.ok(e.message.startsWith(`Cannot parse image reference "${c.input}": `));
        return true;
      });
    });
  } else {
    Deno.test(`parseReference() parses ${JSON.stringify(label)}`, () => {
      const ref = parseReference(c.input);
      assert.equal(ref.domain, c.domain);
      if (c.path !== undefined) assert.equal(ref.path, c.path);
      assert.equal(ref.tag, c.tag);
      assert.equal(ref.digest, c.digest);
    });
  }
}

// TestValidateReferenceName and TestValidateRemoteName (normalize_test.go).
const VALID_NAMES = [
  "docker/docker",
  "library/debian",
  "debian",
  "docker.io/docker/docker",
  "docker.io/library/debian",
  "docker.io/debian",
  "index.docker.io/docker/docker",
  "index.docker.io/library/debian",
  "index.docker.io/debian",
  "127.0.0.1:5000/docker/docker",
  "127.0.0.1:5000/library/debian",
  "127.0.0.1:5000/debian",
  "192.168.0.1",
  "192.168.0.1:80",
  "192.168.0.1:8/debian",
  "192.168.0.2:25000/debian",
  "thisisthesongthatneverendsitgoesonandonandonthisisthesongthatnev",
  "[fc00::1]:5000/docker",
  "[fc00::1]:5000/docker/docker",
  "[fc00:1:2:3:4:5:6:7]:5000/library/debian",
  "docker.io/1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a",
  "Docker/docker",
  "DOCKER/docker",
  "docker-rules/docker",
  "docker---rules/docker",
  "doc/docker",
  "d/docker",
  "jess/t",
  "dock__er/docker",
];

const INVALID_NAMES = [
  "https://github.com/docker/docker",
  "docker/Docker",
  "-docker",
  "-docker/docker",
  "-docker.io/docker/docker",
  "docker///docker",
  "docker.io/docker/Docker",
  "docker.io/docker///docker",
  "[fc00::1]",
  "[fc00::1]:5000",
  "fc00::1:5000/debian",
  "[fe80::1%eth0]:5000/debian",
  "[2001:db8:3:4::192.0.2.33]:5000/debian",
  "1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a",
  "docker-/docker",
  "-docker-/docker",
  "____/____",
  "_docker/_docker",
  "dock..er/docker",
  "dock_.er/docker",
  "dock-.er/docker",
  "docker/",
  "this_is_not_a_valid_namespace_because_its_lenth_is_greater_than_255_".repeat(4) + "/docker",
];

Deno.test("parseReference() accepts the grammar's valid repository names", () => {
  for (const name of VALID_NAMES) {
    assert.doesNotThrow(() => parseReference(name), `expected ${name} to be valid`);
  }
});

Deno.test("parseReference() rejects the grammar's invalid repository names", () => {
  for (const name of INVALID_NAMES) {
    assert.throws(() => parseReference(name), InvalidReferenceError, `expected ${name} invalid`);
  }
});

// TestParseRepositoryInfo (normalize_test.go): every spelling gives the same parts.
const REPOSITORY_INFO = [
  ["fooo/bar", "fooo/bar", "docker.io/fooo/bar", "index.docker.io/fooo/bar", "docker.io"],
  ["library/ubuntu", "ubuntu", "docker.io/library/ubuntu", "library/ubuntu", "docker.io"],
  ["nonlibrary/ubuntu", "nonlibrary/ubuntu", "docker.io/nonlibrary/ubuntu", "", "docker.io"],
  ["other/library", "other/library", "docker.io/other/library", "", "docker.io"],
  [
    "private/moonbase",
    "127.0.0.1:8000/private/moonbase",
    "127.0.0.1:8000/private/moonbase",
    "",
    "127.0.0.1:8000",
  ],
  ["privatebase", "127.0.0.1:8000/privatebase", "127.0.0.1:8000/privatebase", "", "127.0.0.1:8000"],
  [
    "private/moonbase",
    "example.com/private/moonbase",
    "example.com/private/moonbase",
    "",
    "example.com",
  ],
  ["privatebase", "example.com/privatebase", "example.com/privatebase", "", "example.com"],
  [
    "private/moonbase",
    "example.com:8000/private/moonbase",
    "example.com:8000/private/moonbase",
    "",
    "example.com:8000",
  ],
  [
    "privatebasee",
    "example.com:8000/privatebasee",
    "example.com:8000/privatebasee",
    "",
    "example.com:8000",
  ],
  [
    "library/ubuntu-12.04-base",
    "ubuntu-12.04-base",
    "docker.io/library/ubuntu-12.04-base",
    "index.docker.io/library/ubuntu-12.04-base",
    "docker.io",
  ],
  ["library/foo", "foo", "docker.io/library/foo", "docker.io/foo", "docker.io"],
  ["library/foo/bar", "library/foo/bar", "docker.io/library/foo/bar", "", "docker.io"],
  ["store/foo/bar", "store/foo/bar", "docker.io/store/foo/bar", "", "docker.io"],
  // The grammar keeps "Foo" and "FOO" as written; hosts are canonical here (canonicalDomain).
  ["bar", "foo:443/bar", "foo:443/bar", "Foo/bar", "foo:443"],
  ["bar", "foo:443/bar", "foo:443/bar", "FOO/bar", "foo:443"],
] as const;

Deno.test("parseReference() normalises familiar, full and ambiguous names alike", () => {
  for (const [remote, familiar, full, ambiguous, domain] of REPOSITORY_INFO) {
    for (const input of [familiar, full, ambiguous].filter((s) => s !== "")) {
      const ref = parseReference(input);
      assert.equal(ref.domain, domain, input);
      assert.equal(ref.path, remote, input);
      assert.equal(repositoryName(ref), full, input);
      assert.equal(familiarName(ref), familiar, input);
    }
  }
});

Deno.test("parseReference() keeps both a tag and a digest", () => {
  const digest = "sha256:86e0e091d0da6bde2456dbb48306f3956bbeb2eae1b5b9a43045843f69fe4aaa";
  const ref = parseReference(`busybox:latest@${digest}`);
  assert.deepEqual(ref, { domain: "docker.io", path: "library/busybox", tag: "latest", digest });
  assert.equal(formatReference(ref), `docker.io/library/busybox:latest@${digest}`);
});

// TestParseAnyReference (normalize_test.go), the named cases.
Deno.test("formatReference() gives the grammar's normalised equivalents", () => {
  const d = "sha256:dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9c";
  const cases: Array<[string, string]> = [
    ["redis", "docker.io/library/redis"],
    ["redis:latest", "docker.io/library/redis:latest"],
    ["docker.io/library/redis:latest", "docker.io/library/redis:latest"],
    [`redis@${d}`, `docker.io/library/redis@${d}`],
    [`docker.io/library/redis@${d}`, `docker.io/library/redis@${d}`],
    ["dmcgowan/myapp", "docker.io/dmcgowan/myapp"],
    ["dmcgowan/myapp:latest", "docker.io/dmcgowan/myapp:latest"],
    ["docker.io/mcgowan/myapp:latest", "docker.io/mcgowan/myapp:latest"],
    [`dmcgowan/myapp@${d}`, `docker.io/dmcgowan/myapp@${d}`],
    [`docker.io/dmcgowan/myapp@${d}`, `docker.io/dmcgowan/myapp@${d}`],
    [
      "dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9",
      "docker.io/library/dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9",
    ],
    ["dbcc1", "docker.io/library/dbcc1"],
  ];
  for (const [input, expected] of cases) {
    assert.equal(formatReference(parseReference(input)), expected);
  }
});

Deno.test("parseReference() rejects a 64-character hex identifier as a name", () => {
  assert.throws(
    () => parseReference("dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9c"),
    /cannot specify 64-byte hexadecimal strings/,
  );
});

Deno.test("parseDockerReference() accepts only the normalised form", () => {
  const digest = `sha256:${F64}`;
  for (
    const ok of [
      "docker.io/library/busybox",
      "docker.io/library/busybox:latest",
      `docker.io/library/busybox@${digest}`,
      `docker.io/library/busybox:1@${digest}`,
      "localhost:5000/x/y:1",
      "[::1]:5000/repo:tag",
      "docker:443/docker:1",
    ]
  ) {
    assert.equal(formatReference(parseDockerReference(ok)), ok);
  }
  for (
    const bad of [
      "busybox",
      "busybox:latest",
      "docker.io/busybox:latest",
      "index.docker.io/library/busybox:latest",
      "library/busybox:latest",
      "user/app:1",
      "Docker/docker:1",
      "REG.EXAMPLE.COM/app:1",
      "reg.example.com:443/app:1",
      "registry-1.docker.io/library/busybox:latest",
    ]
  ) {
    assert.throws(() => parseDockerReference(bad), (e: unknown) => {
      assert.ok(e instanceof InvalidReferenceError);
      assert.match(e.reason, /must be canonical/);
      return true;
    });
  }
  assert.throws(() => parseDockerReference("docker.io/library/Busybox"), /must be lowercase/);
});

// One spelling per registry: every way of writing a registry that a runtime pulls from the same
// server gives the same canonical domain.
const SPELLINGS: ReadonlyArray<readonly [string, string]> = [
  ["LOCALHOST:5000/app", "localhost:5000/app"],
  ["localhost:05000/app", "localhost:5000/app"],
  ["LocalHost:005000/app", "localhost:5000/app"],
  ["LOCALHOST/app", "localhost/app"],
  ["127.0.0.1:05000/app", "127.0.0.1:5000/app"],
  ["0177.0.0.1:5000/app", "127.0.0.1:5000/app"],
  ["2130706433:5000/app", "127.0.0.1:5000/app"],
  ["0x7f.0.0.1:5000/app", "127.0.0.1:5000/app"],
  ["REG.EXAMPLE.COM/app", "reg.example.com/app"],
  ["Reg.Example.Com/team/app:V1", "reg.example.com/team/app:V1"],
  ["reg.example.com:443/app", "reg.example.com/app"],
  ["reg.example.com:0443/app", "reg.example.com/app"],
  ["REG.EXAMPLE.COM:443/app", "reg.example.com/app"],
  ["reg.example.com:8443/app", "reg.example.com:8443/app"],
  ["reg.example.com:80/app", "reg.example.com:80/app"],
  ["[FC00::1]:5000/app", "[fc00::1]:5000/app"],
  ["[fc00:0:0:0:0:0:0:1]:05000/app", "[fc00::1]:5000/app"],
  ["[::1]:443/app", "[::1]/app"],
  ["MYREG/app", "myreg:443/app"],
  ["myreg:443/app", "myreg:443/app"],
  ["myreg:0443/app", "myreg:443/app"],
  ["docker.io/library/nginx", "docker.io/library/nginx"],
  ["DOCKER.IO/library/nginx", "docker.io/library/nginx"],
  ["docker.io:443/nginx", "docker.io/library/nginx"],
  ["index.docker.io/nginx", "docker.io/library/nginx"],
  ["INDEX.DOCKER.IO/library/nginx", "docker.io/library/nginx"],
  ["registry-1.docker.io/library/nginx", "docker.io/library/nginx"],
  ["Registry-1.Docker.IO:0443/nginx", "docker.io/library/nginx"],
  ["registry-1.docker.io/user/app", "docker.io/user/app"],
  ["docker.io:5000/nginx", "docker.io:5000/nginx"],
];

for (const [input, canonical] of SPELLINGS) {
  Deno.test(`parseReference() writes ${JSON.stringify(input)} as ${canonical}`, () => {
    const ref = parseReference(input);
    assert.equal(formatReference(ref), canonical);
    // The canonical form is a fixed point, and a valid signature identity.
    assert.deepEqual(parseReference(canonical), ref);
    assert.deepEqual(parseDockerReference(canonical), ref);
  });
}

Deno.test("canonicalDomain() normalises patterns and keys with globs, and never throws", () => {
  const cases: Array<[string, string]> = [
    ["*.Example.COM", "*.example.com"],
    ["*.example.com:0443", "*.example.com"],
    ["REG:*", "reg:*"],
    ["*", "*"],
    ["reg.example.com:99999", "reg.example.com:99999"],
    ["reg.example.com:099999", "reg.example.com:99999"],
    ["Foo.123:443", "foo.123"],
    ["", ""],
  ];
  for (const [input, expected] of cases) assert.equal(canonicalDomain(input), expected, input);
  for (const input of SPELLINGS.map(([i]) => i.slice(0, i.indexOf("/")))) {
    assert.equal(canonicalDomain(canonicalDomain(input)), canonicalDomain(input), input);
  }
});

Deno.test("parseReference() keeps upper case invalid in the path of any host spelling", () => {
  for (
    const input of ["REG.EXAMPLE.COM/App", "reg.example.com:443/team/App:1", "LOCALHOST:5000/A"]
  ) {
    assert.throws(() => parseReference(input), /repository name must be lowercase/);
  }
});

Deno.test("parseReference() names a digest algorithm it does not support", () => {
  const hex = "a".repeat(64);
  for (const algorithm of ["constructor", "toString", "hasOwnProperty", "valueOf", "md5"]) {
    assert.throws(() => parseReference(`nginx@${algorithm}:${hex}`), (e: unknown) => {
      assert.ok(e instanceof InvalidReferenceError);
      assert.equal(e.reason, `unsupported digest algorithm "${algorithm}"`);
      return true;
    });
    assert.equal(isDigest(`${algorithm}:${hex}`), false);
  }
});

Deno.test("withDefaultTag() adds latest only when there is neither tag nor digest", () => {
  const digest = `sha256:${F64}`;
  assert.equal(
    formatReference(withDefaultTag(parseReference("nginx"))),
    "docker.io/library/nginx:latest",
  );
  assert.equal(
    formatReference(withDefaultTag(parseReference("nginx:1"))),
    "docker.io/library/nginx:1",
  );
  assert.equal(
    formatReference(withDefaultTag(parseReference(`nginx@${digest}`))),
    `docker.io/library/nginx@${digest}`,
  );
});

Deno.test("familiarName() shortens only Docker Hub names", () => {
  assert.equal(familiarName(parseReference("docker.io/library/nginx:1")), "nginx");
  assert.equal(familiarName(parseReference("user/app")), "user/app");
  assert.equal(familiarName(parseReference("docker.io/library/a/b")), "library/a/b");
  assert.equal(familiarName(parseReference("localhost:5000/x")), "localhost:5000/x");
  assert.equal(familiarName(parseReference("quay.io/library/x")), "quay.io/library/x");
});

Deno.test("isDigest() accepts sha256, sha384 and sha512 with the right lowercase hex", () => {
  assert.equal(isDigest(`sha256:${"0".repeat(64)}`), true);
  assert.equal(isDigest(`sha384:${"a".repeat(96)}`), true);
  assert.equal(isDigest(`sha512:${"b".repeat(128)}`), true);
  assert.equal(isDigest(`sha256:${"A".repeat(64)}`), false);
  assert.equal(isDigest(`sha256:${"a".repeat(63)}`), false);
  assert.equal(isDigest(`sha256:${"a".repeat(65)}`), false);
  assert.equal(isDigest(`sha512:${"a".repeat(64)}`), false);
  assert.equal(isDigest(`md5:${"a".repeat(32)}`), false);
  assert.equal(isDigest(`sha256:${"g".repeat(64)}`), false);
  assert.equal(isDigest("sha256"), false);
  assert.equal(isDigest(""), false);
});

/** A small deterministic PRNG (mulberry32), so a failing fuzz case can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEEDS = [
  "nginx",
  "docker.io/library/nginx:1.27",
  "localhost:5000/team/app:v1",
  `registry.example.com:8443/a/b/c@sha256:${F64}`,
  `[::1]:5000/repo:tag@sha256:${F64}`,
  "Docker/docker",
  "index.docker.io/user/app",
];
const ALPHABET = "abcAZ09._-__/:@[]%$ \u00e4\n:sha256:/:@";

/** Applies one random edit (insert, delete, replace or duplicate a slice). */
function mutate(s: string, random: () => number): string {
  const pos = Math.floor(random() * (s.length + 1));
  const ch = ALPHABET[Math.floor(random() * ALPHABET.length)] ?? "";
  switch (Math.floor(random() * 4)) {
    case 0:
      return s.slice(0, pos) + ch + s.slice(pos);
    case 1:
      return s.slice(0, pos) + s.slice(pos + 1);
    case 2:
      return s.slice(0, pos) + ch + s.slice(pos + 1);
    default: {
      const end = pos + Math.floor(random() * 8);
      return s.slice(0, end) + s.slice(pos, end) + s.slice(end);
    }
  }
}

/** Checks one input: valid results round-trip, anything else is an InvalidReferenceError. */
function checkFuzzInput(input: string): void {
  let ref: ImageReference;
  try {
    ref = parseReference(input);
  } catch (e) {
    assert.ok(e instanceof InvalidReferenceError, `${JSON.stringify(input)} threw ${e}`);
    assert.equal(e.input, input);
    assert.ok(e.reason.length > 0);
    return;
  }
  const formatted = formatReference(ref);
  assert.deepEqual(parseDockerReference(formatted), ref, `round trip of ${JSON.stringify(input)}`);
  assert.ok(repositoryName(ref).length <= 255);
  if (ref.digest !== undefined) assert.ok(isDigest(ref.digest));
}

Deno.test("parseReference() throws only InvalidReferenceError on random and mutated input", () => {
  const random = prng(20240611);
  for (let i = 0; i < 4000; i++) {
    let input = SEEDS[i % SEEDS.length] ?? "";
    const edits = 1 + Math.floor(random() * 6);
    for (let e = 0; e < edits; e++) input = mutate(input, random);
    checkFuzzInput(input);
  }
  for (let i = 0; i < 3000; i++) {
    const length = Math.floor(random() * 40);
    let input = "";
    for (let j = 0; j < length; j++) {
      input += random() < 0.1
        ? String.fromCharCode(Math.floor(random() * 0x3000))
        : ALPHABET[Math.floor(random() * ALPHABET.length)];
    }
    checkFuzzInput(input);
  }
  // Long inputs must stay fast (no regular-expression backtracking blow-up) and be rejected.
  for (
    const long of ["a".repeat(100_000) + "!", "a-".repeat(50_000) + "!", "a.".repeat(50_000) + "/"]
  ) {
    checkFuzzInput(long);
    checkFuzzInput(`${long}/x`);
  }
});

Deno.test("parseReference() turns a non-string input into InvalidReferenceError", () => {
  assert.throws(() => parseReference(undefined as unknown as string), InvalidReferenceError);
  assert.throws(() => parseReference(42 as unknown as string), InvalidReferenceError);
});

Deno.test("a reference longer than MAX_REFERENCE_LENGTH is refused outright, quoted in part", () => {
  const huge = `registry.example/${"a".repeat(2_900_000)}`;
  assert.throws(() => parseReference(huge), (error: unknown) => {
    assert.ok(error instanceof InvalidReferenceError);
    assert.match(error.reason, /must not be more than 1024 characters/);
    assert.ok(error.message.length < 1200, "the message quotes a bounded prefix");
    assert.match(error.message, /…\(2900017 bytes\)"/);
    return true;
  });
  const longest = `registry.example/${"a".repeat(237)}:${"t".repeat(128)}@sha512:${
    "0".repeat(128)
  }`;
  assert.ok(longest.length < MAX_REFERENCE_LENGTH);
  assert.equal(parseReference(longest).tag, "t".repeat(128));
});
