import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { commandContext } from "../context.ts";
import { bufferedIO } from "../io.ts";
import { decodeBase64 } from "../../lib/base64.ts";
import { generateCosignKeyPair, readCosignPrivateKey } from "../../lib/signing/cosign_keys.ts";
import { generateKeyPair } from "../../lib/signing/mod.ts";
import { dssePae } from "../../lib/signature/mod.ts";
import { e2eSkipReason, pushTestImage, startRegistry } from "../../tests/env/mod.ts";
import { pushMultiPlatformImage } from "../../tests/env/multiarch.ts";

const COMMIT = "0123456789abcdef0123456789abcdef01234567";

async function attest(
  cwd: string,
  image: string,
  args: string[],
  env: Record<string, string> = {},
) {
  const io = bufferedIO({ cwd, env });
  const status = await runCli(
    ["image-security", "attest", image, "--tls-verify=false", ...args],
    commandContext(io),
  );
  return { status, out: io.out(), err: io.err() };
}

/** A directory with a cosign key (password "pw"), an OpenPGP key and predicates. */
async function keys() {
  const dir = await Deno.makeTempDir();
  const cosign = await generateCosignKeyPair({ password: "pw" });
  await Deno.writeTextFile(`${dir}/cosign.key`, cosign.privateKeyPem);
  const gpg = await generateKeyPair({ name: "CI", type: "ed25519" });
  await Deno.writeTextFile(`${dir}/ci.key.asc`, gpg.privateKeyArmored);
  await Deno.writeTextFile(`${dir}/p.json`, '{"builder":"me"}');
  await Deno.writeTextFile(`${dir}/list.json`, "[1,2]");
  return {
    dir,
    cosign,
    gpg,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

const BUILD = [
  "--build-repository",
  "https://git.example/team/app",
  "--build-revision",
  "main",
  "--build-commit",
  COMMIT,
  "--build-pipeline",
  "app-build",
  "--build-task",
  "build",
  "--build-invocation-id",
  "8f1c2e1a-0000-4000-8000-000000000001",
];

Deno.test("attest refuses what cannot be attested, before the registry is reached", async () => {
  await using k = await keys();
  const env = { COSIGN_PASSWORD: "pw" };
  const image = "127.0.0.1:1/demo/app:1";
  const cases: [string[], RegExp][] = [
    [
      ["--key", "ci.key.asc", "--predicate", "p.json", "--format", "bundle"],
      /sigstore bundles carry X\.509 or PEM key material; an OpenPGP attestation is stored in the \.att tag/,
    ],
    [["--key", "cosign.key"], /Missing the predicate/],
    [
      ["--key", "cosign.key", "--predicate", "p.json", "--type", "slsa"],
      /Cannot use --type "slsa"/,
    ],
    [
      ["--key", "cosign.key", "--predicate", "list.json", "--type", "slsaprovenance1"],
      /not a JSON object/,
    ],
    [["--key", "cosign.key", "--predicate", "p.json", ...BUILD], /Give one predicate/],
    [["--key", "cosign.key", ...BUILD, "--type", "spdx"], /--type must be slsaprovenance1/],
    [["--key", "cosign.key", ...BUILD], /Missing the builder id/],
    [
      [
        "--key",
        "cosign.key",
        ...BUILD.slice(0, 5),
        "main",
        ...BUILD.slice(6),
        "--builder-id",
        "https://b.example/x",
      ],
      /the commit "main" is not a full commit hash/,
    ],
    [
      ["--key", "cosign.key", ...BUILD, "--build-started-on", "yesterday"],
      /expected an RFC 3339 time/,
    ],
    [
      ["--key", "cosign.key", "--predicate", "p.json", "--digest", "latest"],
      /Cannot use --digest "latest"/,
    ],
  ];
  for (const [args, message] of cases) {
    const r = await attest(k.dir, image, args, env);
    assert.equal(r.status, 2, `${args.join(" ")}\n${r.err}`);
    assert.match(r.err, message, args.join(" "));
    assert.equal(r.out, "");
  }
});

Deno.test("attest with empty build parameters writes nothing, unless --build-required", async () => {
  await using k = await keys();
  const empty = BUILD.map((arg, i) => i % 2 === 1 ? "" : arg);
  const alone = await attest(k.dir, "127.0.0.1:1/demo/app:1", ["--key", "cosign.key", ...empty]);
  assert.equal(alone.status, 0, alone.err);
  assert.match(alone.err, /No provenance written: the run passed no build parameters/);
  assert.equal(alone.out, "");
  const required = await attest(k.dir, "127.0.0.1:1/demo/app:1", [
    "--key",
    "cosign.key",
    ...empty,
    "--build-required",
  ]);
  assert.equal(required.status, 2, required.err);
  assert.match(
    required.err,
    /Cannot write the provenance: repository, revision, commit, pipeline, task, invocationId not given/,
  );
});

const ignore = e2eSkipReason(["docker-registry", "skopeo"]) !== undefined;

Deno.test({
  name: "attest stores DSSE attestations in the .att tag and as a bundle, signed over the PAE",
  ignore,
  fn: async () => {
    await using k = await keys();
    await using registry = await startRegistry();
    const image = `${registry.host}/demo/app:1`;
    const digest = await pushTestImage(image);
    const env = { COSIGN_PASSWORD: "pw" };
    const signer = await readCosignPrivateKey(k.cosign.privateKeyPem, "pw");
    const manifest = async (tag: string) =>
      await (await fetch(`${registry.url}/v2/demo/app/manifests/${tag}`, {
        headers: {
          accept:
            "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json",
        },
      })).json();
    const blob = async (d: string) =>
      await (await fetch(`${registry.url}/v2/demo/app/blobs/${d}`)).json();

    // The pipeline's provenance, legacy .att with the cosign key.
    const legacy = await attest(k.dir, image, [
      "--key",
      "cosign.key",
      "--format",
      "cosign",
      ...BUILD,
      "--builder-id",
      "https://toolkit.dev/tekton/tools",
      "--build-started-on",
      "2026-01-02T03:04:05Z",
      "--store-file",
      "store.txt",
      "-o",
      "json",
    ], env);
    assert.equal(legacy.status, 0, legacy.err);
    const report = JSON.parse(legacy.out);
    // The Tekton result --store-file: where the attestation went, as the output says.
    assert.equal(await Deno.readTextFile(`${k.dir}/store.txt`), report.store);
    assert.equal(report.digest, digest);
    assert.equal(report.predicateType, "https://slsa.dev/provenance/v1");
    assert.equal(report.format, "cosign");
    assert.equal(report.transparencyLog, false);
    const tag = `sha256-${digest.slice(7)}.att`;
    assert.equal(report.tag, tag);
    const att = await manifest(tag);
    assert.equal(att.layers.length, 1);
    assert.equal(att.layers[0].mediaType, "application/vnd.dsse.envelope.v1+json");
    assert.equal(att.layers[0].annotations.predicateType, "https://slsa.dev/provenance/v1");
    const envelope = await blob(att.layers[0].digest);
    const payload = decodeBase64(envelope.payload);
    assert.ok(
      await signer.verify(
        dssePae(envelope.payloadType, payload),
        decodeBase64(envelope.signatures[0].sig),
      ),
    );
    const statement = JSON.parse(new TextDecoder().decode(payload));
    assert.deepEqual(statement.subject, [{
      name: `${registry.host}/demo/app`,
      digest: { sha256: digest.slice(7) },
    }]);
    assert.equal(
      statement.predicate.buildDefinition.buildType,
      "https://toolkit.dev/tekton/image-build/v1",
    );
    assert.deepEqual(statement.predicate.runDetails.metadata, {
      invocationId: "8f1c2e1a-0000-4000-8000-000000000001",
      startedOn: "2026-01-02T03:04:05Z",
      finishedOn: statement.predicate.runDetails.metadata.finishedOn,
    });

    // The OpenPGP key: one more layer of the same tag, keyid the fingerprint.
    const openPgp = await attest(k.dir, image, [
      "--key",
      "ci.key.asc",
      "--predicate",
      "p.json",
      "--type",
      "https://example.com/review/v1",
    ]);
    assert.equal(openPgp.status, 0, openPgp.err);
    assert.match(openPgp.out, /with OpenPGP key [0-9A-F]{40} \(legacy \.att/);
    const both = await manifest(tag);
    assert.equal(both.layers.length, 2);
    const second = await blob(both.layers[1].digest);
    assert.match(second.signatures[0].keyid, /^[0-9A-F]{40}$/);

    // A bundle, listed by the fallback tag of a registry without the referrers API.
    const bundled = await attest(k.dir, `${registry.host}/demo/app@${digest}`, [
      "--key",
      "cosign.key",
      "--predicate",
      "p.json",
      "--type",
      "slsaprovenance1",
      "-o",
      "json",
    ], env);
    assert.equal(bundled.status, 0, bundled.err);
    const pushed = JSON.parse(bundled.out);
    assert.equal(pushed.listedBy, "fallback-tag");
    const referrer = await manifest(pushed.referrer);
    assert.equal(referrer.artifactType, "application/vnd.dev.sigstore.bundle.v0.3+json");
    assert.equal(
      referrer.annotations["dev.sigstore.bundle.predicateType"],
      "https://slsa.dev/provenance/v1",
    );
    assert.equal(referrer.annotations["dev.sigstore.bundle.content"], "dsse-envelope");
    assert.equal(referrer.subject.digest, digest);

    // A digest the tag does not serve (a build result naming another image of the repository)
    // is refused: what is attested is what the registry holds under the tag.
    const other = await pushTestImage(`${registry.host}/demo/app:2`, { content: "another\n" });
    const wrong = await attest(
      k.dir,
      image,
      ["--key", "cosign.key", "--predicate", "p.json", "--digest", other],
      env,
    );
    assert.equal(wrong.status, 1, wrong.err);
    assert.match(
      wrong.err,
      new RegExp(`the registry serves ${digest} under that tag, not the digest given`),
    );
  },
});

Deno.test({
  name:
    "attest --recursive attests an index and each platform, subject its digest, nothing twice in .att",
  ignore: e2eSkipReason(["docker-registry", "skopeo", "crane"]) !== undefined,
  fn: async (t) => {
    await using k = await keys();
    await using registry = await startRegistry();
    const env = { COSIGN_PASSWORD: "pw" };
    const signer = await readCosignPrivateKey(k.cosign.privateKeyPem, "pw");
    const json = async (path: string) =>
      await (await fetch(`${registry.url}/v2/${path}`, {
        headers: {
          accept:
            "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json",
        },
      })).json();
    const recursive = async (image: string, key: string, format: string, more: string[] = []) => {
      const r = await attest(k.dir, image, [
        "--key",
        key,
        "--format",
        format,
        "--recursive",
        "-o",
        "json",
        ...more,
      ], env);
      assert.equal(r.status, 0, r.err);
      return { data: JSON.parse(r.out), err: r.err };
    };
    const provenance = [...BUILD, "--builder-id", "https://toolkit.dev/tekton/tools"];

    await t.step("an image that is no index is attested alone, and says so", async () => {
      const image = `${registry.host}/team/single:1`;
      const digest = await pushTestImage(image, { content: "single" });
      const { data, err } = await recursive(image, "cosign.key", "cosign", provenance);
      assert.equal(data.digest, digest);
      assert.deepEqual(data.platforms, []);
      assert.match(
        err,
        /--recursive: sha256:\w+ is not an index \(.*\): the image alone is attested/,
      );
    });

    for (
      const [format, key] of [["cosign", "cosign.key"], ["cosign", "ci.key.asc"], [
        "bundle",
        "cosign.key",
      ]] as const
    ) {
      await t.step(`${format} with ${key}: every platform its own statement`, async () => {
        const name = `team/multi-${format}-${key.replaceAll(".", "-")}`;
        const multi = await pushMultiPlatformImage(`${registry.host}/${name}:1`, {
          content: `${format} ${key}`,
        });
        const first = await recursive(multi.image, key, format, [
          ...provenance,
          "--build-finished-on",
          "2026-01-02T03:04:05Z",
        ]);
        assert.equal(first.data.digest, multi.index);
        assert.match(first.err, /is an index of 2 platform manifests/);
        assert.deepEqual(
          first.data.platforms.map((p: { platform: string; digest: string }) => [
            p.platform,
            p.digest,
          ]),
          multi.platforms.map((p) => [p.platform, p.digest]),
        );
        const predicates: unknown[] = [];
        for (const digest of [multi.index, ...multi.platforms.map((p) => p.digest)]) {
          // Where each attestation is: the digest's .att tag, or a referrer under its fallback tag.
          const envelope = format === "cosign"
            ? await (async () => {
              const att = await json(`${name}/manifests/sha256-${digest.slice(7)}.att`);
              assert.equal(att.layers.length, 1);
              return await json(`${name}/blobs/${att.layers[0].digest}`);
            })()
            : await (async () => {
              const index = await json(`${name}/manifests/sha256-${digest.slice(7)}`);
              assert.equal(index.manifests.length, 1);
              const referrer = await json(`${name}/manifests/${index.manifests[0].digest}`);
              assert.equal(referrer.subject.digest, digest);
              const bundle = await json(`${name}/blobs/${referrer.layers[0].digest}`);
              return bundle.dsseEnvelope;
            })();
          const payload = decodeBase64(envelope.payload);
          if (key === "cosign.key") {
            assert.ok(
              await signer.verify(
                dssePae(envelope.payloadType, payload),
                decodeBase64(envelope.signatures[0].sig),
              ),
            );
          } else {
            assert.match(envelope.signatures[0].keyid, /^[0-9A-F]{40}$/);
          }
          const statement = JSON.parse(new TextDecoder().decode(payload));
          assert.deepEqual(statement.subject, [{
            name: `${registry.host}/${name}`,
            digest: { sha256: digest.slice(7) },
          }]);
          predicates.push(statement.predicate);
        }
        // The provenance of a platform says the same build as the index's.
        assert.deepEqual(predicates[1], predicates[0]);
        assert.deepEqual(predicates[2], predicates[0]);

        const again = await recursive(multi.image, key, format, [
          ...provenance,
          "--build-finished-on",
          "2026-01-02T03:04:05Z",
        ]);
        if (format === "cosign") {
          // The same statement by the same key is not added twice (its signature differs).
          assert.equal(again.data.added, false, again.err);
          assert.ok(again.data.platforms.every((p: { added?: boolean }) => p.added === false));
          assert.match(again.err, /holds this key's attestation of this statement already/);
        }
      });
    }
  },
});
