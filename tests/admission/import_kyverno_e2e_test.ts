/**
 * Kyverno policies imported and enforced: kyverno/policies' `verify-image` sample (a keyed cosign
 * rule, tests/fixtures/import/kyverno/policies/other/verify-image) with its image pattern moved to
 * the test registry, its key replaced by one the real cosign v3.1.3 signs with, and
 * `rekor: {ignoreTlog: true}` (the world has no Rekor: with the sample's default Kyverno itself
 * would deny an entry-less signature), converted by the registered importers and applied as they
 * come out: the webhook (a real process called by the real kube-apiserver) admits and pins the
 * image cosign signed and denies the unsigned one, as Kyverno documents; the same rule with
 * `validationFailureAction: Audit` warns instead of denying.
 *
 * And kyverno/policies' `verify-image-slsa` (an attestation rule: SLSA v0.2 provenance whose
 * builder.id must match a `regex_match`), its keyless attestor replaced by the same key (the
 * world has no Fulcio) and `Enforce`: the image whose provenance cosign attested with the
 * expected builder is admitted, one with another builder is denied by the converted condition,
 * one without provenance denied.
 */
import assert from "node:assert/strict";
import { parseYamlDocuments } from "../../lib/yaml.ts";
import { importDocuments } from "../../lib/import/import_documents.ts";
import { e2eSkipReason, pushTestImage, startCosign } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { CONTROLLER_NAMESPACE, dryRunPod, eventually, kubectlOk, podManifest } from "./_webhook.ts";

const SAMPLE = new URL(
  "../fixtures/import/kyverno/policies/other/verify-image/verify-image.yaml",
  import.meta.url,
);
const SLSA_SAMPLE = new URL(
  "../fixtures/import/kyverno/policies/other/verify-image-slsa/verify-image-slsa.yaml",
  import.meta.url,
);
const GENERATOR =
  "https://github.com/slsa-framework/slsa-github-generator/.github/workflows/generator_container_slsa3.yml";

/** The part of the SLSA sample the test edits. */
interface SlsaSample {
  spec: {
    validationFailureAction: string;
    rules: {
      verifyImages: {
        imageReferences: string[];
        attestations: { attestors: { entries: Record<string, unknown>[] }[] }[];
      }[];
    }[];
  };
}

/** The SLSA sample on `host/attested/*`, its keyless attestor replaced by `publicKey`, enforced. */
function slsaSample(text: string, host: string, publicKey: string): Record<string, unknown> {
  const [doc] = parseYamlDocuments(text) as SlsaSample[];
  const policy = structuredClone(doc!);
  policy.spec.validationFailureAction = "Enforce";
  const vi = policy.spec.rules[0]!.verifyImages[0]!;
  vi.imageReferences = [`${host}/attested/*`];
  vi.attestations[0]!.attestors[0]!.entries = [{
    keys: { publicKeys: publicKey, rekor: { ignoreTlog: true } },
  }];
  return policy as unknown as Record<string, unknown>;
}

/** The part of the sample the test edits. */
interface Sample {
  metadata: { name: string };
  spec: {
    validationFailureAction: string;
    rules: {
      verifyImages: {
        imageReferences: string[];
        mutateDigest?: boolean;
        attestors: { entries: { keys: { publicKeys: string; rekor?: unknown } }[] }[];
      }[];
    }[];
  };
}

/** The sample, on `host`, trusting `publicKey`, without Rekor, with `action`. */
function sample(text: string, host: string, publicKey: string, action: string, name: string) {
  const [doc] = parseYamlDocuments(text) as Sample[];
  const policy = structuredClone(doc!);
  policy.metadata.name = name;
  policy.spec.validationFailureAction = action;
  const vi = policy.spec.rules[0]!.verifyImages[0]!;
  vi.imageReferences = vi.imageReferences.map((p: string) =>
    p.replace("ghcr.io/kyverno/", `${host}/${name}/`)
  );
  if (action === "Audit") vi.mutateDigest = false; // Kyverno refuses mutateDigest with Audit
  const keys = vi.attestors[0]!.entries[0]!.keys;
  keys.publicKeys = publicKey;
  keys.rekor = { ignoreTlog: true };
  return policy as unknown as Record<string, unknown>;
}

Deno.test({
  name:
    "kyverno/policies' verify-image and verify-image-slsa, imported: signed admitted, unsigned denied, Audit warns, provenance judged by the converted condition",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "docker-registry", "cosign", "skopeo"]) !==
    undefined,
  fn: async (t) => {
    await using world = await startWorld({ images: false, registries: { distribution: {} } });
    const cluster = world.cluster;
    const host = world.registries.distribution!.host;
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-import-kyverno-" });
    const key = await cosign.generateKeyPair(dir);
    const publicKey = await Deno.readTextFile(key.publicKeyFile);

    const signed = `${host}/enforced/test-verify-image:signed`;
    const signedDigest = await pushTestImage(signed, { content: "kyverno signed" });
    await cosign.sign(signed, {
      key: key.privateKeyFile,
      password: key.password,
      format: "legacy",
    });
    const unsigned = `${host}/enforced/test-verify-image:unsigned`;
    await pushTestImage(unsigned, { content: "kyverno unsigned" });
    const audited = `${host}/audited/test-verify-image:unsigned`;
    await pushTestImage(audited, { content: "kyverno audited" });

    // Provenance attested by cosign with the expected builder, with another, and none.
    const provenance = async (name: string, builder: string) => {
      const file = `${dir}/${name}.json`;
      await Deno.writeTextFile(file, JSON.stringify({ builder: { id: builder }, buildType: "x" }));
      return file;
    };
    const attested: Record<string, string> = {};
    for (
      const [name, builder] of [["good", `${GENERATOR}@refs/tags/v1.2.3`], [
        "bad",
        `${GENERATOR}@refs/heads/main`,
      ], ["none", ""]]
    ) {
      const image = `${host}/attested/${name}:1`;
      await pushTestImage(image, { content: `kyverno attested ${name}` });
      attested[name!] = image;
      if (builder === "") continue;
      const r = await cosign.run([
        "attest",
        "--key",
        key.privateKeyFile,
        "--predicate",
        await provenance(name!, builder!),
        "--type",
        "slsaprovenance",
        "--use-signing-config=false",
        "--tlog-upload=false",
        "--allow-insecure-registry",
        "--new-bundle-format=false",
        "-y",
        image,
      ], { password: key.password });
      assert.equal(r.code, 0, r.stderr);
    }

    const text = await Deno.readTextFile(SAMPLE);
    const result = await importDocuments([
      sample(text, host, publicKey, "Enforce", "enforced"),
      sample(text, host, publicKey, "Audit", "audited"),
      slsaSample(await Deno.readTextFile(SLSA_SAMPLE), host, publicKey),
    ], { controllerNamespace: CONTROLLER_NAMESPACE });
    assert.equal(result.rules.length, 3);
    for (const rule of result.rules) {
      assert.equal(rule.refused, false, JSON.stringify(rule.findings));
    }
    const objects = result.rules.flatMap((r) => r.objects);
    const policies = objects.filter((o) => o.kind === "ClusterImagePolicy") as unknown as {
      spec: { repositories: { policy: { mode?: string } }[] };
    }[];
    assert.deepEqual(
      policies.map((p) => p.spec.repositories[0]?.policy.mode),
      ["enforce", "warn", "enforce"],
    );

    await world.namespaces("dev");
    for (const o of objects) await world.apply(JSON.stringify(o));
    await world.startWebhook({
      insecureRegistries: [host],
      probe: { namespace: "dev", image: unsigned },
    });

    await t.step("the image cosign signed with the key is admitted and pinned", async () => {
      const r = await cluster.kubectl(["create", "-f", "-"], {
        stdin: podManifest("signed", "dev", { containers: [signed] }),
      });
      assert.equal(r.code, 0, r.stderr);
      const image = await kubectlOk(cluster, [
        "get",
        "pod",
        "signed",
        "-n",
        "dev",
        "-o",
        "jsonpath={.spec.containers[0].image}",
      ]);
      assert.equal(image, `${host}/enforced/test-verify-image@${signedDigest}`);
    });

    await t.step("the unsigned image is denied", async () => {
      const r = await dryRunPod(cluster, "unsigned", "dev", unsigned);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /denied the request/);
    });

    await t.step("under the Audit rule the unsigned image is admitted with a warning", async () => {
      await eventually(
        "the Audit rule's policy to apply",
        async () => (await dryRunPod(cluster, "audited", "dev", audited)).code === 0,
      );
      const r = await cluster.kubectl(["create", "-f", "-"], {
        stdin: podManifest("audited", "dev", { containers: [audited] }),
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /Warning: warn mode, admitted anyway: policy denied the request/);
    });
    await t.step(
      "the SLSA rule admits the image whose provenance has the expected builder",
      async () => {
        const r = await dryRunPod(cluster, "good", "dev", attested.good!);
        assert.equal(r.code, 0, r.stderr);
      },
    );

    await t.step(
      "the SLSA rule denies another builder by the converted condition, and no provenance",
      async () => {
        const bad = await dryRunPod(cluster, "bad", "dev", attested.bad!);
        assert.notEqual(bad.code, 0);
        assert.match(
          bad.stderr,
          /attestation https:\/\/slsa\.dev\/provenance\/v0\.2: condition "condition-0-all-0" is false/,
        );
        const none = await dryRunPod(cluster, "none", "dev", attested.none!);
        assert.notEqual(none.code, 0);
        assert.match(none.stderr, /no attestation of type https:\/\/slsa\.dev\/provenance\/v0\.2/);
      },
    );
    await Deno.remove(dir, { recursive: true });
  },
});
