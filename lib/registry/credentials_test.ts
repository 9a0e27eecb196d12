import assert from "node:assert/strict";
import {
  credentialsFromSecret,
  parseAuthFile,
  parseCreds,
  parseDockerCfg,
  parseDockerConfigJson,
  readAuthFile,
  type SecretLike,
} from "./credentials.ts";
import { CredentialsError } from "./errors.ts";

const b64 = (s: string) => btoa(s);
const unpadded = (s: string) => btoa(s).replace(/=+$/, "");

function secret(type: string, key: string, content: string, name = "regcred"): SecretLike {
  return { metadata: { name, namespace: "team" }, type, data: { [key]: b64(content) } };
}

/** Asserts that `fn` throws a CredentialsError whose message has `pattern` and no `secrets`. */
function assertCredentialsError(fn: () => unknown, pattern: RegExp, secrets: string[]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof CredentialsError, String(error));
    assert.match(error.message, pattern);
    for (const s of secrets) assert.ok(!error.message.includes(s), `message leaks "${s}"`);
    assert.equal(error.cause, undefined);
    return true;
  });
}

Deno.test("credentialsFromSecret() reads a dockerconfigjson secret with auth values", () => {
  const entries = credentialsFromSecret(secret(
    "kubernetes.io/dockerconfigjson",
    ".dockerconfigjson",
    JSON.stringify({
      auths: {
        "quay.io": { auth: b64("alice:pa:ss") },
        "https://index.docker.io/v1/": { auth: unpadded("bob:x") },
      },
    }),
  ));
  assert.deepEqual(entries, [
    {
      key: "quay.io",
      credential: { username: "alice", password: "pa:ss", source: 'secret "team/regcred"' },
    },
    {
      key: "https://index.docker.io/v1/",
      credential: { username: "bob", password: "x", source: 'secret "team/regcred"' },
    },
  ]);
});

Deno.test("credentialsFromSecret() reads a legacy dockercfg secret (the map itself)", () => {
  const entries = credentialsFromSecret(secret(
    "kubernetes.io/dockercfg",
    ".dockercfg",
    JSON.stringify({ "registry.example.com:5000": { username: "u", password: "p", email: "e" } }),
  ));
  assert.deepEqual(entries, [{
    key: "registry.example.com:5000",
    credential: { username: "u", password: "p", source: 'secret "team/regcred"' },
  }]);
});

Deno.test("parseDockerConfigJson() prefers auth over username/password and skips empty entries", () => {
  const entries = parseDockerConfigJson(
    JSON.stringify({
      auths: {
        "a.example": { auth: b64("from-auth:1"), username: "ignored", password: "ignored" },
        "b.example": {},
        "c.example": { identitytoken: "refresh-token" },
        "d.example": { auth: "", username: "u", password: "p" },
      },
    }),
    "test",
  );
  assert.deepEqual(entries.map((e) => [e.key, e.credential.username, e.credential.password]), [
    ["a.example", "from-auth", "1"],
    ["d.example", "u", "p"],
  ]);
});

Deno.test("credentialsFromSecret() names the secret and never prints its contents", () => {
  const password = "hunter2-very-secret";
  const auth = b64(`alice${password}`); // no colon
  assertCredentialsError(
    () =>
      credentialsFromSecret(secret(
        "kubernetes.io/dockerconfigjson",
        ".dockerconfigjson",
        JSON.stringify({ auths: { "quay.io": { auth } } }),
      )),
    /^Cannot read registry credentials from secret "team\/regcred": the "auth" of the entry for "quay.io" does not decode/,
    [password, auth],
  );
  assertCredentialsError(
    () =>
      credentialsFromSecret(secret(
        "kubernetes.io/dockerconfigjson",
        ".dockerconfigjson",
        `{"auths": {"quay.io": {"auth": "${password}!"}}`,
      )),
    /secret "team\/regcred": \.dockerconfigjson|the content is not valid JSON/,
    [password],
  );
  assertCredentialsError(
    () =>
      credentialsFromSecret(secret(
        "kubernetes.io/dockerconfigjson",
        ".dockerconfigjson",
        JSON.stringify({ auths: { "quay.io": { auth: `${password}%%` } } }),
      )),
    /the "auth" of the entry for "quay.io" is not base64/,
    [password],
  );
});

Deno.test("credentialsFromSecret() rejects wrong types, missing keys and undecodable data", () => {
  assertCredentialsError(
    () => credentialsFromSecret({ metadata: { name: "s" }, type: "Opaque", data: {} }),
    /secret "s": its type is "Opaque", expected "kubernetes.io\/dockerconfigjson"/,
    [],
  );
  assertCredentialsError(
    () =>
      credentialsFromSecret({
        metadata: { name: "s", namespace: "n" },
        type: "kubernetes.io/dockerconfigjson",
        data: { ".dockercfg": b64("{}") },
      }),
    /secret "n\/s": it has no "\.dockerconfigjson" data/,
    [],
  );
  assertCredentialsError(
    () =>
      credentialsFromSecret({
        metadata: { name: "s" },
        type: "kubernetes.io/dockercfg",
        data: { ".dockercfg": "not base64 at all!" },
      }),
    /its "\.dockercfg" data is not base64-encoded UTF-8/,
    ["not base64 at all"],
  );
  assertCredentialsError(
    () =>
      credentialsFromSecret(secret(
        "kubernetes.io/dockerconfigjson",
        ".dockerconfigjson",
        JSON.stringify({ "quay.io": { auth: b64("a:b") } }),
      )),
    /the content has no "auths" object/,
    [b64("a:b")],
  );
  assertCredentialsError(
    () => parseDockerCfg(JSON.stringify({ "quay.io": "user:pass" }), "x"),
    /the entry for "quay.io" is not a JSON object/,
    ["user:pass"],
  );
  assertCredentialsError(
    () => parseDockerCfg(JSON.stringify({ "quay.io": { username: 5, password: "p" } }), "x"),
    /the "username" of the entry for "quay.io" is not a string/,
    [],
  );
});

Deno.test("parseAuthFile() and readAuthFile() read an auth.json and name the file in errors", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-authfile-" });
  try {
    const path = `${dir}/auth.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({ auths: { "quay.io/team": { auth: b64("u:p") } } }),
    );
    const entries = await readAuthFile(path);
    assert.deepEqual(entries, [{
      key: "quay.io/team",
      credential: { username: "u", password: "p", source: `auth file "${path}"` },
    }]);
    await assert.rejects(
      readAuthFile(`${dir}/missing.json`),
      new CredentialsError(`auth file "${dir}/missing.json"`, "the file does not exist"),
    );
    assertCredentialsError(() => parseAuthFile("[1]", "/a.json"), /auth file "\/a.json"/, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseCreds() splits USER[:PASS] at the first colon", () => {
  assert.deepEqual(parseCreds("alice:pa:ss"), {
    username: "alice",
    password: "pa:ss",
    source: "--creds",
  });
  assert.deepEqual(parseCreds("alice"), {
    username: "alice",
    password: undefined,
    source: "--creds",
  });
  assert.deepEqual(parseCreds("alice:"), { username: "alice", password: "", source: "--creds" });
  assert.throws(() => parseCreds(":secret"), /--creds: the username is empty/);
});
