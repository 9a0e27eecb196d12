import assert from "node:assert/strict";
import { parseAuthenticate } from "./challenge.ts";

Deno.test("parseAuthenticate() reads a Bearer challenge with a quoted scope holding a comma", () => {
  assert.deepEqual(
    parseAuthenticate(
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:samalba/my-app:pull,push"',
    ),
    [{
      scheme: "bearer",
      params: {
        realm: "https://auth.docker.io/token",
        service: "registry.docker.io",
        scope: "repository:samalba/my-app:pull,push",
      },
    }],
  );
});

Deno.test("parseAuthenticate() reads several challenges joined by commas", () => {
  const challenges = parseAuthenticate(
    'Basic realm="toolkit-test", Bearer realm="https://a.example/token", service="reg", error="insufficient_scope"',
  );
  assert.deepEqual(challenges.map((c) => c.scheme), ["basic", "bearer"]);
  assert.deepEqual(challenges[0]!.params, { realm: "toolkit-test" });
  assert.deepEqual(challenges[1]!.params, {
    realm: "https://a.example/token",
    service: "reg",
    error: "insufficient_scope",
  });
});

Deno.test("parseAuthenticate() lowercases schemes and parameter names, keeps values", () => {
  assert.deepEqual(parseAuthenticate('BEARER Realm="https://X.example/T",SERVICE=Reg'), [{
    scheme: "bearer",
    params: { realm: "https://X.example/T", service: "Reg" },
  }]);
});

Deno.test("parseAuthenticate() unescapes quoted-pairs and tolerates spaces around '='", () => {
  assert.deepEqual(parseAuthenticate('Basic realm = "say \\"hi\\", \\\\ ok"'), [{
    scheme: "basic",
    params: { realm: 'say "hi", \\ ok' },
  }]);
});

Deno.test("parseAuthenticate() reads unquoted URL values leniently", () => {
  assert.deepEqual(
    parseAuthenticate("Bearer realm=https://auth.example.com/token?x=1,service=registry"),
    [{
      scheme: "bearer",
      params: { realm: "https://auth.example.com/token?x=1", service: "registry" },
    }],
  );
});

Deno.test("parseAuthenticate() reads token68 challenges, with and without padding", () => {
  assert.deepEqual(parseAuthenticate("Negotiate abc/def+g==, Basic realm=x"), [
    { scheme: "negotiate", params: {}, token68: "abc/def+g==" },
    { scheme: "basic", params: { realm: "x" } },
  ]);
  assert.deepEqual(parseAuthenticate("Negotiate abc"), [
    { scheme: "negotiate", params: {}, token68: "abc" },
  ]);
});

Deno.test("parseAuthenticate() accepts a scheme without parameters and a missing comma", () => {
  assert.deepEqual(parseAuthenticate("Basic"), [{ scheme: "basic", params: {} }]);
  assert.deepEqual(parseAuthenticate('Bearer realm="r" service="s"'), [{
    scheme: "bearer",
    params: { realm: "r", service: "s" },
  }]);
});

Deno.test("parseAuthenticate() returns nothing for empty input and survives garbage", () => {
  assert.deepEqual(parseAuthenticate(null), []);
  assert.deepEqual(parseAuthenticate(""), []);
  const garbled = parseAuthenticate('=,=" Bearer realm="x", ,,"unterminated');
  assert.ok(garbled.some((c) => c.scheme === "bearer" && c.params.realm === "x"));
});

Deno.test("parseAuthenticate() keeps an unterminated quoted value to the end", () => {
  assert.deepEqual(parseAuthenticate('Bearer realm="https://a/b'), [{
    scheme: "bearer",
    params: { realm: "https://a/b" },
  }]);
});
