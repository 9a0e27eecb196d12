import assert from "node:assert/strict";
import { assertNoCanary, canary } from "../../tests/fakes/secret_canary.ts";
import { encodeBase64 } from "../base64.ts";
import { KubeAuthenticationError } from "./auth_errors.ts";
import type { ResolvedContext } from "./kubeconfig.ts";
import { jwtExpiry, type OidcFetch, type OidcTokens, OidcTokenSource } from "./oidc.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");

function jwt(exp: number, marker = "x"): string {
  const part = (v: unknown) => encodeBase64(JSON.stringify(v), { urlSafe: true });
  return `${part({ alg: "RS256" })}.${part({ exp: exp / 1000, sub: marker })}.c2ln`;
}

function contextWith(config: Record<string, string>): ResolvedContext {
  return {
    name: "ctx",
    cluster: { name: "c", server: "https://127.0.0.1:6443" },
    user: { name: "u", authProvider: { name: "oidc", config } },
    file: "/tmp/k",
    files: ["/tmp/k"],
    standalone: "{}",
  };
}

function issuer(answer: (form: URLSearchParams) => Response) {
  const calls: string[] = [];
  const fetch: OidcFetch = async (url, init) => {
    calls.push(url);
    if (url === "https://issuer.test/.well-known/openid-configuration") {
      return Response.json({
        issuer: "https://issuer.test",
        token_endpoint: "https://issuer.test/token",
      });
    }
    if (url === "https://issuer.test/token") {
      return answer(new URLSearchParams(String(await new Response(init.body).text())));
    }
    return new Response("", { status: 404 });
  };
  return { fetch, calls };
}

Deno.test("jwtExpiry() reads the exp claim", () => {
  assert.equal(jwtExpiry(jwt(NOW)), NOW);
  assert.equal(jwtExpiry("not-a-jwt"), undefined);
});

Deno.test("OidcTokenSource uses a valid id-token as it is", async () => {
  const token = jwt(NOW + 3600_000);
  const { fetch, calls } = issuer(() => new Response("", { status: 500 }));
  const source = new OidcTokenSource(contextWith({ "id-token": token }), { fetch, now: () => NOW });
  assert.equal(await source.token(), token);
  assert.deepEqual(calls, []);
});

Deno.test("OidcTokenSource refreshes an expired id-token through the token endpoint", async () => {
  const fresh = jwt(NOW + 3600_000, "fresh");
  const forms: URLSearchParams[] = [];
  const { fetch, calls } = issuer((form) => {
    forms.push(form);
    return Response.json({ id_token: fresh, refresh_token: "r2" });
  });
  const persisted: OidcTokens[] = [];
  const source = new OidcTokenSource(
    contextWith({
      "id-token": jwt(NOW + 5_000),
      "refresh-token": "r1",
      "idp-issuer-url": "https://issuer.test/",
      "client-id": "kube",
      "client-secret": "shh",
    }),
    { fetch, now: () => NOW, persist: (t) => Promise.resolve(void persisted.push(t)) },
  );
  assert.equal(await source.token(), fresh);
  assert.equal(await source.token(), fresh);
  assert.equal(calls.length, 2);
  assert.deepEqual(Object.fromEntries(forms[0]!), {
    grant_type: "refresh_token",
    refresh_token: "r1",
    client_id: "kube",
    client_secret: "shh",
  });
  assert.deepEqual(persisted, [{ idToken: fresh, refreshToken: "r2" }]);
  assert.equal(source.invalidate(), true);
  await source.token();
  assert.equal(forms[1]!.get("refresh_token"), "r2");
});

Deno.test("OidcTokenSource fails without quoting tokens when the issuer refuses", async () => {
  const secret = canary();
  const { fetch } = issuer(() =>
    Response.json({ error: "invalid_grant", error_description: `bad ${secret}` }, { status: 400 })
  );
  const source = new OidcTokenSource(
    contextWith({
      "id-token": jwt(NOW - 1),
      "refresh-token": secret,
      "idp-issuer-url": "https://issuer.test",
    }),
    { fetch, now: () => NOW },
  );
  const error = await source.token().catch((e) => e);
  assert.ok(error instanceof KubeAuthenticationError);
  assert.match(error.message, /refused a token refresh \(HTTP 400: invalid_grant\)/);
  assertNoCanary(error, secret);
});

Deno.test("OidcTokenSource says so when an expired id-token has no refresh-token", async () => {
  const { fetch } = issuer(() => new Response("", { status: 500 }));
  const source = new OidcTokenSource(contextWith({ "id-token": jwt(NOW - 1) }), {
    fetch,
    now: () => NOW,
  });
  await assert.rejects(source.token(), /expired id-token and no refresh-token/);
  assert.equal(source.invalidate(), false);
});
