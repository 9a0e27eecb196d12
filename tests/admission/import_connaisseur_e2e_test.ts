/**
 * Connaisseur values imported (lib/import/connaisseur.ts) and applied to the real API server give
 * the verdicts Connaisseur documents, through the real webhook: a cosign validator's rule admits
 * an image the real cosign signed with its key and denies an unsigned one, a static deny
 * validator denies, and `detectionMode` admits what it would deny, with a warning; a keyless
 * validator of a private sigstore instance, its Fulcio certificate and Rekor key given as
 * `host.fulcioCert`/`host.rekorPubkey` (a CA and log made by tests/fakes/sigstore_instance.ts),
 * admits an image signed by its identity under the trust-root ConfigMap the import made of them,
 * and denies one signed by another identity.
 */
import assert from "node:assert/strict";
import { importDocuments } from "../../lib/import/mod.ts";
import { e2eSkipReason, pushTestImage, startCosign } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { CONTROLLER_NAMESPACE, dryRunPod } from "./_webhook.ts";
import { pushCosignSignatures } from "../fakes/cosign_registry.ts";
import {
  cosignPayload,
  legacySignature,
  testFulcio,
  testKeyPair,
  testRekor,
} from "../fakes/sigstore_instance.ts";

const ISSUER = "https://oidc.private.example";
const SUBJECT = "release@private.example";

Deno.test({
  name: "imported Connaisseur values admit and deny as Connaisseur documents",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "docker-registry", "cosign", "skopeo"]) !==
    undefined,
  fn: async (t) => {
    await using world = await startWorld({ images: false, registries: { distribution: {} } });
    const host = world.registries.distribution!.host;
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-connaisseur-e2e-" });
    const signer = await cosign.generateKeyPair(dir);

    const signed = `${host}/team/app:1`;
    await pushTestImage(signed, { content: "signed by the team" });
    // Connaisseur (cosign v2) reads the legacy `.sig` signatures.
    await cosign.sign(signed, {
      key: signer.privateKeyFile,
      password: signer.password,
      format: "legacy",
    });
    const unsigned = `${host}/team/unsigned:1`;
    await pushTestImage(unsigned, { content: "unsigned" });
    const blocked = `${host}/blocked/app:1`;
    await pushTestImage(blocked, { content: "blocked" });
    const trial = `${host}/trial/app:1`;
    await pushTestImage(trial, { content: "trial" });

    // A private sigstore instance: certificates of two identities, entries in its log.
    const fulcio = await testFulcio();
    const rekor = testRekor();
    const workload = testKeyPair();
    const notBefore = new Date(Date.now() - 3600_000);
    const keyless: Record<string, string> = {};
    for (const [name, subject] of [["good", SUBJECT], ["other", "intruder@private.example"]]) {
      const repository = `private/${name}`;
      const digest = await pushTestImage(`${host}/${repository}:1`, { content: `private ${name}` });
      const certificate = await fulcio.issue({
        publicKey: workload.publicKey,
        subject: subject!,
        issuer: ISSUER,
        notBefore,
      });
      await pushCosignSignatures(host, repository, digest, [
        legacySignature({
          signer: { key: workload, certificate },
          payload: cosignPayload(`${host}/${repository}`, digest),
          rekor: { log: rekor, at: new Date(notBefore.getTime() + 60_000) },
        }),
      ]);
      keyless[name!] = `${host}/${repository}:1`;
    }

    const key = await Deno.readTextFile(signer.publicKeyFile);
    const enforced = {
      application: {
        validators: [
          { name: "deny", type: "static", approve: false },
          { name: "default", type: "cosign", trustRoots: [{ name: "default", key }] },
          {
            name: "private",
            type: "cosign",
            host: {
              rekor: "rekor.private.example",
              rekorPubkey: rekor.key.publicPem,
              fulcioCert: fulcio.chain.map((c) => c.toString("pem")).join("\n"),
            },
            trustRoots: [{ name: "default", keyless: { issuer: ISSUER, subject: SUBJECT } }],
          },
        ],
        policy: [
          { pattern: `${host}/private/*:*`, validator: "private" },
          { pattern: `${host}/team/*:*`, with: { verifyInTransparencyLog: false } },
          { pattern: `${host}/blocked/*:*`, validator: "deny" },
        ],
      },
    };
    const detection = {
      application: {
        validators: [{ name: "deny", type: "static", approve: false }],
        policy: [{ pattern: `${host}/trial/*:*`, validator: "deny" }],
        features: { detectionMode: true },
      },
    };
    const result = await importDocuments([enforced, detection], {
      controllerNamespace: CONTROLLER_NAMESPACE,
    });
    assert.deepEqual(result.unknown, []);
    const converted = result.rules.filter((r) => r.source.rule !== "settings");
    assert.equal(converted.length, 4);
    for (const rule of converted) assert.equal(rule.refused, false, JSON.stringify(rule.findings));

    await world.namespaces("dev");
    const items = result.rules.flatMap((r) => r.objects);
    await world.apply(JSON.stringify({ apiVersion: "v1", kind: "List", items }));
    await world.startWebhook({
      insecureRegistries: [host],
      probe: { namespace: "dev", image: unsigned },
    });

    await t.step(
      "the cosign rule admits the image cosign signed with the validator's key",
      async () => {
        const r = await dryRunPod(world.cluster, "signed", "dev", signed);
        assert.equal(r.code, 0, r.stderr);
      },
    );
    await t.step("the cosign rule denies an unsigned image", async () => {
      const r = await dryRunPod(world.cluster, "unsigned", "dev", unsigned);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /denied/);
    });
    await t.step(
      "the keyless validator admits its identity under the trust root made of host's keys",
      async () => {
        const r = await dryRunPod(world.cluster, "private-good", "dev", keyless.good!);
        assert.equal(r.code, 0, r.stderr);
      },
    );
    await t.step("the keyless validator denies another identity", async () => {
      const r = await dryRunPod(world.cluster, "private-other", "dev", keyless.other!);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /intruder@private\.example.*not an accepted identity/);
    });
    await t.step("the static deny validator denies", async () => {
      const r = await dryRunPod(world.cluster, "blocked", "dev", blocked);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /denied/);
    });
    await t.step("detectionMode admits what its rule denies, with a warning", async () => {
      const r = await dryRunPod(world.cluster, "trial", "dev", trial);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /Warning: warn mode, admitted anyway/);
    });
    await Deno.remove(dir, { recursive: true });
  },
});
