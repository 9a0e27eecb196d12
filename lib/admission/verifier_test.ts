/**
 * The verifier against the real distribution registry, with images pushed and signed by the
 * real skopeo and gpg (simple signing into a lookaside directory).
 */
import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import { parseReference } from "../image/mod.ts";
import type { ImagePolicy, PolicyMatch, RepositoryPolicy } from "../policy/mod.ts";
import { generateKeyPair, signImage } from "../signing/mod.ts";
import { NO_SIGNATURE_REASON } from "../signature/mod.ts";
import { loadRegistriesD, lookasideStore } from "../lookaside/mod.ts";
import { e2eSkipReason, startGpg, startRegistry } from "../../tests/env/mod.ts";
import { pullCredentials } from "./credentials.ts";
import { filePolicySource, type PolicyDocuments } from "./file_source.ts";
import { KeyStore } from "./keys.ts";
import { CACHE_BYTES } from "./memory_budget.ts";
import type { SecretData } from "./source.ts";
import {
  createImageVerifier,
  type ImageVerdict,
  noSignatureStore,
  type VerifierOptions,
} from "./verifier.ts";

const b64 = (s: string) => btoa(s);

function keySecret(name: string, namespace: string, armored: string): SecretData {
  return { metadata: { name, namespace, resourceVersion: "1" }, data: { key: b64(armored) } };
}

function pullSecret(name: string, registry: string, user: string, password: string): SecretData {
  const config = JSON.stringify({ auths: { [registry]: { auth: b64(`${user}:${password}`) } } });
  return {
    metadata: { name, namespace: "dev", resourceVersion: "1" },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": b64(config) },
  };
}

function match(
  policy: RepositoryPolicy,
  kind: ImagePolicy["kind"] = "ClusterImagePolicy",
): PolicyMatch {
  return {
    policy,
    pattern: "*",
    source: `${kind} "p"`,
    kind,
    name: "p",
    namespace: kind === "ImagePolicy" ? "dev" : undefined,
  };
}

const signedBy = (keySecret: string, extra: Record<string, unknown> = {}): RepositoryPolicy => ({
  simple: { requirements: [{ type: "signedBy", keySecret, ...extra }] },
});

Deno.test({
  name: "createImageVerifier() checks simple signatures against a real registry",
  ignore: e2eSkipReason(["docker-registry", "gpg", "skopeo", "htpasswd"]) !== undefined,
  fn: async (t) => {
    await using registry = await startRegistry();
    await using locked = await startRegistry({ auth: { username: "u", password: "p4ss" } });
    await using gpg = await startGpg();
    const signer = await gpg.generateKey({ type: "ed25519" });
    const other = await gpg.generateKey({ type: "ed25519" });
    const signedRef = `${registry.host}/team/app:1`;
    const signedDigest = await gpg.pushImage(signedRef, { signBy: signer.fingerprint });
    const unsignedRef = `${registry.host}/team/plain:1`;
    const unsignedDigest = await gpg.pushImage(unsignedRef, { content: "unsigned" });
    const lockedRef = `${locked.host}/team/private:1`;
    await gpg.pushImage(lockedRef, { signBy: signer.fingerprint, creds: "u:p4ss", content: "p" });

    let documents: PolicyDocuments = {
      policies: [],
      secrets: [
        keySecret("signer", "toolkit-system", signer.publicKeyArmored),
        keySecret("other", "toolkit-system", other.publicKeyArmored),
        keySecret("dev-signer", "dev", signer.publicKeyArmored),
        pullSecret("regcred", locked.host, "u", "p4ss"),
      ],
      serviceAccounts: [],
      namespaces: [],
    };
    const source = filePolicySource(documents);
    const counts = { hits: 0, misses: 0, errors: 0 };
    const failures: string[] = [];
    let now = 1_000_000;
    const options: VerifierOptions = {
      source,
      clusterKeyNamespace: "toolkit-system",
      insecureRegistries: [registry.host, locked.host],
      registriesD: await loadRegistriesD(gpg.registriesD),
      flightTimeoutMs: 10_000,
      verdictCache: { ttlMs: 60_000, maxEntries: 100 },
      digestCache: { ttlMs: 30_000, maxEntries: 100 },
      now: () => now,
      clock: () => new Date(),
      retry: { maxRetries: 0 },
      observer: {
        cacheHit: () => counts.hits++,
        cacheMiss: () => counts.misses++,
        registryError: () => counts.errors++,
        verificationError: (kind) => failures.push(kind),
      },
    };
    let verifier = createImageVerifier(options);
    const verify = (
      image: string,
      policy: RepositoryPolicy,
      pull: string[] = [],
      kind?: ImagePolicy["kind"],
    ) =>
      verifier.verify({
        reference: parseReference(image),
        match: match(policy, kind),
        namespace: "dev",
        credentials: () => pullCredentials(source, "dev", pull, "default"),
      });
    const denied = (verdict: ImageVerdict) => {
      assert.equal(verdict.allowed, false, JSON.stringify(verdict));
      return verdict.allowed ? "" : verdict.reason;
    };

    await t.step("admits a signed image and returns its digest, then from the cache", async () => {
      const first = await verify(signedRef, signedBy("signer"));
      assert.deepEqual(first, {
        allowed: true,
        digest: signedDigest,
        signers: [signer.fingerprint],
      });
      const second = await verify(signedRef, signedBy("signer"));
      assert.equal(second.allowed && second.cached, true);
      assert.deepEqual([counts.misses, counts.hits], [1, 1]);
    });

    await t.step("verifies again once the cached verdict expires", async () => {
      now += 61_000;
      const verdict = await verify(signedRef, signedBy("signer"));
      assert.equal(verdict.allowed && !verdict.cached, true);
    });

    await t.step("accepts a digest reference to the signed manifest", async () => {
      const byDigest = `${registry.host}/team/app@${signedDigest}`;
      assert.equal((await verify(byDigest, signedBy("signer"))).allowed, true);
    });

    await t.step("denies an unsigned image with containers/image's message", async () => {
      const verdict = await verify(unsignedRef, signedBy("signer"));
      assert.equal(denied(verdict), NO_SIGNATURE_REASON);
      assert.equal(!verdict.allowed && verdict.digest, unsignedDigest);
    });

    await t.step("denies a signature by a key that is not trusted", async () => {
      assert.match(
        denied(await verify(signedRef, signedBy("other"))),
        /^None of the signatures were accepted, reasons: signature made by an unknown key/,
      );
    });

    await t.step("applies the signedIdentity rule", async () => {
      const rule = {
        signedIdentity: {
          type: "matchExactReference",
          dockerReference: `${registry.host}/team/other:1`,
        },
      };
      assert.match(
        denied(await verify(signedRef, signedBy("signer", rule))),
        /does not match the required reference/,
      );
      const repo = {
        signedIdentity: {
          type: "matchExactRepository",
          dockerRepository: `${registry.host}/team/app`,
        },
      };
      assert.equal(
        (await verify(`${registry.host}/team/app:1`, signedBy("signer", repo))).allowed,
        true,
      );
    });

    await t.step("takes a ClusterImagePolicy's keys from the controller's namespace", async () => {
      // "dev-signer" exists only in the workload's namespace.
      assert.match(
        denied(await verify(signedRef, signedBy("dev-signer"))),
        /key Secret "toolkit-system\/dev-signer": it does not exist/,
      );
      assert.equal(
        (await verify(signedRef, signedBy("dev-signer"), [], "ImagePolicy")).allowed,
        true,
      );
      assert.equal(
        (await verify(signedRef, signedBy("dev-signer", { keySecretNamespace: "dev" }))).allowed,
        true,
      );
    });

    await t.step("reads signatures from storeURL when the policy sets one", async () => {
      // A verified verdict does not depend on where the signature was found: start uncached.
      verifier = createImageVerifier(options);
      const policy = (storeURL: string): RepositoryPolicy => ({
        simple: { storeURL, requirements: [{ type: "signedBy", keySecret: "signer" }] },
      });
      assert.equal(
        (await verify(
          `${registry.host}/team/app@${signedDigest}`,
          policy(`file://${gpg.sigstore}`),
        )).allowed,
        true,
      );
      const empty = await Deno.makeTempDir();
      try {
        verifier = createImageVerifier(options);
        assert.equal(
          denied(
            await verify(`${registry.host}/team/app@${signedDigest}`, policy(`file://${empty}`)),
          ),
          NO_SIGNATURE_REASON,
        );
      } finally {
        await Deno.remove(empty, { recursive: true });
      }
    });

    await t.step(
      "applies reject, insecureAcceptAnything, an empty policy and unsupported kinds",
      async () => {
        assert.match(
          denied(await verify(signedRef, { simple: { requirements: [{ type: "reject" }] } })),
          /^Running image docker:\/\/.* is rejected by policy\.$/,
        );
        assert.deepEqual(
          await verify(unsignedRef, {
            simple: { requirements: [{ type: "insecureAcceptAnything" }] },
          }),
          { allowed: true, digest: unsignedDigest },
        );
        assert.deepEqual(await verify("quay.io/not/contacted", {}), { allowed: true });
        assert.match(
          denied(await verify(signedRef, { trust: { enabled: true } })),
          /Docker Content Trust/,
        );
      },
    );

    await t.step("uses the workload's pull secret for a registry behind htpasswd", async () => {
      assert.match(
        denied(await verify(lockedRef, signedBy("signer"))),
        /401|UNAUTHORIZED|unauthorized/i,
      );
      assert.equal((await verify(lockedRef, signedBy("signer"), ["regcred"])).allowed, true);
    });

    await t.step("denies when the registry cannot be reached", async () => {
      const before = counts.errors;
      failures.length = 0;
      const verdict = await verify("127.0.0.1:1/team/app:1", signedBy("signer"));
      assert.equal(!verdict.allowed && verdict.cause, "error");
      assert.equal(counts.errors, before + 1);
      assert.deepEqual(failures, ["registry"]);
      // A key Secret that does not exist is a failure too, not the registry's.
      const missing = await verify(signedRef, signedBy("no-such-secret"));
      assert.equal(!missing.allowed && missing.cause, "error");
      assert.deepEqual(failures, ["registry", "config"]);
      assert.equal(counts.errors, before + 1);
    });

    await t.step(
      "a tag and a digest must agree when the policy was chosen for the tag",
      async () => {
        const one = await gpg.pushImage(`${registry.host}/team/multi:1`, {
          signBy: signer.fingerprint,
          content: "multi 1",
        });
        const two = await gpg.pushImage(`${registry.host}/team/multi:2`, {
          signBy: signer.fingerprint,
          content: "multi 2",
        });
        const byTag = (policy: RepositoryPolicy, image: string, matchedByTag = true) =>
          verifier.verify({
            reference: parseReference(image),
            match: { ...match(policy), pattern: `${registry.host}/team/multi:1`, matchedByTag },
            namespace: "dev",
            credentials: () => pullCredentials(source, "dev", [], "default"),
          });
        const accept: RepositoryPolicy = {
          simple: { requirements: [{ type: "insecureAcceptAnything" }] },
        };
        for (const policy of [signedBy("signer"), accept, {}]) {
          assert.equal(
            denied(await byTag(policy, `${registry.host}/team/multi:1@${two}`)),
            `The tag "1" of "${registry.host}/team/multi" resolves to ${one}, not to the digest ${two} of the reference (pattern "${registry.host}/team/multi:1" applies to the tag)`,
          );
        }
        for (const policy of [signedBy("signer"), accept]) {
          const verdict = await byTag(policy, `${registry.host}/team/multi:1@${one}`);
          assert.equal(verdict.allowed && verdict.digest, one);
        }
        // A pattern that covers the repository does not depend on the tag: the digest is the image.
        const repository = await byTag(
          signedBy("signer"),
          `${registry.host}/team/multi:1@${two}`,
          false,
        );
        assert.equal(repository.allowed && repository.digest, two);
      },
    );

    await t.step("says when no signature store is configured for the registry", async () => {
      const { registriesD: _, ...withoutStores } = options;
      verifier = createImageVerifier(withoutStores);
      const verdict = await verify(signedRef, signedBy("signer"));
      assert.equal(denied(verdict), noSignatureStore(registry.host));
      assert.equal(
        noSignatureStore(registry.host),
        `A signature was required, but no signature store is configured for "${registry.host}" (set storeURL or a registries.d lookaside)`,
      );
      verifier = createImageVerifier(options);
    });

    await t.step(
      "remembers an admitted verdict by its objects for a second, while the source is unchanged",
      async () => {
        const reference = parseReference(signedRef);
        const byObjects = match(signedBy("signer"));
        const task = (credentialsKey: string) => ({
          reference,
          match: byObjects,
          namespace: "dev",
          credentials: () => pullCredentials(source, "dev", [], "default"),
          credentialsKey,
        });
        assert.equal(verifier.known?.(task("dev/default")), undefined);
        assert.equal((await verifier.verify(task("dev/default"))).allowed, true);
        const known = verifier.known?.(task("dev/default"));
        assert.deepEqual(known, {
          allowed: true,
          digest: signedDigest,
          signers: [signer.fingerprint],
          cached: true,
        });
        // Other credentials, another match or reference object: not this verdict.
        assert.equal(verifier.known?.(task("dev/builder")), undefined);
        assert.equal(
          verifier.known?.({ ...task("dev/default"), match: match(signedBy("signer")) }),
          undefined,
        );
        assert.equal(
          verifier.known?.({ ...task("dev/default"), reference: parseReference(signedRef) }),
          undefined,
        );
        // In the second half of its life, the entry is renewed off the request path: verified
        // again through the caches once this turn is over.
        now += 600;
        const hits = counts.hits;
        assert.ok(verifier.known?.(task("dev/default")));
        assert.ok(verifier.known?.(task("dev/default")), "renewed once");
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(counts.hits, hits + 3, "two remembered, one from the verdict cache");
        now += 500;
        assert.ok(verifier.known?.(task("dev/default")), "the renewed entry lives on");
        // A second at most.
        now += 1000;
        assert.equal(verifier.known?.(task("dev/default")), undefined);
        assert.equal((await verifier.verify(task("dev/default"))).allowed, true);
        assert.ok(verifier.known?.(task("dev/default")));
        // A new generation of the source (here: the same documents again) forgets it.
        source.replace(documents);
        assert.equal(verifier.known?.(task("dev/default")), undefined);
        // A tag resolved without a digest cache (off: no entries) is not remembered either.
        const noDigests = createImageVerifier({
          ...options,
          digestCache: { ttlMs: 30_000, maxEntries: 0 },
        });
        assert.equal((await noDigests.verify(task("dev/default"))).allowed, true);
        assert.equal(noDigests.known?.(task("dev/default")), undefined);
        // A verifier with keys of its own (not the source's) remembers nothing.
        const apart = createImageVerifier({ ...options, keys: new KeyStore(source) });
        assert.equal((await apart.verify(task("dev/default"))).allowed, true);
        assert.equal(apart.known?.(task("dev/default")), undefined);
      },
    );

    await t.step("a changed key Secret is used at once", async () => {
      const reference = parseReference(signedRef);
      const byObjects = match(signedBy("signer"));
      const task = {
        reference,
        match: byObjects,
        namespace: "dev",
        credentials: () => pullCredentials(source, "dev", [], "default"),
        credentialsKey: "dev/default",
      };
      assert.equal((await verifier.verify(task)).allowed, true);
      assert.ok(verifier.known?.(task));
      documents = {
        ...documents,
        secrets: [
          keySecret("signer", "toolkit-system", other.publicKeyArmored),
          ...documents.secrets.slice(1),
        ],
      };
      source.replace(documents);
      assert.equal(verifier.known?.(task), undefined, "nothing remembered outlives the change");
      assert.match(denied(await verifier.verify(task)), /unknown key/);
      assert.match(denied(await verify(signedRef, signedBy("signer"))), /unknown key/);
    });
  },
});

Deno.test("createImageVerifier() decides reject and unpinned insecureAcceptAnything without the registry", async () => {
  // A registry client (and store) whose every call fails: a cluster whose nodes pull through
  // mirrors the webhook cannot reach.
  const calls: string[] = [];
  const unreachable = (input: string | URL | Request): Promise<Response> => {
    calls.push(String(input instanceof Request ? input.url : input));
    return Promise.reject(new TypeError("connection refused"));
  };
  const source = filePolicySource({
    policies: [],
    secrets: [],
    serviceAccounts: [],
    namespaces: [],
  });
  const verifier = createImageVerifier({
    source,
    clusterKeyNamespace: "toolkit-system",
    fetch: unreachable,
    retry: { maxRetries: 0 },
    flightTimeoutMs: 10_000,
    verdictCache: { ttlMs: 60_000, maxEntries: 10 },
    digestCache: { ttlMs: 60_000, maxEntries: 10 },
  });
  let credentialReads = 0;
  const verify = (image: string, policy: RepositoryPolicy) =>
    verifier.verify({
      reference: parseReference(image),
      match: match(policy),
      namespace: "dev",
      credentials: () => {
        credentialReads++;
        return pullCredentials(source, "dev", [], "default");
      },
    });
  const accept = [{ type: "insecureAcceptAnything" as const }];

  for (const image of ["mirror.invalid/team/app:1", "mirror.invalid/team/app"]) {
    assert.deepEqual(
      await verify(image, { mutateImage: false, simple: { requirements: accept } }),
      { allowed: true },
    );
    const rejected = await verify(image, { simple: { requirements: [{ type: "reject" }] } });
    assert.equal(rejected.allowed, false);
    assert.equal(!rejected.allowed && rejected.cause, "policy");
  }
  assert.deepEqual(calls, []);
  assert.equal(credentialReads, 0);

  // Pinning needs the digest: then an unreachable registry still denies (fail closed).
  const pinned = await verify("mirror.invalid/team/app:1", { simple: { requirements: accept } });
  assert.equal(pinned.allowed, false);
  assert.equal(!pinned.allowed && pinned.cause, "error");
  assert.notDeepEqual(calls, []);
});

Deno.test("createImageVerifier() makes a key's state part of every cached verdict", async (t) => {
  // No registry: the image is named by its digest and its signature is read from storeURL.
  const start = Date.now();
  let now = start;
  const hour = 3600_000;
  const created = () => new Date(start - hour);
  const forever = await generateKeyPair({ name: "forever", clock: created });
  const expiring = await generateKeyPair({
    name: "expiring",
    clock: created,
    keyExpirationTime: 2 * 3600, // expires one hour after `start`
  });
  const { publicKey: revokedArmored } = await openpgp.revokeKey({
    key: await openpgp.readPrivateKey({ armoredKey: forever.privateKeyArmored }),
    date: new Date(start - 60_000),
    format: "armored",
  });
  const digest = `sha256:${"c".repeat(64)}`;
  const image = `registry.invalid/team/app@${digest}`;
  const reference = parseReference(image);
  const dir = await Deno.makeTempDir({ prefix: "toolkit-verdict-" });
  const storeURL = `file://${dir}/`;
  const store = lookasideStore({ readBase: new URL(storeURL) });
  for (const pair of [forever, expiring]) {
    await store.writeSignature(
      reference,
      digest,
      await signImage({
        privateKey: pair.privateKeyArmored,
        dockerReference: image,
        manifestDigest: digest,
        clock: () => new Date(start - hour / 2),
      }),
    );
  }
  let documents: PolicyDocuments = {
    policies: [],
    secrets: [
      keySecret("key", "team-a", forever.publicKeyArmored),
      keySecret("key", "team-b", forever.publicKeyArmored),
      keySecret("expiring", "team-a", expiring.publicKeyArmored),
    ],
    serviceAccounts: [],
    namespaces: [],
  };
  const source = filePolicySource(documents);
  const counts = { hits: 0 };
  const verifier = createImageVerifier({
    source,
    clusterKeyNamespace: "toolkit-system",
    flightTimeoutMs: 10_000,
    verdictCache: { ttlMs: 24 * hour, maxEntries: 100 },
    digestCache: { ttlMs: 30_000, maxEntries: 100 },
    now: () => now,
    observer: { cacheHit: () => counts.hits++ },
  });
  const verify = (namespace: string, keySecret = "key") =>
    verifier.verify({
      reference,
      match: {
        policy: { simple: { storeURL, requirements: [{ type: "signedBy", keySecret }] } },
        pattern: "registry.invalid/team/*",
        source: `ImagePolicy "${namespace}/p"`,
        kind: "ImagePolicy",
        name: "p",
        namespace,
      },
      namespace,
      credentials: () => pullCredentials(source, namespace, [], "default"),
    });
  const replaceKey = (namespace: string, armored: string) => {
    documents = {
      ...documents,
      secrets: documents.secrets.map((secret) =>
        secret.metadata?.namespace === namespace && secret.metadata?.name === "key"
          ? keySecret("key", namespace, armored)
          : secret
      ),
    };
    source.replace(documents);
  };

  try {
    await t.step("a revoked copy of the key in the Secret denies at once", async () => {
      assert.equal((await verify("team-a")).allowed, true);
      const cached = await verify("team-a");
      assert.equal(cached.allowed && cached.cached, true);
      replaceKey("team-a", revokedArmored);
      const verdict = await verify("team-a");
      assert.equal(verdict.allowed, false, JSON.stringify(verdict));
      assert.match(verdict.allowed ? "" : verdict.reason, /signing key [0-9A-F]{40} is revoked/);
    });

    await t.step("an unrevoked copy elsewhere does not re-warm the revoked one", async () => {
      const b = await verify("team-b");
      assert.equal(b.allowed && b.cached, true); // the verdict of team-a's old key: same material
      assert.equal((await verify("team-a")).allowed, false);
      assert.equal((await verify("team-b")).allowed, true);
      assert.equal((await verify("team-a")).allowed, false);
    });

    await t.step("the old key again is the old verdict again", async () => {
      replaceKey("team-a", forever.publicKeyArmored);
      const verdict = await verify("team-a");
      assert.equal(verdict.allowed && verdict.cached, true);
    });

    await t.step("a cached verdict does not outlive the key's expiry", async () => {
      assert.equal((await verify("team-a", "expiring")).allowed, true);
      now = start + hour - 1000;
      const before = counts.hits;
      const cached = await verify("team-a", "expiring");
      assert.equal(cached.allowed && cached.cached, true);
      assert.equal(counts.hits, before + 1);
      now = start + hour + 1000;
      const expired = await verify("team-a", "expiring");
      assert.equal(expired.allowed, false, JSON.stringify(expired));
      assert.match(expired.allowed ? "" : expired.reason, /signing key [0-9A-F]{40} expired on/);
      // The key that does not expire is still served from the cache a day long.
      const forever = await verify("team-b");
      assert.equal(forever.allowed && forever.cached, true);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createImageVerifier() reports each of its caches with its bounds", () => {
  const verifier = createImageVerifier({
    source: filePolicySource({ policies: [], secrets: [], serviceAccounts: [], namespaces: [] }),
    clusterKeyNamespace: "toolkit-system",
    flightTimeoutMs: 1000,
    verdictCache: { ttlMs: 60_000, maxEntries: 10, maxBytes: 4096 },
    digestCache: { ttlMs: 30_000, maxEntries: 20 },
  });
  const caches = verifier.caches!();
  assert.deepEqual(caches.map((c) => [c.name, c.entries, c.maxEntries]), [
    ["verdict", 0, 10],
    ["digest", 0, 20],
    ["registry-client", 0, 64],
    ["registry-token", 0, 1024],
    ["key", 0, 256],
    ["sigstore-key", 0, 256],
    ["trust-root", 0, 32],
    ["attestation-key", 0, 256],
  ]);
  assert.equal(caches[0]!.maxBytes, 4096);
  // The digest cache's default byte bound is its line of the memory budget.
  assert.equal(caches[1]!.maxBytes, CACHE_BYTES.digest);
});
