/**
 * Multi-platform images (issue #36) on the real webhook, called by the real kube-apiserver:
 * indexes of two platform images assembled with go-containerregistry's `crane` (and one with
 * `skopeo copy --all`) in the distribution registry and in go-containerregistry's registry with
 * the referrers API, signed by toolkit (simple signing, cosign legacy, bundles) and by the real
 * cosign v3.1.3. Four namespaces hold the same policy under each `multiArch` rule (`index`,
 * `everyPlatform`, `either`, and `everyPlatform` counting `linux/amd64` only), and each image is admitted or denied as its rule says: the index
 * signed only; its platforms signed only; one platform unsigned; a platform manifest the registry
 * no longer has; everything signed by `sign --recursive` (toolkit's, which `cosign verify`
 * accepts on each platform digest, and cosign's, which toolkit accepts); an index over the
 * bounds.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { NO_SIGNATURE_REASON } from "../../lib/signature/mod.ts";
import { MAX_INDEX_MANIFESTS } from "../../lib/registry/mod.ts";
import { e2eSkipReason, REGISTRY_KINDS, startCosign } from "../env/mod.ts";
import {
  crane,
  deleteManifest,
  type MultiPlatformImage,
  pushMultiPlatformImage,
} from "../env/multiarch.ts";
import { startWorld } from "./_world.ts";
import { dryRunPod, keySecretManifest } from "./_webhook.ts";

const FORMATS = ["simple", "legacy", "bundle"] as const;
type Format = typeof FORMATS[number];
/** The three rules, and everyPlatform counting linux/amd64 only. */
const RULES = ["index", "everyPlatform", "either", "amd64Only"] as const;
type Rule = typeof RULES[number];
const NAMESPACE: Record<Rule, string> = {
  index: "rule-index",
  everyPlatform: "rule-every",
  either: "rule-either",
  amd64Only: "rule-amd64",
};
/** The requirement fields of each rule. */
const RULE_FIELDS: Record<Rule, Record<string, unknown>> = {
  index: { multiArch: "index" },
  everyPlatform: { multiArch: "everyPlatform" },
  either: { multiArch: "either" },
  amd64Only: { multiArch: "everyPlatform", platforms: ["linux/amd64"] },
};

/** What a rule does with an image: admit (`true`, pinned to the index), or deny with this. */
type Expected = Record<Rule, true | RegExp>;

interface Case {
  readonly name: string;
  readonly image: MultiPlatformImage;
  readonly expected: Expected;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The denial of `platform` of `image` for `why`. */
function platformDenial(image: MultiPlatformImage, platform: string, why: string): RegExp {
  const digest = image.platforms.find((p) => p.platform === platform)!.digest;
  return new RegExp(`platform ${escape(platform)} \\(${digest}\\): ${why}`);
}

Deno.test({
  name: "multi-platform images are admitted and denied as each multiArch rule says",
  ignore: e2eSkipReason([
    "kube-apiserver",
    "etcd",
    "docker-registry",
    "referrers-registry",
    "cosign",
    "crane",
    "skopeo",
    "gpg",
  ]) !== undefined,
  fn: async (t) => {
    await using world = await startWorld({
      registries: { referrers: { kind: "referrers" } },
    });
    const cluster = world.cluster;
    const hosts = {
      distribution: world.registry.host,
      referrers: world.registries.referrers!.host,
    };
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-multiarch-e2e-" });
    await Deno.mkdir(`${dir}/cosign`);
    const cosignKey = await cosign.generateKeyPair(`${dir}/cosign`);
    const gpgKey = await world.signer();
    await Deno.writeTextFile(`${dir}/gpg.key.asc`, gpgKey.privateKeyArmored);
    const toolkit = async (args: string[]) => {
      const io = bufferedIO({ cwd: dir, env: { COSIGN_PASSWORD: cosignKey.password } });
      const status = await runCli(args, commandContext(io));
      return { status, out: io.out(), err: io.err() };
    };
    /** toolkit signs `image` (or `--digest`) in `format`, recursively or not. */
    const toolkitSign = async (
      image: string,
      format: Format,
      options: { recursive?: boolean; digest?: string } = {},
    ) => {
      const r = await toolkit([
        "image-security",
        "sign",
        image,
        "--key",
        format === "simple" ? `${dir}/gpg.key.asc` : cosignKey.privateKeyFile,
        "--format",
        format === "legacy" ? "cosign" : format,
        "--registries.d",
        world.gpg.registriesD,
        "--tls-verify=false",
        ...(options.recursive ? ["--recursive"] : []),
        ...(options.digest ? ["--digest", options.digest] : []),
        "-o",
        "json",
      ]);
      assert.equal(r.status, 0, r.err);
      return JSON.parse(r.out);
    };
    /** Signs one manifest of `image` (its index, or a platform's digest) in `format`. */
    const signOne = async (image: MultiPlatformImage, digest: string, format: Format) => {
      if (format === "simple") return void await toolkitSign(image.image, format, { digest });
      await cosign.sign(`${image.repository}@${digest}`, {
        key: cosignKey.privateKeyFile,
        password: cosignKey.password,
        format,
      });
    };
    const cosignVerify = async (repository: string, digest: string) => {
      const r = await cosign.verify(`${repository}@${digest}`, {
        publicKeyFile: cosignKey.publicKeyFile,
      });
      assert.equal(r.code, 0, `cosign verify ${repository}@${digest}: ${r.stderr}`);
    };

    const cases: Case[] = [];
    await t.step("multi-platform images assembled and signed on both registries", async () => {
      await Promise.all(REGISTRY_KINDS.map(async (kind) => {
        const host = hosts[kind];
        for (const format of FORMATS) {
          const push = (name: string, via: "crane" | "skopeo" = "crane") =>
            pushMultiPlatformImage(`${host}/${format}/${name}:1`, {
              content: `${kind} ${format} ${name}`,
              via,
            });
          const label = (name: string) => `${kind} ${format} ${name}`;
          const signedIndex = await push("index-signed");
          await signOne(signedIndex, signedIndex.index, format);
          cases.push({
            name: label("index signed only"),
            image: signedIndex,
            expected: {
              index: true,
              everyPlatform: platformDenial(signedIndex, "linux/amd64", NO_SIGNATURE_REASON),
              either: true,
              amd64Only: platformDenial(signedIndex, "linux/amd64", NO_SIGNATURE_REASON),
            },
          });

          // Platforms signed one by one (the skopeo-built index on the referrers registry).
          const perPlatform = await push(
            "platforms-signed",
            kind === "referrers" ? "skopeo" : "crane",
          );
          for (const p of perPlatform.platforms) await signOne(perPlatform, p.digest, format);
          cases.push({
            name: label("platforms signed only"),
            image: perPlatform,
            expected: { index: /./, everyPlatform: true, either: true, amd64Only: true },
          });

          const oneUnsigned = await push("one-unsigned");
          await signOne(oneUnsigned, oneUnsigned.platforms[0]!.digest, format);
          const arm64Unsigned = platformDenial(oneUnsigned, "linux/arm64", NO_SIGNATURE_REASON);
          cases.push({
            name: label("one platform unsigned"),
            image: oneUnsigned,
            expected: {
              index: /./,
              everyPlatform: arm64Unsigned,
              either: arm64Unsigned,
              amd64Only: true,
            },
          });

          // Everything signed, then a platform manifest deleted from the registry.
          const gone = await push("platform-gone");
          if (format === "simple") await toolkitSign(gone.image, format, { recursive: true });
          else {
            await cosign.sign(`${gone.repository}@${gone.index}`, {
              key: cosignKey.privateKeyFile,
              password: cosignKey.password,
              format,
              recursive: true,
            });
          }
          await deleteManifest(gone.repository, gone.platforms[1]!.digest);
          cases.push({
            name: label("a platform manifest the registry no longer has"),
            image: gone,
            expected: {
              index: true,
              everyPlatform: platformDenial(
                gone,
                "linux/arm64",
                "the registry no longer has this platform's manifest",
              ),
              either: true,
              amd64Only: true,
            },
          });

          // toolkit's --recursive: every platform signed, as cosign verify sees it.
          const recursive = await push("toolkit-recursive");
          const signed = await toolkitSign(recursive.image, format, { recursive: true });
          assert.deepEqual(
            signed.platforms.map((
              p: { platform: string; digest: string },
            ) => [p.platform, p.digest]),
            recursive.platforms.map((p) => [p.platform, p.digest]),
          );
          if (format !== "simple") {
            await cosignVerify(recursive.repository, recursive.index);
            for (const p of recursive.platforms) await cosignVerify(recursive.repository, p.digest);
          }
          cases.push({
            name: label("signed by toolkit sign --recursive"),
            image: recursive,
            expected: { index: true, everyPlatform: true, either: true, amd64Only: true },
          });

          if (format === "simple") continue;
          const cosignRecursive = await push("cosign-recursive");
          await cosign.sign(`${cosignRecursive.repository}@${cosignRecursive.index}`, {
            key: cosignKey.privateKeyFile,
            password: cosignKey.password,
            format,
            recursive: true,
          });
          cases.push({
            name: label("signed by cosign sign --recursive"),
            image: cosignRecursive,
            expected: { index: true, everyPlatform: true, either: true, amd64Only: true },
          });
        }
        // An index listing more manifests than the bound: signed, denied only where its
        // platforms are read, naming the bound.
        const base = await pushMultiPlatformImage(`${host}/bundle/bound-base:1`, {
          content: `${kind} bound`,
          architectures: ["amd64"],
        });
        const bound = `${host}/bundle/over-bound:1`;
        const repeated = Array.from({ length: MAX_INDEX_MANIFESTS + 1 }, () => [
          "-m",
          `${base.repository}@${base.platforms[0]!.digest}`,
        ]).flat();
        await crane(["index", "append", ...repeated, "-t", bound]);
        const overBound: MultiPlatformImage = {
          image: bound,
          repository: `${host}/bundle/over-bound`,
          index: await crane(["digest", bound]),
          platforms: base.platforms,
        };
        await signOne(overBound, overBound.index, "bundle");
        cases.push({
          name: `${kind} an index over the bounds`,
          image: overBound,
          expected: {
            index: true,
            everyPlatform: new RegExp(
              `the image index ${escape(overBound.repository)}@${overBound.index} lists ${
                MAX_INDEX_MANIFESTS + 1
              } manifests \\(its nested indexes' included\\); at most ${MAX_INDEX_MANIFESTS} are read`,
            ),
            either: true,
            amd64Only: /lists 65 manifests/,
          },
        });
      }));
    });

    await world.namespaces(...Object.values(NAMESPACE));
    await t.step(
      "the API server refuses wrong multiArch and platforms with the field's path",
      async () => {
        const refused: [unknown, RegExp][] = [
          [
            { type: "signedBy", keySecret: "k", multiArch: "all" },
            /multiArch: Unsupported value: "all"/,
          ],
          [
            { type: "signedBy", keySecret: "k", platforms: ["Linux/AMD64"] },
            /platforms\[0\]: Invalid value: "Linux\/AMD64": .*should match/,
          ],
          [
            { type: "reject", multiArch: "everyPlatform" },
            /multiArch and platforms are for signature and attestation requirements/,
          ],
        ];
        for (const [index, [requirement, message]] of refused.entries()) {
          const r = await cluster.kubectl(["apply", "-f", "-"], {
            stdin: JSON.stringify({
              apiVersion: "toolkit.dev/v1",
              kind: "ImagePolicy",
              metadata: { name: `bad-${index}`, namespace: NAMESPACE.index },
              spec: {
                repositories: [{
                  name: "bad/*",
                  policy: { simple: { requirements: [requirement] } },
                }],
              },
            }),
          });
          assert.notEqual(r.code, 0, `bad-${index} was stored`);
          assert.match(r.stderr, message, `bad-${index}: ${r.stderr}`);
        }
      },
    );
    const cosignPub = await Deno.readTextFile(cosignKey.publicKeyFile);
    for (const rule of RULES) {
      const namespace = NAMESPACE[rule];
      await world.apply(keySecretManifest("gpg-key", namespace, gpgKey.publicKeyArmored));
      await world.apply(keySecretManifest("cosign-pub", namespace, cosignPub));
      const repositories = Object.values(hosts).flatMap((host) =>
        FORMATS.map((format) => ({
          name: `${host}/${format}/*`,
          policy: {
            simple: {
              requirements: [
                format === "simple"
                  ? { type: "signedBy", keySecret: "gpg-key", ...RULE_FIELDS[rule] }
                  : { type: "sigstoreSigned", keySecret: "cosign-pub", ...RULE_FIELDS[rule] },
              ],
            },
          },
        }))
      );
      await world.apply(JSON.stringify({
        apiVersion: "toolkit.dev/v1",
        kind: "ImagePolicy",
        metadata: { name: "multiarch", namespace },
        spec: { repositories },
      }));
    }
    const probe = cases.find((c) => c.expected.everyPlatform !== true)!;
    await world.startWebhook({
      insecureRegistries: Object.values(hosts),
      probe: { namespace: NAMESPACE.everyPlatform, image: probe.image.image },
    });

    for (const c of cases) {
      await t.step(c.name, async () => {
        for (const rule of RULES) {
          const expected = c.expected[rule];
          const name = `pod-${cases.indexOf(c)}-${RULES.indexOf(rule)}`;
          if (expected === true) {
            const r = await cluster.kubectl([
              "create",
              "--dry-run=server",
              "-o",
              "jsonpath={.spec.containers[0].image}",
              "-f",
              "-",
            ], {
              stdin: JSON.stringify({
                apiVersion: "v1",
                kind: "Pod",
                metadata: { name, namespace: NAMESPACE[rule] },
                spec: { containers: [{ name: "c", image: c.image.image }] },
              }),
            });
            assert.equal(r.code, 0, `${c.name} under ${rule}: ${r.stderr}`);
            // Pinned to the index, whatever signatures admitted it.
            assert.equal(
              r.stdout,
              `${c.image.repository}@${c.image.index}`,
              `${c.name} under ${rule}`,
            );
            const byPlatforms = /admitted by the signatures of its platforms/.test(r.stderr);
            const platformsOnly = rule === "everyPlatform" || rule === "amd64Only" ||
              (rule === "either" && c.expected.index !== true);
            assert.equal(byPlatforms, platformsOnly, `${c.name} under ${rule}: ${r.stderr}`);
            if (rule === "amd64Only") {
              // What did not count is named.
              assert.match(r.stderr, /platforms linux\/amd64 \(multiArch: everyPlatform\)/);
              assert.match(r.stderr, /ignored: linux\/arm64 \(not in platforms\)/);
            }
            continue;
          }
          const r = await dryRunPod(cluster, name, NAMESPACE[rule], c.image.image);
          assert.notEqual(r.code, 0, `${c.name} under ${rule} was admitted`);
          assert.match(r.stderr, expected, `${c.name} under ${rule}`);
        }
      });
    }
    await Deno.remove(dir, { recursive: true });
  },
});
