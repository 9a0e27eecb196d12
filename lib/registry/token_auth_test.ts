/**
 * Bearer-token authentication against the real distribution registry configured with
 * `auth: token:`, and a token service that stands in for one like Docker Hub's (see
 * `tests/fakes/registry_token_service.ts`).
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../../tests/env/mod.ts";
import { parseReference } from "../image/mod.ts";
import { buildOciLayout, skopeoPush, skopeoRawSha256 } from "../../tests/env/oci_layout.ts";
import {
  startTokenRegistry,
  type TokenRegistry,
} from "../../tests/fakes/registry_token_service.ts";
import { createRegistryClient, type RegistryClientOptions } from "./client.ts";
import { credentialsFromSecret, type SecretLike } from "./credentials.ts";
import { RegistryError } from "./errors.ts";
import { createKeyring } from "./keyring.ts";

const ignore = e2eSkipReason(["docker-registry", "skopeo", "openssl", "tar"]) !== undefined;

function pullSecret(name: string, host: string, userPass: string): SecretLike {
  return {
    metadata: { name, namespace: "team" },
    type: "kubernetes.io/dockerconfigjson",
    data: {
      ".dockerconfigjson": btoa(JSON.stringify({ auths: { [host]: { auth: btoa(userPass) } } })),
    },
  };
}

/** Starts the token registry, pushes demo/app:1 and public/app:1, runs `fn`, cleans up. */
async function withTokenRegistry(
  fn: (registry: TokenRegistry, digests: { app: string; public: string }) => Promise<void>,
): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "toolkit-token-test-" });
  try {
    await using registry = await startTokenRegistry({
      users: { alice: "s3cret" },
      publicRepositories: ["public/app"],
    });
    const access = { home, tls: true, certDir: registry.certDir, creds: "alice:s3cret" };
    const layout = await buildOciLayout(home);
    const app = await skopeoPush(layout, `${registry.host}/demo/app:1`, access);
    const pub = await skopeoPush(layout, `${registry.host}/public/app:1`, access);
    assert.equal(app, await skopeoRawSha256(`${registry.host}/demo/app:1`, access));
    registry.tokens.requests.length = 0;
    await fn(registry, { app, public: pub });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

function clientFor(
  registry: TokenRegistry,
  secret: SecretLike | undefined,
  extra: Partial<RegistryClientOptions> = {},
) {
  return createRegistryClient({
    caCerts: [registry.caCertPem],
    credentials: secret ? createKeyring(credentialsFromSecret(secret)) : undefined,
    ...extra,
  });
}

Deno.test({
  name: "createRegistryClient() gets a Bearer token with the secret's credentials and caches it",
  ignore,
  fn: () =>
    withTokenRegistry(async (registry, digests) => {
      let now = Date.now();
      using client = clientFor(registry, pullSecret("regcred", registry.host, "alice:s3cret"), {
        now: () => now,
      });
      const ref = parseReference(`${registry.host}/demo/app:1`);
      assert.equal(await client.resolveDigest(ref), digests.app);
      assert.equal(client.requestCount, 3, "401 challenge, token, retry with the token");
      assert.deepEqual(registry.tokens.requests, [{
        scopes: ["repository:demo/app:pull"],
        service: "toolkit-test-registry",
        user: "alice",
      }]);

      assert.equal((await client.getManifest(ref)).digest, digests.app);
      assert.equal(client.requestCount, 4, "the cached token is sent at once");
      assert.equal(registry.tokens.requests.length, 1);

      now += 301_000; // past expires_in (300 s)
      assert.equal(await client.resolveDigest(ref), digests.app);
      assert.equal(registry.tokens.requests.length, 2, "an expired token is replaced");
      assert.equal(client.requestCount, 6);
    }),
});

Deno.test({
  name: "createRegistryClient() reads token or access_token and assumes 60 s without expires_in",
  ignore,
  fn: () =>
    withTokenRegistry(async (registry, digests) => {
      const secret = pullSecret("regcred", registry.host, "alice:s3cret");
      const ref = parseReference(`${registry.host}/demo/app:1`);
      for (const tokenField of ["token", "access_token"] as const) {
        registry.tokens.configure({ tokenField, expiresIn: undefined });
        registry.tokens.requests.length = 0;
        let now = Date.now();
        using client = clientFor(registry, secret, { now: () => now });
        assert.equal(await client.resolveDigest(ref), digests.app, tokenField);
        now += 59_000;
        assert.equal(await client.resolveDigest(ref), digests.app);
        assert.equal(registry.tokens.requests.length, 1, `${tokenField}: still fresh at 59 s`);
        now += 1_000;
        assert.equal(await client.resolveDigest(ref), digests.app);
        assert.equal(registry.tokens.requests.length, 2, `${tokenField}: expired at 60 s`);
      }
    }),
});

Deno.test({
  name: "createRegistryClient() pulls a public repository with an anonymous token",
  ignore,
  fn: () =>
    withTokenRegistry(async (registry, digests) => {
      using client = clientFor(registry, undefined);
      assert.equal(
        await client.resolveDigest(parseReference(`${registry.host}/public/app:1`)),
        digests.public,
      );
      assert.deepEqual(registry.tokens.requests.map((r) => r.user), [undefined]);
    }),
});

Deno.test({
  name: "createRegistryClient() fails clearly when an anonymous token grants nothing",
  ignore,
  fn: () =>
    withTokenRegistry(async (registry) => {
      using client = clientFor(registry, undefined);
      const ref = parseReference(`${registry.host}/demo/app:1`);
      await assert.rejects(client.getManifest(ref), (error: unknown) => {
        assert.ok(error instanceof RegistryError);
        assert.equal(error.status, 401);
        assert.equal(error.code, "UNAUTHORIZED");
        assert.match(
          error.message,
          /^Cannot read manifest of ".*\/demo\/app:1": UNAUTHORIZED: .*\(the registry refused the anonymous token; credentials may be needed\)$/,
        );
        return true;
      });
    }),
});

Deno.test({
  name: "createRegistryClient() names the secret the token service rejects, never its password",
  ignore,
  fn: () =>
    withTokenRegistry(async (registry) => {
      using client = clientFor(registry, pullSecret("stale", registry.host, "alice:wrong-pass"));
      await assert.rejects(
        client.resolveDigest(parseReference(`${registry.host}/demo/app:1`)),
        (error: unknown) => {
          assert.ok(error instanceof RegistryError);
          assert.equal(error.status, 401);
          assert.match(
            error.message,
            /the token service "https:\/\/127\.0\.0\.1:\d+\/token" rejected the credentials from secret "team\/stale" \(HTTP 401\)/,
          );
          assert.ok(!error.message.includes("wrong-pass"));
          assert.ok(!error.message.includes(btoa("alice:wrong-pass")));
          return true;
        },
      );
    }),
});

Deno.test({
  name: "createRegistryClient() moves on to the next secret when the token service rejects one",
  ignore,
  fn: () =>
    withTokenRegistry(async (registry, digests) => {
      const keyring = createKeyring([
        ...credentialsFromSecret(pullSecret("stale", `${registry.host}/demo`, "alice:old")),
        ...credentialsFromSecret(pullSecret("current", registry.host, "alice:s3cret")),
      ]);
      using client = createRegistryClient({ caCerts: [registry.caCertPem], credentials: keyring });
      const ref = parseReference(`${registry.host}/demo/app:1`);
      assert.equal(await client.resolveDigest(ref), digests.app);
      assert.deepEqual(registry.tokens.requests.map((r) => r.user), ["alice", "alice"]);
      const before = client.requestCount;
      assert.equal(await client.resolveDigest(ref), digests.app);
      assert.equal(client.requestCount - before, 1, "the good token is reused");
    }),
});
