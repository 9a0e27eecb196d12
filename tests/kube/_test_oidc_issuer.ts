/**
 * A TEST OpenID Connect issuer, for the credentials e2e test only: HTTPS on 127.0.0.1 with a
 * certificate of its own CA, a discovery document, a JWKS with one RS256 key (WebCrypto), and a
 * token endpoint that answers `grant_type=refresh_token` with a new id-token for `alice` and a
 * rotated refresh token. It signs whatever it is asked to; nothing here is fit for real use.
 *
 * @module
 */
import { encodeBase64 } from "../../lib/base64.ts";
import { type CertFiles, issueCert, LOOPBACK_SANS, makeCA } from "../env/mod.ts";

/** The running test issuer. */
export interface TestOidcIssuer extends AsyncDisposable {
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The issuer's CA (give it to the API server and to the kubeconfig). */
  readonly ca: CertFiles;
  /** The client id the tokens are for. */
  readonly clientId: string;
  /** Signs an id-token for `sub` that expires at `exp` (milliseconds since the epoch). */
  idToken(sub: string, exp: number): Promise<string>;
  /** The refresh token the token endpoint accepts next. */
  readonly refreshToken: string;
  /** How many refreshes it granted. */
  readonly refreshes: number;
  /** The refresh requests' form fields, in order. */
  readonly forms: readonly Record<string, string>[];
}

/** Starts the test issuer; `dir` holds its certificates. */
export async function startTestOidcIssuer(dir: string): Promise<TestOidcIssuer> {
  const ca = await makeCA(dir, "oidc-ca");
  const serving = await issueCert(dir, ca, { name: "oidc", cn: "127.0.0.1", sans: LOOPBACK_SANS });
  const keys = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const jwk = await crypto.subtle.exportKey("jwk", keys.publicKey);
  const kid = "toolkit-test-key";
  const clientId = "toolkit-test";
  let refreshToken = `refresh-${crypto.randomUUID()}`;
  let refreshes = 0;
  const forms: Record<string, string>[] = [];
  let url = "";
  const part = (value: unknown) => encodeBase64(JSON.stringify(value), { urlSafe: true });
  const idToken = async (sub: string, exp: number) => {
    const input = `${part({ alg: "RS256", kid, typ: "JWT" })}.${
      part({
        iss: url,
        aud: clientId,
        sub,
        iat: Math.floor(Date.now() / 1000) - 60,
        exp: Math.floor(exp / 1000),
      })
    }`;
    const signature = await crypto.subtle.sign(
      "RSASSA-PKCS1-v1_5",
      keys.privateKey,
      new TextEncoder().encode(input),
    );
    return `${input}.${encodeBase64(new Uint8Array(signature), { urlSafe: true })}`;
  };
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: serving.certPem,
    key: serving.keyPem,
    onListen() {},
  }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/openid-configuration") {
      return Response.json({
        issuer: url,
        jwks_uri: `${url}/jwks`,
        token_endpoint: `${url}/token`,
        authorization_endpoint: `${url}/authorize`,
        response_types_supported: ["id_token"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
      });
    }
    if (path === "/jwks") {
      return Response.json({ keys: [{ ...jwk, kid, use: "sig", alg: "RS256" }] });
    }
    if (path === "/token" && request.method === "POST") {
      const form = Object.fromEntries(new URLSearchParams(await request.text()));
      forms.push(form);
      if (form.grant_type !== "refresh_token" || form.refresh_token !== refreshToken) {
        return Response.json({ error: "invalid_grant" }, { status: 400 });
      }
      refreshes++;
      refreshToken = `refresh-${crypto.randomUUID()}`;
      return Response.json({
        id_token: await idToken("alice", Date.now() + 600_000),
        refresh_token: refreshToken,
        token_type: "Bearer",
      });
    }
    return new Response("not found", { status: 404 });
  });
  url = `https://127.0.0.1:${server.addr.port}`;
  return {
    url,
    ca,
    clientId,
    idToken,
    get refreshToken() {
      return refreshToken;
    },
    get refreshes() {
      return refreshes;
    },
    forms,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
