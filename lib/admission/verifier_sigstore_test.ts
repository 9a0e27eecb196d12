/**
 * The verifier's `sigstoreSigned` requirement against the real distribution registry: images
 * pushed with the real skopeo, cosign signatures in both formats written as cosign lays them out
 * (tests/fakes/cosign_registry.ts), keys and trust roots read from Secrets and ConfigMaps.
 */
import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import type { PolicyMatch, RepositoryPolicy, Requirement } from "../policy/mod.ts";
import { NO_SIGNATURE_REASON } from "../signature/mod.ts";
import { e2eSkipReason, startRegistry } from "../../tests/env/mod.ts";
import { buildOciLayout, skopeoPush } from "../../tests/env/oci_layout.ts";
import { pushCosignSignatures } from "../../tests/fakes/cosign_registry.ts";
import {
  bundleSignature,
  cosignPayload,
  cosignStatement,
  legacySignature,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../../tests/fakes/sigstore_instance.ts";
import { ANONYMOUS } from "./credentials.ts";
import { filePolicySource } from "./file_source.ts";
import type { ConfigMapData, SecretData } from "./source.ts";
import { createImageVerifier, type ImageVerdict } from "./verifier.ts";

const CONTROLLER = "toolkit-system";
const ISSUER = "https://token.actions.githubusercontent.com";
const SUBJECT = "https://github.com/team/app/.github/workflows/release.yml@refs/tags/v1";

function keySecret(name: string, pem: string): SecretData {
  return {
    metadata: { name, namespace: CONTROLLER, resourceVersion: "1" },
    data: { key: btoa(pem) },
  };
}

function trustRootConfigMap(name: string, json: string): ConfigMapData {
  return {
    metadata: { name, namespace: CONTROLLER, resourceVersion: "1" },
    data: { "trusted_root.json": json },
  };
}

function match(...requirements: Requirement[]): PolicyMatch {
  return matchPolicy({ simple: { requirements } });
}

function matchPolicy(policy: RepositoryPolicy): PolicyMatch {
  return {
    policy,
    pattern: "*",
    source: 'ClusterImagePolicy "p"',
    kind: "ClusterImagePolicy",
    name: "p",
  };
}

Deno.test({
  name: "createImageVerifier() checks sigstoreSigned requirements against a real registry",
  ignore: e2eSkipReason(["docker-registry", "skopeo"]) !== undefined,
  fn: async (t) => {
    await using registry = await startRegistry();
    const home = await Deno.makeTempDir({ prefix: "toolkit-sigstore-verifier-" });
    const push = async (name: string) => {
      const layout = await buildOciLayout(home, { name, content: `${name}\n` });
      return await skopeoPush(layout, `${registry.host}/team/${name}:1`, { home });
    };
    const signer = testKeyPair();
    const stranger = testKeyPair("ed25519");
    const fulcio = await testFulcio();
    const rekor = testRekor();
    const workload = testKeyPair();
    const notBefore = new Date(Date.now() - 3600_000);
    const at = new Date(notBefore.getTime() + 60_000);
    const certificate = await fulcio.issue({
      publicKey: workload.publicKey,
      subject: SUBJECT,
      issuer: ISSUER,
      notBefore,
    });
    const images: Record<string, string> = {};
    for (const name of ["legacy", "bundle", "unsigned", "foreign", "keyless", "both"]) {
      images[name] = await push(name);
    }
    const repo = (name: string) => `${registry.host}/team/${name}`;
    await pushCosignSignatures(registry.host, "team/legacy", images.legacy!, [
      legacySignature({
        signer: { key: signer },
        payload: cosignPayload(repo("legacy"), images.legacy!),
      }),
    ]);
    await pushCosignSignatures(registry.host, "team/bundle", images.bundle!, [
      bundleSignature({ signer: { key: signer }, statement: cosignStatement(images.bundle!) }),
    ], { fallbackTag: true });
    await pushCosignSignatures(registry.host, "team/foreign", images.foreign!, [
      legacySignature({
        signer: { key: stranger },
        payload: cosignPayload(repo("foreign"), images.foreign!),
      }),
      bundleSignature({ signer: { key: stranger }, statement: cosignStatement(images.foreign!) }),
    ], { fallbackTag: true });
    await pushCosignSignatures(registry.host, "team/keyless", images.keyless!, [
      legacySignature({
        signer: { key: workload, certificate },
        payload: cosignPayload(repo("keyless"), images.keyless!),
        rekor: { log: rekor, at },
      }),
    ]);
    await pushCosignSignatures(registry.host, "team/both", images.both!, [
      legacySignature({
        signer: { key: stranger },
        payload: cosignPayload(repo("both"), images.both!),
      }),
      legacySignature({
        signer: { key: signer },
        payload: cosignPayload(repo("both"), images.both!),
      }),
    ]);

    const source = filePolicySource({
      policies: [],
      secrets: [
        keySecret("cosign-pub", signer.publicPem),
        keySecret("broken-pub", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"),
      ],
      configMaps: [trustRootConfigMap("sigstore-root", testTrustRoot({ fulcio, rekor }))],
      serviceAccounts: [],
      namespaces: [],
    });
    let hits = 0;
    const verifier = createImageVerifier({
      source,
      clusterKeyNamespace: CONTROLLER,
      insecureRegistries: [registry.host],
      flightTimeoutMs: 20_000,
      verdictCache: { ttlMs: 60_000, maxEntries: 100 },
      digestCache: { ttlMs: 60_000, maxEntries: 100 },
      observer: { cacheHit: () => hits++ },
    });
    const keyed: Requirement = { type: "sigstoreSigned", keySecret: "cosign-pub" };
    const keyless: Requirement = {
      type: "sigstoreSigned",
      keyless: {
        trustRootRef: { kind: "ConfigMap", name: "sigstore-root" },
        identities: [{ issuer: ISSUER, subjectRegExp: "^https://github\\.com/team/app/" }],
      },
    };
    const check = (image: string, m: PolicyMatch): Promise<ImageVerdict> =>
      verifier.verify({
        reference: parseReference(image),
        match: m,
        namespace: "dev",
        credentials: () => Promise.resolve(ANONYMOUS),
      });

    await t.step(
      "a keyed legacy signature admits and pins; the verdict is then cached",
      async () => {
        const verdict = await check(`${repo("legacy")}:1`, match(keyed));
        assert.equal(verdict.allowed, true, JSON.stringify(verdict));
        assert.equal(verdict.digest, images.legacy);
        assert.match(verdict.allowed ? verdict.signers![0]! : "", /^sha256:[0-9a-f]{64}$/);
        assert.equal((await check(`${repo("legacy")}:1`, match(keyed))).allowed, true);
        assert.equal(hits, 1);
      },
    );
    await t.step("a keyed v3 bundle (the referrers fallback tag) admits", async () => {
      const verdict = await check(`${repo("bundle")}:1`, match(keyed));
      assert.equal(verdict.allowed, true, JSON.stringify(verdict));
    });
    await t.step("an unsigned image is denied as containers/image says it", async () => {
      const verdict = await check(`${repo("unsigned")}:1`, match(keyed));
      assert.deepEqual(verdict, {
        allowed: false,
        reason: NO_SIGNATURE_REASON,
        cause: "policy",
        digest: images.unsigned,
      });
    });
    await t.step("signatures by another key are denied, each format saying why", async () => {
      const verdict = await check(`${repo("foreign")}:1`, match(keyed));
      assert.equal(verdict.allowed, false);
      const reason = verdict.allowed ? "" : verdict.reason;
      assert.match(
        reason,
        /^None of the signatures were accepted, reasons: layer sha256:\w+ of sha256-\w+\.sig: the signature does not verify with the key of the requirement; referrer sha256:\w+: the signature does not verify with the key of the requirement$/,
      );
    });
    await t.step("one good signature among others is enough", async () => {
      assert.equal((await check(`${repo("both")}:1`, match(keyed))).allowed, true);
    });
    await t.step(
      "keyless: the trust root's CA, a logged time and an accepted identity admit",
      async () => {
        assert.equal((await check(`${repo("keyless")}:1`, match(keyless))).allowed, true);
        const other = await check(
          `${repo("keyless")}:1`,
          match({
            ...keyless,
            keyless: {
              ...keyless.keyless!,
              identities: [{ issuer: ISSUER, subject: "https://x" }],
            },
          }),
        );
        assert.match(other.allowed ? "" : other.reason, /which is not an accepted identity/);
      },
    );
    await t.step(
      "sigstoreSigned under mutateImage: false still verifies (it is not insecureAcceptAnything)",
      async () => {
        const verdict = await check(
          `${repo("unsigned")}:1`,
          matchPolicy({ mutateImage: false, simple: { requirements: [keyed] } }),
        );
        assert.equal(verdict.allowed, false);
      },
    );
    await t.step("every requirement must hold: keyed and keyless together", async () => {
      const verdict = await check(`${repo("legacy")}:1`, match(keyed, keyless));
      assert.equal(verdict.allowed, false);
    });
    await t.step("a missing or malformed key Secret names the Secret and keySecret", async () => {
      const missing = await check(
        `${repo("legacy")}:1`,
        match({ type: "sigstoreSigned", keySecret: "nope" }),
      );
      assert.deepEqual(missing.allowed ? "" : [missing.reason, missing.cause], [
        'Cannot read key Secret "toolkit-system/nope" (keySecret of a sigstoreSigned requirement): it does not exist',
        "error",
      ]);
      const broken = await check(
        `${repo("legacy")}:1`,
        match({ type: "sigstoreSigned", keySecret: "broken-pub" }),
      );
      assert.match(
        broken.allowed ? "" : broken.reason,
        /^Cannot use key Secret "toolkit-system\/broken-pub" \(keySecret of a sigstoreSigned requirement\): Cannot read PEM block 1: not a PKIX public key$/,
      );
      const noRoot = await check(
        `${repo("keyless")}:1`,
        match({
          ...keyless,
          keyless: { ...keyless.keyless!, trustRootRef: { kind: "ConfigMap", name: "absent" } },
        }),
      );
      assert.equal(
        noRoot.allowed ? "" : noRoot.reason,
        'Cannot read trust root ConfigMap "toolkit-system/absent": it does not exist',
      );
    });
    await Deno.remove(home, { recursive: true });
  },
});
