/**
 * Legacy `.att` attestations keyless, and keyed with `tlog: required`, end to end with the real
 * cosign v3.1.3 on both sides, as far as it runs offline:
 *
 * - **Made by cosign**: `cosign attest --new-bundle-format=false` writes the `.att` layer (its
 *   DSSE envelope, the empty signature annotation, and for keyless the
 *   `dev.sigstore.cosign/certificate` and `chain` annotations). Keyless signing needs an OIDC
 *   token, Fulcio and Rekor, which cannot run here: the "keyless" attestation is cosign's
 *   `--key … --certificate … --certificate-chain …` (the certificate issued for cosign's key by
 *   the Fulcio-like test CA of tests/fakes/sigstore_instance.ts), which writes the same layer a
 *   Fulcio certificate would; and `--tlog-upload=false`, so the `dev.sigstore.cosign/bundle`
 *   annotation (the Rekor entry and its signed entry timestamp) is added by the test, the
 *   Rekor-like test log signing a `dsse` 0.0.1 entry (what cosign v3 logs) or an `intoto` 0.0.1
 *   entry (older cosign's) of cosign's exact envelope bytes.
 * - **Verified by cosign**: `cosign verify-attestation --trusted-root` (the test CA and log,
 *   `--insecure-ignore-sct`) verifies the certificate, identity, the entry's SET, key and envelope
 *   hash of each layer the webhook admits, and refuses the ones it denies for the log entry.
 * - **Verified by the webhook** (a real process called by the real kube-apiserver) under an
 *   `attestation` requirement: keyless (trustRootRef, identities) and keyed with `tlog: required`
 *   admit and pin; without a log entry, with an entry naming another certificate, with an entry
 *   of a log the trust root does not list, and keyless for another identity are denied with
 *   their reasons (cosign refusing each for the same reason). `toolkit image-security
 *   verify-attestation --trust-root` agrees on the keyless ones.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { createPublicKey } from "node:crypto";
import { e2eSkipReason, pushTestImage, startCosign } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { assertAdmittedPinned, assertDenied, CONTROLLER_NAMESPACE, kubectlOk } from "./_webhook.ts";
import { pushCosignSignatures } from "../fakes/cosign_registry.ts";
import {
  type AttestationEntryKind,
  attestationRekordBody,
  testFulcio,
  type TestRekor,
  testRekor,
  testTrustRoot,
} from "../fakes/sigstore_instance.ts";
import {
  COSIGN_BUNDLE_ANNOTATION,
  cosignAttestationTag,
} from "../../lib/signature/cosign_media_types.ts";

const SLSA = "https://slsa.dev/provenance/v1";
const ISSUER = "https://token.actions.githubusercontent.com";
const SUBJECT = "https://github.com/team/app/.github/workflows/release.yml@refs/tags/v1";
const OTHER = "https://github.com/someone/else/.github/workflows/release.yml@refs/tags/v1";

const PREDICATE = {
  buildDefinition: {
    buildType: "https://toolkit.dev/tekton/image-build/v1",
    externalParameters: { repository: "https://git.example/team/app" },
  },
  runDetails: { builder: { id: "https://toolkit.dev/tekton/ci" } },
};

/** The `.att` manifest's layer (blob and annotations) cosign wrote for `digest` in `repo`. */
async function attLayer(host: string, repo: string, digest: string) {
  const response = await fetch(
    `http://${host}/v2/${repo}/manifests/${cosignAttestationTag(digest)}`,
    { headers: { accept: "application/vnd.oci.image.manifest.v1+json" } },
  );
  assert.equal(response.status, 200);
  const manifest = await response.json();
  assert.equal(manifest.layers.length, 1);
  const layer = manifest.layers[0];
  const blob = await fetch(`http://${host}/v2/${repo}/blobs/${layer.digest}`);
  return {
    blob: new Uint8Array(await blob.arrayBuffer()),
    annotations: layer.annotations as Record<string, string>,
  };
}

Deno.test({
  name:
    "legacy .att attestations made by the real cosign verify keyless and with tlog: required, as cosign verifies them",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "docker-registry", "cosign", "skopeo"]) !==
    undefined,
  fn: async (t) => {
    await using world = await startWorld({
      images: false,
      registries: { distribution: {} },
    });
    const cluster = world.cluster;
    const host = world.registries.distribution!.host;
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-attestation-legacy-e2e-" });
    const fulcio = await testFulcio();
    const rekor = testRekor();
    const rootFile = `${dir}/trusted_root.json`;
    await Deno.writeTextFile(rootFile, testTrustRoot({ fulcio, rekor }));
    const predicate = `${dir}/predicate.json`;
    await Deno.writeTextFile(predicate, JSON.stringify(PREDICATE));
    const keys = await cosign.generateKeyPair(dir);
    const publicPem = await Deno.readTextFile(keys.publicKeyFile);
    const notBefore = new Date(Date.now() - 60_000);
    const certificateFor = async (subject: string) => {
      const certificate = await fulcio.issue({
        publicKey: createPublicKey(publicPem),
        subject,
        issuer: ISSUER,
        notBefore,
      });
      return certificate.toString("pem");
    };
    const certificates = {
      ours: await certificateFor(SUBJECT),
      other: await certificateFor(OTHER),
    };
    await Deno.writeTextFile(`${dir}/ours.pem`, certificates.ours);
    await Deno.writeTextFile(`${dir}/other.pem`, certificates.other);
    await Deno.writeTextFile(
      `${dir}/chain.pem`,
      fulcio.chain.map((c) => c.toString("pem")).join("\n"),
    );

    /** `cosign attest` of a new image (`--certificate` for the keyless ones), legacy format. */
    const attest = async (path: string, certificate?: "ours" | "other") => {
      const image = `${host}/${path}:1`;
      const digest = await pushTestImage(image, { content: path });
      const args = [
        "attest",
        "--key",
        keys.privateKeyFile,
        ...(certificate
          ? [
            "--certificate",
            `${dir}/${certificate}.pem`,
            "--certificate-chain",
            `${dir}/chain.pem`,
          ]
          : []),
        "--predicate",
        predicate,
        "--type",
        "slsaprovenance1",
        "--use-signing-config=false",
        "--tlog-upload=false",
        "--new-bundle-format=false",
        "--allow-insecure-registry",
        "-y",
        image,
      ];
      const r = await cosign.run(args, { password: keys.password });
      assert.equal(r.code, 0, `cosign attest ${image}: ${r.stderr}`);
      return { image, digest, path };
    };
    /** Re-writes cosign's `.att` layer with a Rekor entry of `kind` naming `verifier`. */
    const log = async (
      attested: { path: string; digest: string },
      options: { kind: AttestationEntryKind; verifier: string; log?: TestRekor },
    ) => {
      const layer = await attLayer(host, attested.path, attested.digest);
      const body = attestationRekordBody(options.kind, layer.blob, options.verifier);
      const entry = (options.log ?? rekor).entry(body, new Date());
      await pushCosignSignatures(host, attested.path, attested.digest, [{
        format: "legacy",
        payload: layer.blob,
        annotations: { ...layer.annotations, [COSIGN_BUNDLE_ANNOTATION]: JSON.stringify(entry) },
        where: "",
      }], { attestationType: SLSA });
    };
    const cosignVerify = (image: string, how: "keyless" | "keyed") =>
      cosign.run([
        "verify-attestation",
        "--type",
        "slsaprovenance1",
        "--trusted-root",
        rootFile,
        ...(how === "keyless"
          ? [
            "--certificate-identity",
            SUBJECT,
            "--certificate-oidc-issuer",
            ISSUER,
            "--insecure-ignore-sct",
          ]
          : ["--key", keys.publicKeyFile]),
        "--allow-insecure-registry",
        image,
      ]);

    const admitted: { name: string; image: string; digest: string; how: "keyless" | "keyed" }[] =
      [];
    const denied: {
      name: string;
      image: string;
      how: "keyless" | "keyed";
      message: RegExp;
      /** Why cosign refuses it. */
      cosignRefusal: RegExp;
    }[] = [];
    // Without the bundle annotation cosign searches Rekor for an entry (public-good's: offline,
    // the search fails; online, it finds none).
    const unlogged =
      /no matching attestations: (searching log query|signature not found in transparency log)/;
    for (const kind of ["dsse 0.0.1", "intoto 0.0.1"] as const) {
      const name = `keyless-${kind.replace(/[ .]/g, "")}`;
      const attested = await attest(`keyless/${name}`, "ours");
      await log(attested, { kind, verifier: certificates.ours });
      admitted.push({ name, ...attested, how: "keyless" });
    }
    const keyed = await attest("keyed/logged");
    await log(keyed, { kind: "dsse 0.0.1", verifier: publicPem });
    admitted.push({ name: "keyed-logged", ...keyed, how: "keyed" });

    denied.push({
      name: "keyless-unlogged",
      ...await attest("keyless/unlogged", "ours"),
      how: "keyless",
      message: /no verified signing time/,
      cosignRefusal: unlogged,
    });
    const otherEntry = await attest("keyless/other-entry", "ours");
    await log(otherEntry, { kind: "dsse 0.0.1", verifier: certificates.other });
    denied.push({
      name: "keyless-other-entry",
      ...otherEntry,
      how: "keyless",
      message: /names another key or certificate than the certificate it is verified with/,
      cosignRefusal: /error verifying bundle: comparing public key PEMs/,
    });
    const rogueLog = await attest("keyless/rogue-log", "ours");
    await log(rogueLog, { kind: "dsse 0.0.1", verifier: certificates.ours, log: testRekor() });
    denied.push({
      name: "keyless-rogue-log",
      ...rogueLog,
      how: "keyless",
      message: /signed timestamp does not verify with a log key of the trust root/,
      cosignRefusal: /rekor log public key not found for payload/,
    });
    const otherIdentity = await attest("keyless/other-identity", "other");
    await log(otherIdentity, { kind: "dsse 0.0.1", verifier: certificates.other });
    denied.push({
      name: "keyless-other-identity",
      ...otherIdentity,
      how: "keyless",
      message: /which is not an accepted identity/,
      cosignRefusal: /none of the expected identities matched what was in the certificate/,
    });
    denied.push({
      name: "keyed-unlogged",
      ...await attest("keyed/unlogged"),
      how: "keyed",
      message: /no transparency log entry that the trust root's logs sign/,
      cosignRefusal: unlogged,
    });

    await t.step("cosign verify-attestation verifies each layer the webhook admits", async () => {
      for (const { name, image, how } of admitted) {
        const r = await cosignVerify(image, how);
        assert.equal(r.code, 0, `${name}: cosign refused: ${r.stderr}`);
      }
    });
    await t.step("cosign verify-attestation refuses each layer the webhook denies", async () => {
      for (const { name, image, how, cosignRefusal } of denied) {
        const r = await cosignVerify(image, how);
        assert.notEqual(r.code, 0, `${name}: cosign verified it`);
        assert.match(r.stderr, cosignRefusal, name);
      }
    });

    await t.step(
      "toolkit verify-attestation --trust-root verifies the keyless layers, refuses the others",
      async () => {
        const verify = async (image: string) => {
          const io = bufferedIO({ cwd: dir });
          const status = await runCli([
            "image-security",
            "verify-attestation",
            image,
            "--type",
            "slsaprovenance1",
            "--trust-root",
            rootFile,
            "--certificate-identity",
            SUBJECT,
            "--certificate-oidc-issuer",
            ISSUER,
            "--tls-verify=false",
            "-o",
            "json",
          ], commandContext(io));
          return { status, out: io.out(), err: io.err() };
        };
        for (const { name, image, digest, how } of admitted) {
          if (how !== "keyless") continue;
          const r = await verify(image);
          assert.equal(r.status, 0, `${name}: ${r.err}`);
          const data = JSON.parse(r.out);
          assert.equal(data.digest, digest, name);
          assert.equal(data.attestations[0].format, "legacy", name);
        }
        for (const { name, image, how, message } of denied) {
          if (how !== "keyless") continue;
          const r = await verify(image);
          assert.equal(r.status, 1, name);
          assert.match(r.err, message, name);
        }
      },
    );

    await world.namespaces("dev");
    await world.keySecret("build-keys", publicPem);
    await kubectlOk(
      cluster,
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "sigstore-root", namespace: CONTROLLER_NAMESPACE },
        data: { "trusted_root.json": await Deno.readTextFile(rootFile) },
      }),
    );
    const requirement = { type: "attestation", predicateType: "slsaprovenance1" };
    await world.clusterPolicy([
      {
        name: `${host}/keyless/*`,
        policy: {
          simple: {
            requirements: [{
              ...requirement,
              keyless: {
                trustRootRef: { name: "sigstore-root" },
                identities: [{ issuer: ISSUER, subject: SUBJECT }],
              },
            }],
          },
        },
      },
      {
        name: `${host}/keyed/*`,
        policy: {
          simple: {
            requirements: [{
              ...requirement,
              keySecret: "build-keys",
              tlog: "required",
              trustRootRef: { name: "sigstore-root" },
            }],
          },
        },
      },
    ]);
    await world.startWebhook({
      insecureRegistries: [host],
      probe: { namespace: "dev", image: denied[0]!.image },
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
    await Deno.remove(dir, { recursive: true });
  },
});
