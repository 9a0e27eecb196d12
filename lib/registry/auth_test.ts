/**
 * Edge cases of the auth layer against small servers (a registry and a token service in one
 * process) for behaviour the real registries here do not show: plain-HTTP token services,
 * revoked tokens, challenges with extra scopes, 401s without a challenge. The normal flows are
 * tested against the real registry in `client_test.ts` and `token_auth_test.ts`.
 */
import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { serve, type TestServer } from "../../tests/fakes/loopback_server.ts";
import { repositoryScope } from "./auth.ts";
import { createRegistryClient } from "./client.ts";
import { RegistryError } from "./errors.ts";
import { staticCredentials } from "./keyring.ts";
import { OCI_MANIFEST } from "./media_types.ts";
import { assertNoCanary, canary, rejection } from "../../tests/fakes/secret_canary.ts";

const MANIFEST = '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}';
const alice = staticCredentials({ username: "alice", password: "s3cret", source: "test" });

/** A registry that wants `Bearer <valid token>`, challenging with `realm` and `scope`. */
function tokenRegistry(
  realm: () => string,
  options: { valid: () => string; scope?: string },
): TestServer {
  return serve((request) => {
    if (request.headers.get("authorization") === `Bearer ${options.valid()}`) {
      return new Response(MANIFEST, { headers: { "content-type": OCI_MANIFEST } });
    }
    const scope = options.scope ? `,scope="${options.scope}"` : "";
    return Response.json(
      { errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] },
      {
        status: 401,
        headers: { "www-authenticate": `Bearer realm="${realm()}",service="reg"${scope}` },
      },
    );
  });
}

Deno.test("repositoryScope() formats a token scope", () => {
  assert.equal(repositoryScope("team/app", ["pull"]), "repository:team/app:pull");
  assert.equal(repositoryScope("team/app", ["pull", "push"]), "repository:team/app:pull,push");
});

Deno.test("createRegistryAuth() sends credentials to a plain-HTTP token service only when insecure", async () => {
  await using tokens = serve(() => Response.json({ token: "t1" }));
  await using registry = tokenRegistry(() => `http://${tokens.host}/token`, { valid: () => "t1" });
  const ref = parseReference(`${registry.host}/team/app:1`);
  {
    using client = createRegistryClient({
      insecureRegistries: [registry.host],
      credentials: alice,
    });
    await assert.rejects(
      client.getManifest(ref),
      (error: unknown) =>
        error instanceof RegistryError &&
        /refusing to send the credentials from test to the token service "http:\/\/127\.0\.0\.1:\d+\/token" over plain HTTP/
          .test(error.message),
    );
    assert.equal(tokens.requests.length, 0);
  }
  using client = createRegistryClient({
    insecureRegistries: [registry.host, tokens.host],
    credentials: alice,
  });
  assert.equal((await client.getManifest(ref)).mediaType, OCI_MANIFEST);
  assert.equal(tokens.requests[0]!.headers.get("authorization"), `Basic ${btoa("alice:s3cret")}`);
  assert.equal(
    tokens.requests[0]!.path,
    `/token?service=reg&scope=${encodeURIComponent("repository:team/app:pull")}`,
  );
});

Deno.test("createRegistryAuth() replaces a cached token that the registry no longer accepts", async () => {
  let issued = 0;
  await using tokens = serve(() =>
    Response.json({ access_token: `t${++issued}`, expires_in: 600 })
  );
  await using registry = tokenRegistry(() => `http://${tokens.host}/token`, {
    valid: () => `t${issued}`,
  });
  using client = createRegistryClient({ insecureRegistries: ["127.0.0.1"] });
  const ref = parseReference(`${registry.host}/team/app:1`);
  await client.getManifest(ref);
  assert.equal(issued, 1);
  await client.getManifest(ref);
  assert.equal(issued, 1, "the cached token is reused");
  issued++; // the registry now wants a newer token: the cached one is refused
  await client.getManifest(ref);
  assert.equal(issued, 3, "one fresh token replaces the refused one");
});

Deno.test("createRegistryAuth() asks for the challenge's scope as well as its own", async () => {
  await using tokens = serve(() => Response.json({ token: "t" }));
  await using registry = tokenRegistry(() => `http://${tokens.host}/token`, {
    valid: () => "t",
    scope: "repository:team/app:pull registry:catalog:*",
  });
  using client = createRegistryClient({ insecureRegistries: ["127.0.0.1"] });
  await client.getManifest(parseReference(`${registry.host}/team/app:1`));
  const query = new URL(`http://x${tokens.requests[0]!.path}`).searchParams;
  assert.deepEqual(query.getAll("scope"), ["repository:team/app:pull", "registry:catalog:*"]);
});

Deno.test("createRegistryAuth() reports a token service failure and a 401 without a challenge", async () => {
  await using tokens = serve(() => new Response("down", { status: 500 }));
  await using registry = tokenRegistry(() => `http://${tokens.host}/token`, { valid: () => "t" });
  using client = createRegistryClient({
    insecureRegistries: ["127.0.0.1"],
    retry: { maxRetries: 0 },
  });
  await assert.rejects(
    client.getManifest(parseReference(`${registry.host}/team/app:1`)),
    /the token service "http:\/\/127\.0\.0\.1:\d+\/token" answered HTTP 500/,
  );
  await using bare = serve(() => new Response(null, { status: 401 }));
  await assert.rejects(
    client.headManifest(parseReference(`${bare.host}/team/app:1`)),
    (error: unknown) =>
      error instanceof RegistryError && error.code === "UNAUTHORIZED" &&
      /HTTP 401 Unauthorized \(the registry sent no WWW-Authenticate challenge\)$/.test(
        error.message,
      ),
  );
});

Deno.test("createRegistryAuth() shares one token request between concurrent requests", async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  await using tokens = serve(async () => {
    await release;
    return Response.json({ token: "t" });
  });
  await using registry = tokenRegistry(() => `http://${tokens.host}/token`, { valid: () => "t" });
  using client = createRegistryClient({ insecureRegistries: ["127.0.0.1"] });
  const ref = parseReference(`${registry.host}/team/app:1`);
  const all = Promise.all([1, 2, 3].map(() => client.getManifest(ref)));
  while (tokens.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  resolve();
  await all;
  assert.equal(tokens.requests.length, 1);
});

Deno.test("registry errors quote no credential the registry echoes", async () => {
  const secret = canary();
  const basic = btoa(`alice:${secret}`);
  const bodies = [
    { errors: [{ code: "DENIED", message: `access denied for Basic ${basic}` }] },
    { errors: [{ code: "DENIED", message: `bad credentials {"password": "${secret}"}` }] },
    { errors: [{ code: `X-${secret}`, message: "denied" }] },
    { errors: [{ code: "DENIED", message: `token=${secret} ${"x".repeat(5000)}` }] },
  ];
  for (const body of bodies) {
    await using registry = serve(() => Response.json(body, { status: 403 }));
    using client = createRegistryClient({
      insecureRegistries: [registry.host],
      credentials: staticCredentials({ username: "alice", password: secret, source: "test" }),
    });
    const error = await rejection(
      client.getManifest(parseReference(`${registry.host}/team/app:1`)),
    );
    assert.ok(error instanceof RegistryError);
    assert.ok(error.message.length < 400, error.message);
    assertNoCanary(error, secret);
    assertNoCanary(error, basic);
  }
});
