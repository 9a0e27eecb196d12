import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { e2eSkipReason, pushTestImage, startRegistry } from "../../tests/env/mod.ts";
import { createRegistryClient } from "../registry/client.ts";
import { OCI_MANIFEST } from "../registry/media_types.ts";
import { RegistryError } from "../registry/errors.ts";
import { pushManifest } from "./registry_push.ts";
import { appendCosignAttestation } from "./attestation_push.ts";
import { cosignAttestationTag, DSSE_ENVELOPE_MEDIA_TYPE } from "../signature/mod.ts";

const ignore = e2eSkipReason(["docker-registry", "skopeo"]) !== undefined;
const encoder = new TextEncoder();
const P1 = "https://slsa.dev/provenance/v1";

Deno.test("cosignAttestationTag() is sha256-<hex>.att", () => {
  assert.equal(cosignAttestationTag(`sha256:${"ab".repeat(32)}`), `sha256-${"ab".repeat(32)}.att`);
  assert.throws(() => cosignAttestationTag("latest"), TypeError);
});

Deno.test({
  name:
    "appendCosignAttestation() appends DSSE layers, keeps the others and skips the same envelope",
  ignore,
  fn: async () => {
    const registry = await startRegistry();
    const client = createRegistryClient({ insecureRegistries: [registry.host] });
    try {
      const digest = await pushTestImage(`${registry.host}/demo/app:1`);
      const repo = parseReference(`${registry.host}/demo/app`);
      const first = await appendCosignAttestation(client, repo, digest, encoder.encode('{"a":1}'), {
        predicateType: P1,
      });
      assert.deepEqual([first.tag, first.added, first.attestations], [
        cosignAttestationTag(digest),
        true,
        1,
      ]);
      const second = await appendCosignAttestation(
        client,
        repo,
        digest,
        encoder.encode('{"b":2}'),
        {
          predicateType: "https://example.com/other",
        },
      );
      assert.equal(second.attestations, 2);
      const again = await appendCosignAttestation(client, repo, digest, encoder.encode('{"b":2}'), {
        predicateType: "https://example.com/other",
      });
      assert.deepEqual([again.added, again.attestations, again.manifestDigest], [
        false,
        2,
        second.manifestDigest,
      ]);
      const manifest = await (await fetch(`${registry.url}/v2/demo/app/manifests/${first.tag}`, {
        headers: { accept: OCI_MANIFEST },
      })).json();
      assert.equal(manifest.mediaType, OCI_MANIFEST);
      assert.deepEqual(
        manifest.layers.map((l: { mediaType: string; annotations: Record<string, string> }) => [
          l.mediaType,
          l.annotations,
        ]),
        [
          [DSSE_ENVELOPE_MEDIA_TYPE, {
            "dev.cosignproject.cosign/signature": "",
            predicateType: P1,
          }],
          [DSSE_ENVELOPE_MEDIA_TYPE, {
            "dev.cosignproject.cosign/signature": "",
            predicateType: "https://example.com/other",
          }],
        ],
      );
      // isSameAttestation is asked about the layers of the same predicate type only, and an
      // answer yes writes nothing.
      const asked: string[] = [];
      const same = await appendCosignAttestation(client, repo, digest, encoder.encode('{"a":2}'), {
        predicateType: P1,
        isSameAttestation: (old) => {
          asked.push(new TextDecoder().decode(old));
          return Promise.resolve(true);
        },
      });
      assert.deepEqual(asked, ['{"a":1}']);
      assert.deepEqual([same.added, same.attestations], [false, 2]);
      const differs = await appendCosignAttestation(
        client,
        repo,
        digest,
        encoder.encode('{"a":2}'),
        { predicateType: P1, isSameAttestation: () => Promise.resolve(false) },
      );
      assert.deepEqual([differs.added, differs.attestations], [true, 3]);
      // A tag holding something else is refused, not overwritten.
      const index = encoder.encode(JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.index.v1+json",
        manifests: [],
      }));
      const other = `sha256:${"cd".repeat(32)}`;
      await pushManifest(client, repo, cosignAttestationTag(other), {
        bytes: index,
        mediaType: "application/vnd.oci.image.index.v1+json",
      });
      await assert.rejects(
        () =>
          appendCosignAttestation(client, repo, other, encoder.encode("{}"), { predicateType: P1 }),
        (e: unknown) =>
          e instanceof RegistryError &&
          /something else than an attestation manifest/.test(e.message),
      );
    } finally {
      client.close();
      await registry.stop();
    }
  },
});
