/**
 * The cosign part of the real environment: cosign v3.1.3 (built from its Go module) signs
 * images pushed with skopeo, keyed and without a transparency log, in both storage formats, into
 * the distribution registry (no referrers API: a v3 bundle goes under the `sha256-<hex>`
 * fallback tag) and into go-containerregistry's registry with the referrers API (a v3 bundle is
 * listed by `GET /v2/<name>/referrers/<digest>`); `cosign verify --key --insecure-ignore-tlog`
 * accepts each and refuses another key. It also pins down what each registry answers, which the
 * signing and verifying code of toolkit relies on.
 */
import assert from "node:assert/strict";
import {
  COSIGN_SIGNATURE_ANNOTATION,
  COSIGN_SIMPLESIGNING_MEDIA_TYPE,
  cosignSignatureTag,
  OCI_EMPTY_MEDIA_TYPE,
  referrersFallbackTag,
  SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
} from "../lib/signature/cosign_media_types.ts";
import {
  e2eSkipReason,
  pushTestImage,
  readFromRegistry,
  REGISTRY_KINDS,
  startCosign,
  startRegistryOfKind,
} from "./env/mod.ts";

const ignore =
  e2eSkipReason(["docker-registry", "referrers-registry", "cosign", "skopeo"]) !== undefined;

for (const kind of REGISTRY_KINDS) {
  Deno.test({
    name: `cosign signs and verifies both formats on the ${kind} registry`,
    ignore,
    fn: async (t) => {
      await using registry = await startRegistryOfKind(kind);
      await using cosign = await startCosign();
      const dir = await Deno.makeTempDir({ prefix: "toolkit-cosign-env-" });
      try {
        const keys = await cosign.generateKeyPair(dir);
        const other = await cosign.generateKeyPair(await Deno.makeTempDir({ dir }), "other");
        const repo = `${registry.host}/demo/app`;
        const bundleDigest = await pushTestImage(`${repo}:bundle`, { content: "bundle" });
        const legacyDigest = await pushTestImage(`${repo}:legacy`, { content: "legacy" });

        await t.step("a v3 bundle is stored as a referrer", async () => {
          await cosign.sign(`${repo}@${bundleDigest}`, {
            key: keys.privateKeyFile,
            password: keys.password,
            format: "bundle",
          });
          const referrers = await readFromRegistry(registry, `demo/app/referrers/${bundleDigest}`);
          const fallback = await readFromRegistry(
            registry,
            `demo/app/manifests/${referrersFallbackTag(bundleDigest)}`,
          );
          let index: {
            manifests: {
              digest: string;
              artifactType?: string;
              annotations?: Record<string, string>;
            }[];
          };
          if (kind === "referrers") {
            assert.equal(referrers.status, 200);
            assert.equal(referrers.contentType, "application/vnd.oci.image.index.v1+json");
            assert.equal(fallback.status, 404, "no fallback tag where the API exists");
            index = referrers.json;
            // This registry reports the config's media type as artifactType, and the
            // manifest's annotations.
            assert.equal(index.manifests[0]?.artifactType, OCI_EMPTY_MEDIA_TYPE);
            assert.equal(
              index.manifests[0]?.annotations?.["dev.sigstore.bundle.predicateType"],
              "https://sigstore.dev/cosign/sign/v1",
            );
          } else {
            assert.equal(referrers.status, 404, "the distribution registry has no referrers API");
            assert.equal(fallback.status, 200);
            index = fallback.json;
            // cosign's fallback index names the bundle type, without annotations.
            assert.equal(index.manifests[0]?.artifactType, SIGSTORE_BUNDLE_V03_MEDIA_TYPE);
          }
          assert.equal(index.manifests.length, 1);
          const manifest =
            (await readFromRegistry(registry, `demo/app/manifests/${index.manifests[0]!.digest}`))
              .json;
          assert.equal(manifest.artifactType, SIGSTORE_BUNDLE_V03_MEDIA_TYPE);
          assert.equal(manifest.config.mediaType, OCI_EMPTY_MEDIA_TYPE);
          assert.equal(manifest.subject.digest, bundleDigest);
          assert.equal(manifest.layers[0].mediaType, SIGSTORE_BUNDLE_V03_MEDIA_TYPE);
        });

        await t.step("a legacy signature is stored under the .sig tag", async () => {
          await cosign.sign(`${repo}@${legacyDigest}`, {
            key: keys.privateKeyFile,
            password: keys.password,
            format: "legacy",
          });
          const sig = await readFromRegistry(
            registry,
            `demo/app/manifests/${cosignSignatureTag(legacyDigest)}`,
          );
          assert.equal(sig.status, 200);
          const manifest = sig.json;
          assert.equal(manifest.layers[0].mediaType, COSIGN_SIMPLESIGNING_MEDIA_TYPE);
          assert.ok(manifest.layers[0].annotations[COSIGN_SIGNATURE_ANNOTATION]);
        });

        for (const [format, digest] of [["bundle", bundleDigest], ["legacy", legacyDigest]]) {
          await t.step(
            `cosign verify accepts the ${format} signature, not another key`,
            async () => {
              const ok = await cosign.verify(`${repo}@${digest}`, {
                publicKeyFile: keys.publicKeyFile,
              });
              assert.equal(ok.code, 0, ok.stderr);
              assert.match(ok.stdout, new RegExp(digest!));
              const bad = await cosign.verify(`${repo}@${digest}`, {
                publicKeyFile: other.publicKeyFile,
              });
              assert.notEqual(bad.code, 0);
            },
          );
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
