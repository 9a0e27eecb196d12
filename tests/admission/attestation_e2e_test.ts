/**
 * Attestations made by the real cosign v3.1.3 (`cosign attest --key`, keyed, no transparency
 * log, in both storage formats: `--new-bundle-format=false` writes the `sha256-<hex>.att` tag,
 * the default a sigstore bundle referrer, or the `sha256-<hex>` fallback tag on the distribution
 * registry) satisfy an `attestation` requirement of the webhook (a real process called by the
 * real kube-apiserver): the image is admitted and pinned. Each failure is denied with its
 * message: a condition that is false, an attestation of another predicate type, one signed by
 * another key, a tampered statement; and a CEL condition over the cost limit makes the policy
 * unusable when it is read, naming the condition. An attestation signed by toolkit's OpenPGP key
 * (gpg's detached signature over the envelope's PAE, which cosign cannot verify) is admitted under
 * the same requirement, its key Secret holding both keys. `toolkit image-security verify-attestation`
 * verifies what cosign attested, in each format.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { e2eSkipReason, pushTestImage, REGISTRY_KINDS, startCosign, startGpg } from "../env/mod.ts";
import type { TestCosign } from "../env/cosign.ts";
import { startWorld } from "./_world.ts";
import { assertAdmittedPinned, assertDenied, dryRunPod } from "./_webhook.ts";
import { pushCosignSignatures } from "../fakes/cosign_registry.ts";
import { cosignAttestationTag } from "../../lib/signature/cosign_media_types.ts";
import { decodeBase64, encodeBase64 } from "../../lib/base64.ts";
import { dssePae } from "../../lib/signature/mod.ts";

const SLSA = "https://slsa.dev/provenance/v1";
const FORMATS = ["legacy", "bundle"] as const;

function provenance(repository: string) {
  return {
    buildDefinition: {
      buildType: "https://toolkit.dev/tekton/image-build/v1",
      externalParameters: { repository, revision: "main", pipeline: "build", task: "sign" },
      resolvedDependencies: [{ uri: `git+${repository}`, digest: { sha1: "a".repeat(40) } }],
    },
    runDetails: {
      builder: { id: "https://toolkit.dev/tekton/ci" },
      metadata: { invocationId: "uid-1" },
    },
  };
}

async function attest(
  cosign: TestCosign,
  image: string,
  options: {
    key: string;
    password: string;
    predicate: string;
    type: string;
    format: "legacy" | "bundle";
  },
) {
  const args = [
    "attest",
    "--key",
    options.key,
    "--predicate",
    options.predicate,
    "--type",
    options.type,
    "--use-signing-config=false",
    "--tlog-upload=false",
    "--allow-insecure-registry",
    "-y",
  ];
  if (options.format === "legacy") args.push("--new-bundle-format=false");
  const r = await cosign.run([...args, image], { password: options.password });
  assert.equal(r.code, 0, `cosign attest ${image}: ${r.stderr}`);
}

/** The `.att` manifest's first layer blob (the envelope cosign wrote) of `digest` in `repo`. */
async function attEnvelope(host: string, repo: string, digest: string): Promise<Uint8Array> {
  const manifest = await fetch(
    `http://${host}/v2/${repo}/manifests/${cosignAttestationTag(digest)}`,
    {
      headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
    },
  );
  assert.equal(manifest.status, 200);
  const layer = (await manifest.json()).layers[0];
  const blob = await fetch(`http://${host}/v2/${repo}/blobs/${layer.digest}`);
  return new Uint8Array(await blob.arrayBuffer());
}

Deno.test({
  name: "attestations made by the real cosign satisfy an attestation policy; each failure denies",
  ignore: e2eSkipReason([
    "kube-apiserver",
    "etcd",
    "docker-registry",
    "referrers-registry",
    "cosign",
    "skopeo",
  ]) !== undefined,
  fn: async (t) => {
    await using world = await startWorld({
      images: false,
      registries: { distribution: {}, referrers: { kind: "referrers" } },
    });
    const cluster = world.cluster;
    const registries = {
      distribution: world.registries.distribution!,
      referrers: world.registries.referrers!,
    };
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-attestation-e2e-" });
    await Deno.mkdir(`${dir}/builder`);
    await Deno.mkdir(`${dir}/stranger`);
    const builder = await cosign.generateKeyPair(`${dir}/builder`);
    const stranger = await cosign.generateKeyPair(`${dir}/stranger`);
    const ours = `${dir}/ours.json`;
    const theirs = `${dir}/theirs.json`;
    await Deno.writeTextFile(ours, JSON.stringify(provenance("https://git.example/team/app")));
    await Deno.writeTextFile(theirs, JSON.stringify(provenance("https://git.example/evil/app")));

    // Attested by the builder's key from our repository, in each format on each registry.
    const admitted: { name: string; image: string; digest: string }[] = [];
    for (const kind of REGISTRY_KINDS) {
      const host = registries[kind].host;
      for (const format of FORMATS) {
        const image = `${host}/attested/${format}:1`;
        const digest = await pushTestImage(image, { content: `${kind} ${format}` });
        await attest(cosign, image, {
          key: builder.privateKeyFile,
          password: builder.password,
          predicate: ours,
          type: "slsaprovenance1",
          format,
        });
        admitted.push({ name: `${kind}-${format}`, image, digest });
      }
    }
    // The failures, on the distribution registry.
    const host = registries.distribution.host;
    const denied: { name: string; image: string; message: RegExp }[] = [];
    const other = `${host}/attested/other-repository:1`;
    await pushTestImage(other, { content: "other repository" });
    await attest(cosign, other, {
      key: builder.privateKeyFile,
      password: builder.password,
      predicate: theirs,
      type: "slsaprovenance1",
      format: "bundle",
    });
    denied.push({
      name: "other-repository",
      image: other,
      message:
        /attestation https:\/\/slsa\.dev\/provenance\/v1: condition "from-our-repo" is false: built from a repository other than team\/app/,
    });
    const otherType = `${host}/attested/other-type:1`;
    await pushTestImage(otherType, { content: "other type" });
    await attest(cosign, otherType, {
      key: builder.privateKeyFile,
      password: builder.password,
      predicate: ours,
      type: "https://example.com/other-predicate/v1",
      format: "legacy",
    });
    denied.push({
      name: "other-type",
      image: otherType,
      message:
        /attestation https:\/\/slsa\.dev\/provenance\/v1: no attestation of type https:\/\/slsa\.dev\/provenance\/v1 exists/,
    });
    const otherKey = `${host}/attested/other-key:1`;
    await pushTestImage(otherKey, { content: "other key" });
    await attest(cosign, otherKey, {
      key: stranger.privateKeyFile,
      password: stranger.password,
      predicate: ours,
      type: "slsaprovenance1",
      format: "legacy",
    });
    denied.push({
      name: "other-key",
      image: otherKey,
      message:
        /attestation https:\/\/slsa\.dev\/provenance\/v1: no attestation of type https:\/\/slsa\.dev\/provenance\/v1 is signed by a key of Secret toolkit-system\/build-keys \(layer sha256:\w+ of sha256-\w+\.att: the envelope's signature does not verify with the PEM key of the requirement\)/,
    });
    // Toolkit's OpenPGP attestation (the format cosign cannot verify): a DSSE envelope whose
    // signature is gpg's binary detached signature over the PAE, in the .att tag.
    await using gpg = await startGpg();
    const gpgKey = await gpg.generateKey({ type: "ed25519", name: "toolkit builder" });
    const gpgImage = `${host}/attested/gpg:1`;
    const gpgDigest = await pushTestImage(gpgImage, { content: "gpg" });
    const gpgStatement = new TextEncoder().encode(JSON.stringify({
      _type: "https://in-toto.io/Statement/v1",
      subject: [{ name: `${host}/attested/gpg`, digest: { sha256: gpgDigest.slice(7) } }],
      predicateType: SLSA,
      predicate: provenance("https://git.example/team/app"),
    }));
    const pae = dssePae("application/vnd.in-toto+json", gpgStatement);
    const sigFile = `${dir}/gpg.sig`;
    const signed = await gpg.run("gpg", [
      "--batch",
      "--yes",
      "--local-user",
      gpgKey.fingerprint,
      "--detach-sign",
      "--output",
      sigFile,
    ], { stdin: pae });
    assert.equal(signed.code, 0, signed.stderr);
    await pushCosignSignatures(host, "attested/gpg", gpgDigest, [{
      format: "legacy",
      payload: new TextEncoder().encode(JSON.stringify({
        payloadType: "application/vnd.in-toto+json",
        payload: encodeBase64(gpgStatement),
        signatures: [{
          keyid: gpgKey.fingerprint,
          sig: encodeBase64(await Deno.readFile(sigFile)),
        }],
      })),
      annotations: { "dev.cosignproject.cosign/signature": "" },
      where: "",
    }], { attestationType: SLSA });
    const gpgPublic = `${dir}/gpg.pub.asc`;
    await Deno.writeTextFile(gpgPublic, gpgKey.publicKeyArmored);

    // Tampered: the builder's envelope of theirs, its statement replaced by ours.
    const tampered = `${host}/attested/tampered:1`;
    const tamperedDigest = await pushTestImage(tampered, { content: "tampered" });
    await attest(cosign, tampered, {
      key: builder.privateKeyFile,
      password: builder.password,
      predicate: theirs,
      type: "slsaprovenance1",
      format: "legacy",
    });
    const envelope = JSON.parse(
      new TextDecoder().decode(await attEnvelope(host, "attested/tampered", tamperedDigest)),
    );
    const statement = JSON.parse(new TextDecoder().decode(decodeBase64(envelope.payload)));
    assert.equal(statement.predicateType, SLSA, "cosign's slsaprovenance1");
    statement.predicate = provenance("https://git.example/team/app");
    envelope.payload = encodeBase64(new TextEncoder().encode(JSON.stringify(statement)));
    await pushCosignSignatures(host, "attested/tampered", tamperedDigest, [{
      format: "legacy",
      payload: new TextEncoder().encode(JSON.stringify(envelope)),
      annotations: { "dev.cosignproject.cosign/signature": "" },
      where: "",
    }], { attestationType: SLSA });
    denied.push({
      name: "tampered",
      image: tampered,
      message:
        /no attestation of type https:\/\/slsa\.dev\/provenance\/v1 is signed by a key of Secret toolkit-system\/build-keys \(layer sha256:\w+ of sha256-\w+\.att: the envelope's signature does not verify/,
    });

    await t.step(
      "toolkit verify-attestation --key cosign.pub verifies what cosign attested, in each format",
      async () => {
        for (const { name, image, digest } of admitted) {
          const io = bufferedIO({ cwd: dir });
          const status = await runCli([
            "image-security",
            "verify-attestation",
            image,
            "--type",
            "slsaprovenance1",
            "--key",
            builder.publicKeyFile,
            "--tls-verify=false",
            "-o",
            "json",
          ], commandContext(io));
          assert.equal(status, 0, `${name}: ${io.err()}`);
          const data = JSON.parse(io.out());
          assert.equal(data.digest, digest, name);
          assert.equal(data.attestations[0].format, name.endsWith("legacy") ? "legacy" : "bundle");
          assert.equal(
            data.attestations[0].statement.predicate.buildDefinition.externalParameters.repository,
            "https://git.example/team/app",
          );
        }
      },
    );

    await t.step(
      "toolkit verify-attestation --key with the OpenPGP key verifies gpg's",
      async () => {
        const io = bufferedIO({ cwd: dir });
        const status = await runCli([
          "image-security",
          "verify-attestation",
          gpgImage,
          "--type",
          SLSA,
          "--key",
          gpgPublic,
          "--tls-verify=false",
          "-o",
          "json",
        ], commandContext(io));
        assert.equal(status, 0, io.err());
        assert.equal(JSON.parse(io.out()).attestations[0].signedBy, gpgKey.fingerprint);
      },
    );
    admitted.push({ name: "distribution-gpg", image: gpgImage, digest: gpgDigest });

    await world.namespaces("dev");
    // One Secret of both keys: cosign's PEM key and toolkit's OpenPGP key.
    await world.keySecret(
      "build-keys",
      `${await Deno.readTextFile(builder.publicKeyFile)}\n${gpgKey.publicKeyArmored}`,
    );
    await world.clusterPolicy(REGISTRY_KINDS.map((kind) => ({
      name: `${registries[kind].host}/attested/*`,
      policy: {
        simple: {
          requirements: [{
            type: "attestation",
            predicateType: "slsaprovenance1",
            keySecret: "build-keys",
            conditions: [
              {
                name: "from-our-repo",
                expression:
                  'predicate.buildDefinition.externalParameters.repository == "https://git.example/team/app"',
                message: "built from a repository other than team/app",
              },
              {
                name: "by-our-builder",
                expression: 'predicate.runDetails.builder.id.startsWith("https://toolkit.dev/")',
              },
            ],
          }],
        },
      },
    })));
    await world.startWebhook({
      insecureRegistries: [registries.distribution.host, registries.referrers.host],
      probe: { namespace: "dev", image: other },
    });

    for (const { name, image, digest } of admitted) {
      await t.step(
        `${name}: admitted and pinned`,
        () => assertAdmittedPinned(cluster, name, "dev", image, digest),
      );
    }
    for (const { name, image, message } of denied) {
      await t.step(
        `${name}: denied`,
        () => assertDenied(cluster, name, "dev", image, message),
      );
    }

    await t.step(
      "the API server refuses an attestation requirement the CRD's rules forbid",
      async () => {
        const refused = await cluster.kubectl(["apply", "-f", "-"], {
          stdin: JSON.stringify({
            apiVersion: "toolkit.dev/v1",
            kind: "ClusterImagePolicy",
            metadata: { name: "incomplete" },
            spec: {
              repositories: [{
                name: `${host}/incomplete/*`,
                policy: {
                  simple: {
                    requirements: [
                      { type: "attestation", keySecret: "build-keys" },
                      {
                        type: "sigstoreSigned",
                        keySecret: "build-keys",
                        conditions: [{ name: "c", expression: "true" }],
                      },
                    ],
                  },
                },
              }],
            },
          }),
        });
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /predicateType is required for attestation/);
        assert.match(refused.stderr, /predicateType and conditions are for attestation/);
      },
    );

    await t.step(
      "a CEL condition over the cost limit is refused when the policy is read",
      async () => {
        await world.apply(JSON.stringify({
          apiVersion: "toolkit.dev/v1",
          kind: "ClusterImagePolicy",
          metadata: { name: "costly" },
          spec: {
            repositories: [{
              name: `${host}/costly/*`,
              policy: {
                simple: {
                  requirements: [{
                    type: "attestation",
                    predicateType: "slsaprovenance1",
                    keySecret: "build-keys",
                    conditions: [{
                      name: "quadratic",
                      expression:
                        "predicate.buildDefinition.resolvedDependencies.all(a, predicate.buildDefinition.resolvedDependencies.all(b, a == b))",
                    }],
                  }],
                },
              },
            }],
          },
        }));
        const image = admitted.find((a) => a.name === "distribution-legacy")!.image;
        // Until the webhook has read the policy, the image is still admitted: wait for the refusal.
        let last = "";
        for (let i = 0; i < 100; i++) {
          const r = await dryRunPod(cluster, `costly-${i}`, "dev", image);
          last = r.stderr;
          if (r.code !== 0) break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        assert.match(
          last,
          /ClusterImagePolicy "costly": spec\.repositories\[0\]\.policy\.simple\.requirements\[0\]\.conditions\[0\]\.expression: Cannot use the CEL condition "quadratic": its estimated cost \d+ is more than the limit 10000000/,
        );
      },
    );
    await Deno.remove(dir, { recursive: true });
  },
});
