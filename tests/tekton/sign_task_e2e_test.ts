/**
 * The signing Task `toolkit-image-sign` end to end, with real components: the real kube-apiserver
 * (with the toolkit and Tekton CRDs), the distribution registry, skopeo, Tekton Pipelines' own
 * code (`tests/env/tekton-pipeline`), the webhook process, and the Key Protect stand-in (a cloud
 * service). No Tekton controller runs here and a TaskRun cannot start Pods, so:
 *
 * 1. `toolkit image-security setup-signing` sets signing up in the cluster and the vault, and
 *    `toolkit sync` copies the image-signing Secret into the development namespace;
 * 2. Tekton's validation (its webhook's decoding, defaulting and `Validate`) accepts the Task as
 *    the API server stores it, at v1 and v1beta1, and the released file;
 * 3. Tekton's TaskRun reconciler code builds the Pod of a TaskRun with the image a build pushed,
 *    and its `sign` step runs as a process with exactly that container's arguments, environment
 *    and volumes (the namespace's Secrets as files, the workspace as a directory, the root
 *    filesystem read-only): it reads the key from the vault and signs;
 * 4. through the real API server and the webhook, a Pod of that image is admitted and pinned to
 *    the digest, and a Pod of the same repository's unsigned image is denied;
 * 5. the step fails the run with a clear message when the Secret or the key is missing, or the
 *    registry refuses the signature; no file, argument or output ever holds the private key.
 */
import assert from "node:assert/strict";
import {
  e2eSkipReason,
  startCluster,
  startCosign,
  startGpg,
  startRegistry,
  tektonValidate,
} from "../env/mod.ts";
import { copyKubeconfig, kubectl, tempDir, toolkit } from "../cli_dev/helpers.ts";
import { createNamespaces } from "../admission/_webhook.ts";
import {
  assertEnforced,
  attestationEnvelopes,
  filesHolding,
  namespaceSecrets,
  runSignStep,
  startSigningVault,
  verifiedOpenPgpStatement,
} from "./_sign_step.ts";
import { signTask, withSigningTask } from "../../lib/tekton/mod.ts";
import { parseYaml } from "../../lib/yaml.ts";
import { serve } from "../fakes/loopback_server.ts";

const NAMESPACE = "dev";
const TOOLS = [
  "kube-apiserver",
  "etcd",
  "kubectl",
  "openssl",
  "docker-registry",
  "skopeo",
  "gpg",
  "gpgconf",
  "tekton-pipeline",
];

/** The API server, a registry, skopeo, the vault stand-in, the namespaces, `toolkit`'s env. */
async function signingEnvironment(prefix: string) {
  const cluster = await startCluster({ crds: ["toolkit", "tekton"] });
  const registry = await startRegistry();
  const gpg = await startGpg();
  const vault = await startSigningVault();
  const dir = await tempDir(prefix);
  const env = { KUBECONFIG: await copyKubeconfig(cluster, dir.path), HOME: dir.path };
  await createNamespaces(cluster, ["tools", "toolkit-system", NAMESPACE]);
  return {
    cluster,
    registry,
    gpg,
    vault,
    dir,
    env,
    async [Symbol.asyncDispose]() {
      for (const part of [dir, vault, gpg, registry, cluster]) await part[Symbol.asyncDispose]();
    },
  };
}

Deno.test({
  name:
    "toolkit-image-sign: Tekton accepts it, its step signs from the vault, the webhook admits what it signed",
  ignore: e2eSkipReason(TOOLS) !== undefined,
  fn: async (t) => {
    await using environment = await signingEnvironment("toolkit-sign-task-");
    const { cluster, registry, gpg, vault, dir, env } = environment;
    const repository = `${registry.host}/demo`;

    await t.step("setup-signing, then sync copies the image-signing Secret", async () => {
      const r = await toolkit([
        "image-security",
        "setup-signing",
        "--repository",
        `${repository}/*`,
        ...vault.flags,
        "-o",
        "json",
      ], { ...env, IBMCLOUD_API_KEY: vault.apiKey });
      assert.equal(r.status, 0, r.err);
      const sync = await toolkit(["sync", NAMESPACE], env);
      assert.equal(sync.status, 0, sync.err);
      assert.ok((await namespaceSecrets(cluster, NAMESPACE))["image-signing"]);
    });

    const stored = JSON.parse(
      await kubectl(cluster, ["get", "task", "toolkit-image-sign", "-n", "tools", "-o", "json"]),
    );
    await t.step(
      "Tekton's own validation accepts the Task (v1, v1beta1, the released file) and a pipeline wired to it",
      async () => {
        const released = parseYaml(
          await Deno.readTextFile(
            new URL("../../deploy/tekton/toolkit-image-sign.yaml", import.meta.url),
          ),
        );
        // And a pipeline signing (and attesting) what it builds, as `toolkit pipeline` writes it:
        // the provenance parameters from the git parameters, a clone's commit, Tekton's context.
        const step = { name: "s", image: "alpine:3", script: "true" };
        const built = withSigningTask({
          apiVersion: "tekton.dev/v1",
          kind: "Pipeline",
          metadata: { name: "app-build", namespace: "tools" },
          spec: {
            params: [{ name: "git-url", type: "string" }, { name: "git-revision", type: "string" }],
            tasks: [
              {
                name: "clone",
                taskSpec: { results: [{ name: "commit" }, { name: "url" }], steps: [step] },
              },
              {
                name: "build",
                runAfter: ["clone"],
                taskSpec: {
                  results: [{ name: "IMAGE_URL" }, { name: "IMAGE_DIGEST" }],
                  steps: [step],
                },
              },
            ],
          },
        }, new Map()).pipeline;
        const verdicts = await tektonValidate([
          stored,
          signTask({ version: "v1beta1", namespace: "tools" }),
          released,
          built,
        ]);
        assert.deepEqual(verdicts.map((v) => [v.apiVersion, v.kind, v.error]), [
          ["tekton.dev/v1", "Task", ""],
          ["tekton.dev/v1beta1", "Task", ""],
          ["tekton.dev/v1", "Task", ""],
          ["tekton.dev/v1", "Pipeline", ""],
        ]);
        assert.deepEqual(
          (stored.spec.steps as { name: string }[]).map((s) => s.name),
          ["sign", "provenance"],
        );
      },
    );

    const image = `${repository}/app:1`;
    const digest = await gpg.pushImage(image, { content: "built by the pipeline\n" });
    const unsigned = `${repository}/app:unsigned`;
    await gpg.pushImage(unsigned, { content: "never signed\n" });
    // The workspace `signatures`: a lookaside-staging directory the webhook's registries.d reads.
    const signatures = `${dir.path}/signatures`;
    const registriesD = `${dir.path}/registries.d`;
    await Deno.mkdir(signatures);
    await Deno.mkdir(registriesD);
    await Deno.writeTextFile(
      `${registriesD}/default.yaml`,
      `default-docker:\n  lookaside: file://${signatures}\n`,
    );
    const taskRun = (name: string, params: Record<string, string>) => ({
      apiVersion: "tekton.dev/v1",
      kind: "TaskRun",
      metadata: { name, namespace: NAMESPACE },
      spec: {
        taskRef: { name: "toolkit-image-sign" },
        params: Object.entries(params).map(([name, value]) => ({ name, value })),
        workspaces: [{ name: "signatures", persistentVolumeClaim: { claimName: "signatures" } }],
      },
    });
    const privateKeyLine = await vault.privateKeyLine();

    await t.step("the step signs the image with the key read from the vault", async () => {
      const step = await runSignStep({
        task: stored,
        taskRun: taskRun("sign-app", {
          IMAGE_URL: image,
          IMAGE_DIGEST: digest,
          TLS_VERIFY: "false",
        }),
        secrets: await namespaceSecrets(cluster, NAMESPACE),
        volumes: { "/workspace/signatures": signatures },
      });
      try {
        assert.equal(step.code, 0, step.stderr);
        assert.equal(step.results.SIGNED_DIGEST, digest);
        assert.match(step.results.SIGNATURE_STORE!, /signatures/);
        assert.match(
          step.stderr,
          /Reading key "[0-9a-f-]{36}" from http:\/\/127\.0\.0\.1:\d+ .* into memory/,
        );
        // The container is the one Tekton built: non-root, read-only root, the Secret mounted.
        const container = step.pod.spec.containers.find((c: { name: string }) =>
          c.name === "step-sign"
        );
        assert.equal(container.securityContext.readOnlyRootFilesystem, true);
        assert.equal(container.image, "ghcr.io/toolkit-dev/toolkit:0.1.0");
        // Nothing but memory held the private key: not an argument, not the environment, not a
        // file of the step's volumes or of the workspace, not its output.
        assert.ok(!step.argv.join(" ").includes(privateKeyLine));
        assert.ok(!JSON.stringify(step.env).includes(privateKeyLine));
        assert.ok(!(step.stdout + step.stderr).includes(privateKeyLine));
        assert.doesNotMatch(step.stdout + step.stderr, /-----BEGIN PGP PRIVATE/);
        assert.deepEqual(await filesHolding([step.root, signatures, dir.path], privateKeyLine), []);
        assert.ok(!step.argv.join(" ").includes(vault.apiKey), "the API key is no argument");
      } finally {
        await step.dispose();
      }
    });

    const build = {
      REPOSITORY_URL: "https://git.example/team/app",
      REVISION: "main",
      COMMIT: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
      PIPELINE_NAME: "app-build",
      BUILD_TASK: "build",
      PIPELINE_RUN_UID: "8f1c2e1a-0000-4000-8000-000000000001",
      PROVENANCE_REQUIRED: "true",
    };
    await t.step(
      "the provenance step attests the build with the same key, in the .att tag",
      async () => {
        const step = await runSignStep({
          step: "provenance",
          task: stored,
          taskRun: taskRun("sign-app", {
            IMAGE_URL: image,
            IMAGE_DIGEST: digest,
            TLS_VERIFY: "false",
            ...build,
            STARTED_ON: "2026-01-02T03:04:05Z",
          }),
          secrets: await namespaceSecrets(cluster, NAMESPACE),
          volumes: { "/workspace/signatures": signatures },
        });
        try {
          assert.equal(step.code, 0, step.stderr);
          assert.match(step.stderr, /Added the attestation to .*\.att/);
          assert.ok(!(step.stdout + step.stderr).includes(privateKeyLine));
          assert.deepEqual(
            await filesHolding([step.root, signatures, dir.path], privateKeyLine),
            [],
          );
        } finally {
          await step.dispose();
        }
        const found = await attestationEnvelopes(registry.url, "demo/app", digest);
        assert.deepEqual(found.map((a) => a.predicateType), ["https://slsa.dev/provenance/v1"]);
        const keySecret = (await namespaceSecrets(cluster, "toolkit-system"))["image-signing-key"];
        const statement = await verifiedOpenPgpStatement(
          found[0]!.envelope,
          atob(keySecret.data.key),
        );
        assert.deepEqual(statement.predicate.runDetails, {
          builder: { id: "https://toolkit.dev/tekton/tools" },
          metadata: {
            invocationId: build.PIPELINE_RUN_UID,
            startedOn: "2026-01-02T03:04:05Z",
            finishedOn: statement.predicate.runDetails.metadata.finishedOn,
          },
        });
        assert.deepEqual(statement.predicate.buildDefinition.resolvedDependencies, [{
          uri: "git+https://git.example/team/app",
          digest: { sha1: build.COMMIT },
        }]);
      },
    );

    await t.step(
      "the Task used without build parameters writes no provenance and says so",
      async () => {
        const step = await runSignStep({
          step: "provenance",
          task: stored,
          taskRun: taskRun("sign-alone", {
            IMAGE_URL: image,
            IMAGE_DIGEST: digest,
            TLS_VERIFY: "false",
          }),
          secrets: await namespaceSecrets(cluster, NAMESPACE),
        });
        try {
          assert.equal(step.code, 0, step.stderr);
          assert.match(step.stderr, /No provenance written: the run passed no build parameters/);
        } finally {
          await step.dispose();
        }
      },
    );

    await t.step(
      "through the API server, the webhook admits and pins it, and denies the unsigned one",
      async () => {
        await assertEnforced(cluster, {
          webhookArgs: ["--insecure-registry", registry.host, "--registries.d", registriesD],
          namespace: NAMESPACE,
          signed: image,
          pinned: `${repository}/app@${digest}`,
          unsigned,
          denial: /A signature was required, but no signature exists/,
        });
      },
    );

    await t.step(
      "a missing Secret, a missing key or a refusing registry fail the run clearly",
      async () => {
        const params = { IMAGE_URL: image, IMAGE_DIGEST: digest, TLS_VERIFY: "false" };
        const secrets = await namespaceSecrets(cluster, NAMESPACE);
        const setup = secrets["image-signing"];
        const noKey = {
          ...setup,
          data: { ...setup.data, "vault-key-id": btoa("0d1c2b3a-4c1d-4e8f-9a7b-000000000000") },
        };
        // A registry with the signature extension that refuses the signature (read-only access).
        await using refusing = serve(async (request) => {
          const url = new URL(request.url);
          if (url.pathname.startsWith("/extensions/v2/")) {
            // Reading is allowed (there are none yet); writing is not.
            if (request.method === "GET") return Response.json({ signatures: [] });
            return Response.json(
              {
                errors: [{ code: "DENIED", message: "requested access to the resource is denied" }],
              },
              { status: 403 },
            );
          }
          if (request.method === "POST" || request.method === "PUT") {
            // Nor may anything be pushed (the provenance's blobs and manifests).
            return Response.json(
              {
                errors: [{ code: "DENIED", message: "requested access to the resource is denied" }],
              },
              { status: 403 },
            );
          }
          const headers = new Headers(request.headers);
          headers.delete("host");
          const answer = await fetch(`http://${registry.host}${url.pathname}${url.search}`, {
            method: request.method,
            headers,
          });
          const out = new Headers(answer.headers);
          if (url.pathname === "/v2/") out.set("x-registry-supports-signatures", "1");
          return new Response(answer.body, { status: answer.status, headers: out });
        });
        const cases: [string, Record<string, string>, Record<string, unknown>, RegExp][] = [
          [
            "no Secret",
            params,
            {},
            /No signing setup: Secret "dev\/image-signing" \(mounted at .*\) does not exist or is empty\. Run `toolkit image-security setup-signing`/,
          ],
          [
            "no key",
            params,
            { "image-signing": noKey },
            /Cannot fetch key "0d1c2b3a-4c1d-4e8f-9a7b-000000000000": no key has this id in instance/,
          ],
          [
            "a registry refusing the signature",
            { ...params, IMAGE_URL: `${refusing.host}/demo/app:1` },
            secrets,
            /Cannot write a signature of .*: DENIED: requested access to the resource is denied/,
          ],
          [
            "no digest from the build",
            { ...params, IMAGE_DIGEST: "" },
            secrets,
            /the build reported none/,
          ],
        ];
        const other = await gpg.pushImage(`${repository}/app:other`, { content: "another\n" });
        const provenanceCases: [string, Record<string, string>, Record<string, unknown>, RegExp][] =
          [
            [
              "provenance: no Secret",
              { ...params, ...build },
              {},
              /No signing setup: Secret "dev\/image-signing" \(mounted at .*\) does not exist or is empty/,
            ],
            [
              "provenance: a registry refusing the upload",
              { ...params, ...build, IMAGE_URL: `${refusing.host}/demo/app:1` },
              secrets,
              /Cannot upload blob to .*: DENIED: requested access to the resource is denied/,
            ],
            [
              "provenance: a digest the tag does not serve",
              { ...params, ...build, IMAGE_DIGEST: other },
              secrets,
              /the registry serves sha256:[0-9a-f]{64} under that tag, not the digest given/,
            ],
            [
              "provenance: required, and no build parameters",
              { ...params, PROVENANCE_REQUIRED: "true" },
              secrets,
              /Cannot write the provenance: repository, revision, commit, pipeline, task, invocationId not given/,
            ],
          ];
        for (const [what, runParams, runSecrets, message] of provenanceCases) {
          const step = await runSignStep({
            step: "provenance",
            task: stored,
            taskRun: taskRun("provenance-fails", runParams),
            secrets: runSecrets,
          });
          try {
            assert.notEqual(step.code, 0, `${what}: ${step.stderr}`);
            assert.match(step.stderr, message, `${what}: ${step.stderr}`);
            assert.ok(!(step.stdout + step.stderr).includes(privateKeyLine), what);
          } finally {
            await step.dispose();
          }
        }
        // Nothing but the one provenance of the passing run was stored.
        assert.equal((await attestationEnvelopes(registry.url, "demo/app", digest)).length, 1);
        assert.equal((await attestationEnvelopes(registry.url, "demo/app", other)).length, 0);
        for (const [what, runParams, runSecrets, message] of cases) {
          const step = await runSignStep({
            task: stored,
            taskRun: taskRun("sign-fails", runParams),
            secrets: runSecrets,
            volumes: { "/workspace/signatures": signatures },
          });
          try {
            assert.notEqual(step.code, 0, `${what}: ${step.stderr}`);
            assert.match(step.stderr, message, `${what}: ${step.stderr}`);
            assert.ok(!(step.stdout + step.stderr).includes(privateKeyLine), what);
            assert.deepEqual(step.results, {}, what);
          } finally {
            await step.dispose();
          }
        }
      },
    );
  },
});

Deno.test({
  name:
    "toolkit-image-sign with a cosign key: the step stores a cosign bundle, sigstoreSigned admits it, cosign verifies its provenance",
  ignore: e2eSkipReason([...TOOLS, "cosign"]) !== undefined,
  fn: async () => {
    await using environment = await signingEnvironment("toolkit-sign-task-cosign-");
    const { cluster, registry, gpg, vault, env } = environment;
    const repository = `${registry.host}/cosigned`;
    const setup = await toolkit([
      "image-security",
      "setup-signing",
      "--format",
      "cosign",
      "--repository",
      `${repository}/*`,
      ...vault.flags,
    ], { ...env, IBMCLOUD_API_KEY: vault.apiKey });
    assert.equal(setup.status, 0, setup.err);
    assert.equal((await toolkit(["sync", NAMESPACE], env)).status, 0);

    const image = `${repository}/app:1`;
    const digest = await gpg.pushImage(image, { content: "built, to be signed by cosign\n" });
    const unsigned = `${repository}/app:unsigned`;
    await gpg.pushImage(unsigned, { content: "never signed\n" });
    const step = await runSignStep({
      task: JSON.parse(
        await kubectl(cluster, ["get", "task", "toolkit-image-sign", "-n", "tools", "-o", "json"]),
      ),
      taskRun: {
        apiVersion: "tekton.dev/v1",
        kind: "TaskRun",
        metadata: { name: "sign-cosign", namespace: NAMESPACE },
        spec: {
          taskRef: { name: "toolkit-image-sign" },
          params: [
            { name: "IMAGE_URL", value: image },
            { name: "IMAGE_DIGEST", value: digest },
            { name: "TLS_VERIFY", value: "false" },
          ],
        },
      },
      secrets: await namespaceSecrets(cluster, NAMESPACE),
    });
    try {
      assert.equal(step.code, 0, step.stderr);
      assert.equal(step.results.SIGNED_DIGEST, digest);
      assert.match(step.stderr, /Stored the bundle as referrer/);
      assert.match(step.stderr, /no transparency log/);
    } finally {
      await step.dispose();
    }

    // The provenance step: a bundle with the same cosign key, which cosign itself verifies.
    const provenance = await runSignStep({
      step: "provenance",
      task: JSON.parse(
        await kubectl(cluster, ["get", "task", "toolkit-image-sign", "-n", "tools", "-o", "json"]),
      ),
      taskRun: {
        apiVersion: "tekton.dev/v1",
        kind: "TaskRun",
        metadata: { name: "sign-cosign", namespace: NAMESPACE },
        spec: {
          taskRef: { name: "toolkit-image-sign" },
          params: Object.entries({
            IMAGE_URL: image,
            IMAGE_DIGEST: digest,
            TLS_VERIFY: "false",
            REPOSITORY_URL: "https://git.example/team/app",
            REVISION: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
            PIPELINE_NAME: "app-build",
            BUILD_TASK: "build",
            PIPELINE_RUN_UID: "8f1c2e1a-0000-4000-8000-000000000002",
            PROVENANCE_REQUIRED: "true",
          }).map(([name, value]) => ({ name, value })),
        },
      },
      secrets: await namespaceSecrets(cluster, NAMESPACE),
    });
    try {
      assert.equal(provenance.code, 0, provenance.stderr);
      assert.match(provenance.stderr, /Stored the attestation bundle as referrer/);
    } finally {
      await provenance.dispose();
    }
    await using cosign = await startCosign();
    const keySecret = (await namespaceSecrets(cluster, "toolkit-system"))["image-signing-key"];
    const publicKeyFile = `${environment.dir.path}/cosign.pub`;
    await Deno.writeTextFile(publicKeyFile, atob(keySecret.data.key));
    const verified = await cosign.run([
      "verify-attestation",
      "--key",
      publicKeyFile,
      "--type",
      "slsaprovenance1",
      "--insecure-ignore-tlog",
      "--allow-insecure-registry",
      "--new-bundle-format",
      image,
    ]);
    assert.equal(verified.code, 0, verified.stderr);
    const statement = JSON.parse(atob(JSON.parse(verified.stdout.trim().split("\n")[0]!).payload));
    assert.equal(
      statement.predicate.runDetails.metadata.invocationId,
      "8f1c2e1a-0000-4000-8000-000000000002",
    );
    assert.equal(statement.predicate.buildDefinition.externalParameters.task, "build");

    await assertEnforced(cluster, {
      webhookArgs: ["--insecure-registry", registry.host],
      namespace: NAMESPACE,
      signed: image,
      pinned: `${repository}/app@${digest}`,
      unsigned,
      denial: /denied the request: .*signature/i,
    });
  },
});
