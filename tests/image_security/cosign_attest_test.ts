/**
 * `toolkit image-security attest` against the real cosign v3.1.3: the SLSA provenance toolkit's
 * pipeline writes (the `--build-*` flags the `toolkit-image-sign` Task's provenance step passes)
 * and a predicate file's attestation pass `cosign verify-attestation --type slsaprovenance1 --key
 * cosign.pub --insecure-ignore-tlog` in both storage formats: cosign's legacy `.att` tag on the
 * distribution registry, and the v3 bundle as a referrer on the registry with the referrers API
 * (and under the fallback tag of the distribution registry); with a key toolkit made and with
 * cosign's own `cosign.key`. cosign refuses them for another predicate type and another key, and
 * the predicate it prints is the one toolkit wrote. `attest --recursive` on a multi-platform
 * image (assembled with crane) passes it on the index and on each platform digest, each
 * statement's subject that digest, every one the same build.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import {
  e2eSkipReason,
  pushTestImage,
  startCosign,
  startRegistry,
  startRegistryOfKind,
  type TestCosign,
} from "../env/mod.ts";
import { pushMultiPlatformImage } from "../env/multiarch.ts";

const ignore =
  e2eSkipReason(["docker-registry", "referrers-registry", "cosign", "skopeo"]) !== undefined;
const noCrane = e2eSkipReason(["crane"]) !== undefined;

const COMMIT = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
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
  "--builder-id",
  "https://toolkit.dev/tekton/tools",
];

async function toolkit(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferedIO({ cwd, env });
  const status = await runCli(args, commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

/** `cosign verify-attestation`, keyed, no tlog: the statements it printed, or its stderr. */
async function verifyAttestation(
  cosign: TestCosign,
  image: string,
  options: { key: string; type: string; legacy: boolean },
): Promise<{ ok: true; statements: Record<string, unknown>[] } | { ok: false; err: string }> {
  const r = await cosign.run([
    "verify-attestation",
    "--key",
    options.key,
    "--type",
    options.type,
    "--insecure-ignore-tlog",
    "--allow-insecure-registry",
    ...(options.legacy ? [] : ["--new-bundle-format"]),
    image,
  ]);
  if (r.code !== 0) return { ok: false, err: r.stderr };
  // One JSON document a line: the DSSE envelopes of the attestations that verified.
  const statements = r.stdout.trim().split("\n").filter(Boolean).map((line) => {
    const envelope = JSON.parse(line);
    return JSON.parse(atob(envelope.payload ?? envelope.dsseEnvelope?.payload));
  });
  return { ok: true, statements };
}

const CASES = [
  {
    name: "the legacy .att tag on the distribution registry",
    kind: "distribution",
    format: "cosign",
  },
  {
    name: "a bundle referrer on the registry with the referrers API",
    kind: "referrers",
    format: "bundle",
  },
  {
    name: "a bundle under the fallback tag of the distribution registry",
    kind: "distribution",
    format: "bundle",
  },
] as const;

for (const c of CASES) {
  Deno.test({
    name: `toolkit's attestations pass cosign verify-attestation: ${c.name}`,
    ignore,
    fn: async (t) => {
      await using registry = c.kind === "distribution"
        ? await startRegistry()
        : await startRegistryOfKind(c.kind);
      await using cosign = await startCosign();
      const dir = await Deno.makeTempDir({ prefix: "toolkit-cosign-attest-" });
      const env = { COSIGN_PASSWORD: "toolkit" };
      try {
        const made = await toolkit(dir, ["image-security", "keygen", "--type", "ecdsa-p256"], env);
        assert.equal(made.status, 0, made.err);
        const theirs = await cosign.generateKeyPair(await Deno.makeTempDir({ dir }), "theirs");
        const image = `${registry.host}/team/app:1`;
        const digest = await pushTestImage(image, { content: `attested ${c.name}` });
        const legacy = c.format === "cosign";
        const attest = (key: string, more: string[], password = "toolkit") =>
          toolkit(dir, [
            "image-security",
            "attest",
            image,
            "--key",
            key,
            "--format",
            c.format,
            "--tls-verify=false",
            ...more,
          ], { COSIGN_PASSWORD: password });

        await t.step("the pipeline's provenance, toolkit's key: cosign verifies it", async () => {
          const r = await attest("cosign.key", [...BUILD, "--digest", digest]);
          assert.equal(r.status, 0, r.err);
          const verified = await verifyAttestation(cosign, image, {
            key: `${dir}/cosign.pub`,
            type: "slsaprovenance1",
            legacy,
          });
          assert.ok(verified.ok, verified.ok ? "" : verified.err);
          assert.equal(verified.statements.length, 1);
          const statement = verified.statements[0]! as {
            predicateType: string;
            subject: unknown;
            predicate: {
              buildDefinition: { buildType: string; externalParameters: unknown };
              runDetails: { builder: { id: string } };
            };
          };
          assert.equal(statement.predicateType, "https://slsa.dev/provenance/v1");
          assert.deepEqual(statement.subject, [{
            name: `${registry.host}/team/app`,
            digest: { sha256: digest.slice(7) },
          }]);
          assert.equal(
            statement.predicate.buildDefinition.buildType,
            "https://toolkit.dev/tekton/image-build/v1",
          );
          assert.deepEqual(statement.predicate.buildDefinition.externalParameters, {
            repository: "https://git.example/team/app",
            revision: "main",
            pipeline: "app-build",
            task: "build",
          });
          assert.equal(
            statement.predicate.runDetails.builder.id,
            "https://toolkit.dev/tekton/tools",
          );
        });

        await t.step({
          name: "attest --recursive on a multi-platform image: cosign verifies each platform",
          ignore: noCrane,
          fn: async () => {
            const multi = await pushMultiPlatformImage(`${registry.host}/team/multi:1`, {
              content: `attested recursively ${c.name}`,
            });
            const r = await toolkit(dir, [
              "image-security",
              "attest",
              multi.image,
              "--key",
              "cosign.key",
              "--format",
              c.format,
              "--tls-verify=false",
              "--recursive",
              "--digest",
              multi.index,
              ...BUILD,
              "-o",
              "json",
            ], env);
            assert.equal(r.status, 0, r.err);
            assert.equal(JSON.parse(r.out).platforms.length, multi.platforms.length);
            const predicates: unknown[] = [];
            for (const digest of [multi.index, ...multi.platforms.map((p) => p.digest)]) {
              const verified = await verifyAttestation(cosign, `${multi.repository}@${digest}`, {
                key: `${dir}/cosign.pub`,
                type: "slsaprovenance1",
                legacy,
              });
              assert.ok(verified.ok, verified.ok ? "" : `${digest}: ${verified.err}`);
              assert.equal(verified.statements.length, 1, digest);
              const statement = verified.statements[0]! as {
                subject: unknown;
                predicate: unknown;
              };
              assert.deepEqual(statement.subject, [{
                name: multi.repository,
                digest: { sha256: digest.slice(7) },
              }]);
              predicates.push(statement.predicate);
            }
            // Each platform's provenance says the same build as the index's.
            for (const p of predicates.slice(1)) assert.deepEqual(p, predicates[0]);
          },
        });

        await t.step("another type or another key: cosign refuses", async () => {
          const wrongType = await verifyAttestation(cosign, image, {
            key: `${dir}/cosign.pub`,
            type: "spdxjson",
            legacy,
          });
          assert.equal(wrongType.ok, false);
          const wrongKey = await verifyAttestation(cosign, image, {
            key: theirs.publicKeyFile,
            type: "slsaprovenance1",
            legacy,
          });
          assert.equal(wrongKey.ok, false);
        });

        await t.step(
          "a predicate file with cosign's own key: verified beside the first",
          async () => {
            await Deno.writeTextFile(
              `${dir}/p.json`,
              JSON.stringify({ buildDefinition: { buildType: "https://example.com/other" } }),
            );
            const r = await attest(
              theirs.privateKeyFile,
              ["--predicate", "p.json", "--type", "https://slsa.dev/provenance/v1"],
              theirs.password,
            );
            assert.equal(r.status, 0, r.err);
            const verified = await verifyAttestation(cosign, image, {
              key: theirs.publicKeyFile,
              type: "slsaprovenance1",
              legacy,
            });
            assert.ok(verified.ok, verified.ok ? "" : verified.err);
            assert.deepEqual(
              verified.statements.map((s) =>
                (s as { predicate: { buildDefinition: { buildType: string } } }).predicate
                  .buildDefinition.buildType
              ),
              ["https://example.com/other"],
            );
            // toolkit's own attestation still verifies with toolkit's key.
            const ours = await verifyAttestation(cosign, image, {
              key: `${dir}/cosign.pub`,
              type: "slsaprovenance1",
              legacy,
            });
            assert.ok(ours.ok, ours.ok ? "" : ours.err);
          },
        );
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
