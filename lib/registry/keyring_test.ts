import assert from "node:assert/strict";
import type { Credential } from "./credentials.ts";
import { createKeyring, credentialKeyMatches, staticCredentials } from "./keyring.ts";

const cred = (username: string): Credential => ({ username, password: "p", source: username });

Deno.test("credentialKeyMatches() follows the Kubernetes host rules", () => {
  const cases: [key: string, image: string, expected: boolean][] = [
    // bare hosts and schemes
    ["quay.io", "quay.io/team/app", true],
    ["https://quay.io", "quay.io/team/app", true],
    ["http://quay.io/", "quay.io/team/app", true],
    ["quay.io", "gcr.io/team/app", false],
    ["QUAY.IO", "quay.io/team/app", true],
    // Docker Hub aliases
    ["https://index.docker.io/v1/", "docker.io/library/nginx", true],
    ["index.docker.io", "docker.io/library/nginx", true],
    ["registry-1.docker.io", "docker.io/user/app", true],
    ["docker.io", "docker.io/library/nginx", true],
    ["docker.io/user", "docker.io/user/app", true],
    ["docker.io/user", "docker.io/library/nginx", false],
    // /v1/ and /v2/ are the API root, not a namespace
    ["https://quay.io/v2/", "quay.io/team/app", true],
    ["quay.io/v1/team", "quay.io/team/app", true],
    // ports must match
    ["localhost:5000", "localhost:5000/app", true],
    ["localhost", "localhost:5000/app", false],
    ["localhost:5000", "localhost/app", false],
    ["localhost:5001", "localhost:5000/app", false],
    ["https://127.0.0.1:5000/v2/", "127.0.0.1:5000/demo/app", true],
    ["[::1]:5000", "[::1]:5000/app", true],
    // path prefixes match whole components
    ["quay.io/team", "quay.io/team/app", true],
    ["quay.io/team/", "quay.io/team/app", true],
    ["quay.io/team/app", "quay.io/team/app", true],
    ["quay.io/team", "quay.io/teammate/app", false],
    ["quay.io/team/app/sub", "quay.io/team/app", false],
    // wildcards match one label
    ["*.example.com", "a.example.com/app", true],
    ["*.example.com", "a.b.example.com/app", false],
    ["*.example.com", "example.com/app", false],
    ["*.*.example.com", "a.b.example.com/app", true],
    ["app*.k8s.io", "apps.k8s.io/x", true],
    ["k8s.*.io", "k8s.xyz.io/x", true],
    ["registry?.example.com", "registry1.example.com/x", true],
    ["*.example.com:5000", "a.example.com:5000/x", true],
    ["*.example.com:5000", "a.example.com/x", false],
    // one spelling per registry (canonicalDomain), on both sides
    ["reg.example.com:443", "reg.example.com/app", true],
    ["reg.example.com:0443", "reg.example.com/app", true],
    ["reg.example.com", "REG.EXAMPLE.COM:0443/app", true],
    ["https://REG.example.com:443/v2/", "reg.example.com/app", true],
    ["reg.example.com:8443", "reg.example.com/app", false],
    ["localhost:05000", "LOCALHOST:5000/app", true],
    ["127.0.0.1:5000", "0177.0.0.1:05000/app", true],
    ["[FC00::1]:5000", "[fc00:0:0:0:0:0:0:1]:5000/app", true],
    ["Registry-1.Docker.IO:443", "docker.io/user/app", true],
    ["docker.io", "INDEX.DOCKER.IO:0443/user/app", true],
    ["*.Example.COM:0443", "a.example.com/x", true],
    ["MYREG", "myreg:443/x", true],
  ];
  for (const [key, image, expected] of cases) {
    const slash = image.indexOf("/");
    assert.equal(
      credentialKeyMatches(key, image.slice(0, slash), image.slice(slash + 1)),
      expected,
      `${key} vs ${image}`,
    );
  }
});

Deno.test("createKeyring() returns the most specific credentials first", () => {
  const keyring = createKeyring([
    { key: "*.example.com", credential: cred("wildcard") },
    { key: "registry.example.com", credential: cred("host") },
    { key: "registry.example.com/team", credential: cred("team") },
    { key: "registry.example.com/team/app", credential: cred("app") },
    { key: "other.example.com", credential: cred("other") },
  ]);
  assert.deepEqual(
    keyring.lookup("registry.example.com", "team/app").map((c) => c.username),
    ["app", "team", "host", "wildcard"],
  );
  assert.deepEqual(
    keyring.lookup("registry.example.com", "solo").map((c) => c.username),
    ["host", "wildcard"],
  );
  assert.deepEqual(keyring.lookup("nowhere.io", "x"), []);
});

Deno.test("createKeyring() keeps the given order among equal keys and drops duplicates", () => {
  const first = cred("first");
  const keyring = createKeyring([
    { key: "quay.io", credential: first },
    { key: "https://quay.io", credential: cred("second") },
    { key: "quay.io", credential: { ...first, source: "another secret" } },
    { key: "", credential: cred("no host") },
  ]);
  assert.equal(keyring.size, 3);
  assert.deepEqual(keyring.lookup("quay.io", "a/b").map((c) => c.username), ["first", "second"]);
});

Deno.test("staticCredentials() returns its credential for any registry", () => {
  const store = staticCredentials(cred("alice"));
  assert.deepEqual(store.lookup("anything.io", "x").map((c) => c.username), ["alice"]);
});
