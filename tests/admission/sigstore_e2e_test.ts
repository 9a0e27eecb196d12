/**
 * `sigstoreSigned` end to end: the real kube-apiserver calls `webhook/main.ts` (a real process)
 * for Pods whose images were pushed with the real skopeo into the distribution registry (and
 * go-containerregistry's registry with the referrers API for the referrers cases), and
 * signed in both cosign storage formats (laid out as cosign writes them, see
 * tests/fakes/cosign_registry.ts) by keys and a Fulcio-like CA and Rekor-like log made by the
 * test (tests/fakes/sigstore_instance.ts). The key Secret and the trust root ConfigMap are
 * applied with kubectl. Signed images are admitted and pinned; every attack class of issue #22
 * item 3 is denied with its reason.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { buildOciLayout, skopeoPush } from "../env/oci_layout.ts";
import { cosignLayout, pushCosignSignatures, pushLayout } from "../fakes/cosign_registry.ts";
import {
  bundleSignature,
  cosignPayload,
  cosignStatement,
  legacySignature,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../fakes/sigstore_instance.ts";
import { COSIGN_CERTIFICATE_ANNOTATION } from "../../lib/signature/cosign_media_types.ts";
import { CONTROLLER_NAMESPACE, dryRunPod, kubectlOk, podManifest } from "./_webhook.ts";

const ISSUER = "https://token.actions.githubusercontent.com";
const SUBJECT = "https://github.com/team/app/.github/workflows/release.yml@refs/tags/v1";

Deno.test({
  name: "the webhook admits cosign-signed images in both formats and denies every attack class",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld({
      images: false,
      registries: { plain: {}, withReferrers: { kind: "referrers" } },
    });
    const cluster = world.cluster;
    const reg = world.registries.plain!.host;
    const ref = world.registries.withReferrers!.host;
    const home = await Deno.makeTempDir({ prefix: "toolkit-sigstore-e2e-" });
    const digests: Record<string, string> = {};
    const push = async (path: string, host = reg) => {
      const layout = await buildOciLayout(home, { name: path.replace("/", "-"), content: path });
      digests[path] = await skopeoPush(layout, `${host}/${path}:1`, { home });
      return digests[path]!;
    };
    const image = (path: string) => `${reg}/${path}:1`;
    const repo = (path: string) => `${reg}/${path}`;

    // Keys, a Fulcio-like CA, a Rekor-like log, and a workload identity's certificate.
    const signer = testKeyPair();
    const stranger = testKeyPair();
    const fulcio = await testFulcio();
    const rogue = await testFulcio({ name: "fulcio.test" });
    const rekor = testRekor();
    const workload = testKeyPair();
    const notBefore = new Date(Date.now() - 3600_000);
    const at = new Date(notBefore.getTime() + 60_000);
    const issue = (ca = fulcio, subject = SUBJECT) =>
      ca.issue({ publicKey: workload.publicKey, subject, issuer: ISSUER, notBefore });
    const certificate = await issue();

    // Keyed images.
    const legacy = await push("keyed/legacy");
    await pushCosignSignatures(reg, "keyed/legacy", legacy, [
      legacySignature({
        signer: { key: signer },
        payload: cosignPayload(repo("keyed/legacy"), legacy),
      }),
    ]);
    const bundled = await push("keyed/bundle");
    await pushCosignSignatures(reg, "keyed/bundle", bundled, [
      bundleSignature({ signer: { key: signer }, statement: cosignStatement(bundled) }),
    ], { fallbackTag: true });
    await push("keyed/unsigned");
    const otherDigest = await push("keyed/other-digest");
    await pushCosignSignatures(reg, "keyed/other-digest", otherDigest, [
      legacySignature({
        signer: { key: signer },
        payload: cosignPayload(repo("keyed/other-digest"), legacy),
      }),
    ]);
    const otherSubject = await push("keyed/other-subject");
    await pushCosignSignatures(reg, "keyed/other-subject", otherSubject, [
      bundleSignature({ signer: { key: signer }, statement: cosignStatement(legacy) }),
    ], { fallbackTag: true });
    const foreign = await push("keyed/stranger");
    await pushCosignSignatures(reg, "keyed/stranger", foreign, [
      legacySignature({
        signer: { key: stranger },
        payload: cosignPayload(repo("keyed/stranger"), foreign),
      }),
      bundleSignature({ signer: { key: stranger }, statement: cosignStatement(foreign) }),
    ], { fallbackTag: true });
    const dsseType = await push("keyed/dsse-type");
    await pushCosignSignatures(reg, "keyed/dsse-type", dsseType, [
      bundleSignature({
        signer: { key: signer },
        statement: cosignStatement(dsseType),
        payloadType: "application/vnd.dev.cosign.simplesigning.v1+json",
      }),
    ], { fallbackTag: true });
    // A referrers index (the fallback tag) of this image listing a signature of another image.
    const lying = await push("keyed/lying-index");
    await pushLayout(
      reg,
      "keyed/lying-index",
      await cosignLayout(legacy, [
        bundleSignature({ signer: { key: signer }, statement: cosignStatement(legacy) }),
      ], { fallbackTagFor: lying }),
    );
    // A thousand referrers that may be signatures (and one good one among them).
    const crowded = await push("keyed/crowded");
    await pushCosignSignatures(
      reg,
      "keyed/crowded",
      crowded,
      Array.from(
        { length: 1000 },
        () => bundleSignature({ signer: { key: signer }, statement: cosignStatement(crowded) }),
      ),
      { fallbackTag: true, distinct: true },
    );

    // On the registry with the referrers API: bundles found by the API alone (no fallback tag).
    const apiBundle = await push("api/bundle", ref);
    await pushCosignSignatures(ref, "api/bundle", apiBundle, [
      bundleSignature({ signer: { key: signer }, statement: cosignStatement(apiBundle) }),
    ]);
    const apiOther = await push("api/other-subject", ref);
    await pushCosignSignatures(ref, "api/other-subject", apiOther, [
      bundleSignature({ signer: { key: signer }, statement: cosignStatement(legacy) }),
    ]);
    const apiCrowded = await push("api/crowded", ref);
    await pushCosignSignatures(
      ref,
      "api/crowded",
      apiCrowded,
      Array.from(
        { length: 1000 },
        () => bundleSignature({ signer: { key: signer }, statement: cosignStatement(apiCrowded) }),
      ),
      { distinct: true },
    );

    // Keyless images.
    const keyless = await push("keyless/good");
    await pushCosignSignatures(reg, "keyless/good", keyless, [
      legacySignature({
        signer: { key: workload, certificate },
        payload: cosignPayload(repo("keyless/good"), keyless),
        rekor: { log: rekor, at },
      }),
    ]);
    const keylessBundle = await push("keyless/bundle");
    await pushCosignSignatures(reg, "keyless/bundle", keylessBundle, [
      bundleSignature({
        signer: { key: workload, certificate },
        statement: cosignStatement(keylessBundle),
        rekor: { log: rekor, at },
      }),
    ], { fallbackTag: true });
    // GHSA-fx35-mq7g-6g98: an attacker's public key where the certificate belongs.
    const ghsa = await push("keyless/ghsa");
    await pushCosignSignatures(reg, "keyless/ghsa", ghsa, [
      legacySignature({
        signer: { key: stranger },
        payload: cosignPayload(repo("keyless/ghsa"), ghsa),
        annotations: { [COSIGN_CERTIFICATE_ANNOTATION]: stranger.publicPem },
      }),
    ]);
    const unchained = await push("keyless/rogue-ca");
    await pushCosignSignatures(reg, "keyless/rogue-ca", unchained, [
      legacySignature({
        signer: { key: workload, certificate: await issue(rogue) },
        payload: cosignPayload(repo("keyless/rogue-ca"), unchained),
        rekor: { log: rekor, at },
      }),
    ]);
    const untimed = await push("keyless/no-timestamp");
    await pushCosignSignatures(reg, "keyless/no-timestamp", untimed, [
      legacySignature({
        signer: { key: workload, certificate },
        payload: cosignPayload(repo("keyless/no-timestamp"), untimed),
      }),
    ]);
    const elsewhere = await push("keyless/other-identity");
    await pushCosignSignatures(reg, "keyless/other-identity", elsewhere, [
      bundleSignature({
        signer: {
          key: workload,
          certificate: await issue(
            fulcio,
            "https://github.com/evil/x/.github/workflows/a.yml@refs/heads/main",
          ),
        },
        statement: cosignStatement(elsewhere),
        rekor: { log: rekor, at },
      }),
    ], { fallbackTag: true });

    await world.namespaces("dev");
    await world.keySecret("cosign-pub", signer.publicPem);
    await kubectlOk(
      cluster,
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "sigstore-root", namespace: CONTROLLER_NAMESPACE },
        data: { "trusted_root.json": testTrustRoot({ fulcio, rekor }) },
      }),
    );
    await kubectlOk(
      cluster,
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "toolkit.dev/v1",
        kind: "ClusterImagePolicy",
        metadata: { name: "default" },
        spec: {
          repositories: [
            ...[`${reg}/keyed/*`, `${ref}/api/*`].map((name) => ({
              name,
              policy: {
                simple: { requirements: [{ type: "sigstoreSigned", keySecret: "cosign-pub" }] },
              },
            })),
            {
              name: `${reg}/keyless/*`,
              policy: {
                simple: {
                  requirements: [{
                    type: "sigstoreSigned",
                    keyless: {
                      trustRootRef: { name: "sigstore-root" },
                      identities: [{
                        issuer: ISSUER,
                        subjectRegExp: "^https://github\\.com/team/app/\\.github/workflows/",
                      }],
                    },
                  }],
                },
              },
            },
          ],
        },
      }),
    );

    await world.startWebhook({
      insecureRegistries: [reg, ref],
      probe: { namespace: "dev", image: image("keyed/unsigned") },
    });

    const admittedAs = async (name: string, path: string, host = reg) => {
      const r = await cluster.kubectl(["create", "-f", "-"], {
        stdin: podManifest(name, "dev", { containers: [`${host}/${path}:1`] }),
      });
      assert.equal(r.code, 0, r.stderr);
      return await kubectlOk(cluster, [
        "get",
        "pod",
        name,
        "-n",
        "dev",
        "-o",
        "jsonpath={.spec.containers[0].image}",
      ]);
    };
    const denial = async (path: string, host = reg) => {
      const r = await dryRunPod(cluster, "denied", "dev", `${host}/${path}:1`);
      assert.notEqual(r.code, 0, `${path} was admitted`);
      return r.stderr;
    };

    await t.step("keyed: a legacy .sig signature admits, pinned to the digest", async () => {
      assert.equal(await admittedAs("legacy", "keyed/legacy"), `${repo("keyed/legacy")}@${legacy}`);
    });
    await t.step("keyed: a v3 bundle (referrers fallback tag) admits, pinned", async () => {
      assert.equal(
        await admittedAs("bundle", "keyed/bundle"),
        `${repo("keyed/bundle")}@${bundled}`,
      );
    });
    await t.step(
      "keyless: a legacy signature and a bundle of an accepted identity admit",
      async () => {
        assert.equal(
          await admittedAs("keyless", "keyless/good"),
          `${repo("keyless/good")}@${keyless}`,
        );
        assert.equal(
          await admittedAs("keyless-bundle", "keyless/bundle"),
          `${repo("keyless/bundle")}@${keylessBundle}`,
        );
      },
    );
    await t.step("keyed: a v3 bundle found through the referrers API admits, pinned", async () => {
      assert.equal(
        await admittedAs("api-bundle", "api/bundle", ref),
        `${ref}/api/bundle@${apiBundle}`,
      );
    });
    await t.step("referrers API: a bundle whose subject is another digest is denied", async () => {
      assert.match(
        await denial("api/other-subject", ref),
        new RegExp(`its statement's subject is ${legacy}, not ${apiOther}`),
      );
    });
    await t.step("referrers API: a thousand referrers are refused without being read", async () => {
      assert.match(
        await denial("api/crowded", ref),
        /the referrers list was not used: .*larger than the limit of 131072 bytes/,
      );
    });
    await t.step("an unsigned image is denied", async () => {
      assert.match(
        await denial("keyed/unsigned"),
        /policy denied the request: A signature was required, but no signature exists/,
      );
    });
    await t.step("a signature for another digest is denied", async () => {
      assert.match(
        await denial("keyed/other-digest"),
        new RegExp(`it is a signature of ${legacy}, not of ${otherDigest}`),
      );
    });
    await t.step("a bundle whose subject is another digest is denied", async () => {
      assert.match(
        await denial("keyed/other-subject"),
        new RegExp(`its statement's subject is ${legacy}, not ${otherSubject}`),
      );
    });
    await t.step("signatures by a key not in the Secret are denied", async () => {
      assert.match(
        await denial("keyed/stranger"),
        /None of the signatures were accepted, reasons: .*the signature does not verify with the key of the requirement/,
      );
    });
    await t.step("a DSSE payload type other than in-toto is denied", async () => {
      assert.match(
        await denial("keyed/dsse-type"),
        /its DSSE payload type .* is not application\/vnd\.in-toto\+json/,
      );
    });
    await t.step("a referrers index that lists another image's signature is denied", async () => {
      assert.match(
        await denial("keyed/lying-index"),
        new RegExp(`its subject is ${legacy}, not the image`),
      );
    });
    await t.step("a thousand referrers are refused without being read", async () => {
      assert.match(
        await denial("keyed/crowded"),
        /the fallback index sha256-\w+ was not used: .*larger than the limit of 131072 bytes/,
      );
    });
    await t.step(
      "keyless: a public key in the certificate annotation is refused (GHSA-fx35-mq7g-6g98)",
      async () => {
        assert.match(
          await denial("keyless/ghsa"),
          /certificate annotation holds a PUBLIC KEY, not an X\.509 certificate/,
        );
      },
    );
    await t.step(
      "keyless: a certificate that does not chain to the trust root is denied",
      async () => {
        assert.match(
          await denial("keyless/rogue-ca"),
          /its certificate is not valid under the trust root/,
        );
      },
    );
    await t.step(
      "keyless: an expired certificate without timestamp evidence is denied",
      async () => {
        assert.match(await denial("keyless/no-timestamp"), /no verified signing time/);
      },
    );
    await t.step("keyless: a certificate of another identity is denied", async () => {
      assert.match(await denial("keyless/other-identity"), /which is not an accepted identity/);
    });
    await Deno.remove(home, { recursive: true });
  },
});
