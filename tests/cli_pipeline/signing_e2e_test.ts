/**
 * The signing pipeline, the whole chain, with real components wherever they can run here: the
 * real kube-apiserver (toolkit and Tekton CRDs), the real Gitea, Tekton Triggers' own
 * EventListener sink and interceptors, Tekton Pipelines' own code (validation, the PipelineRun
 * and TaskRun reconcilers' resolution, the pod builder), the distribution registry behind a
 * stand-in of the registry signature extension (IBM Cloud Container Registry's and OpenShift's,
 * served over HTTPS), the webhook process, and the Key Protect stand-in (a cloud service):
 *
 * `setup-signing` → `pipeline` (the copied pipeline runs the signing Task after the build) →
 * `git push` to Gitea → the PipelineRun made by Triggers' sink → the build's image pushed (the
 * one step the test plays: no Pod runs here) → the signing step run as that PipelineRun would
 * run it → a Pod of the image admitted and pinned through the API server, and the same
 * repository's unsigned image denied.
 */
import assert from "node:assert/strict";
import {
  e2eSkipReason,
  GITEA_ADMIN,
  issueCert,
  LOOPBACK_SANS,
  makeCA,
  pipelineTaskRun,
  startCluster,
  startEventListenerSink,
  startGitea,
  startGpg,
  startInterceptors,
  startRegistry,
  TEKTON_TRIGGERS_TOOLS,
  tektonValidate,
  waitFor,
} from "../env/mod.ts";
import { apply, copyKubeconfig, getJson, kubectl, tempDir, toolkit } from "../cli_dev/helpers.ts";
import { createNamespaces } from "../admission/_webhook.ts";
import { startExtensionRegistry } from "../fakes/signature_extension_registry.ts";
import {
  assertEnforced,
  attestationEnvelopes,
  namespaceSecrets,
  runSignStep,
  startSigningVault,
  verifiedOpenPgpStatement,
} from "../tekton/_sign_step.ts";
import { templateObjects } from "./_templates.ts";

interface PipelineRun {
  metadata: { name: string };
  spec: { params: { name: string; value: string }[]; pipelineRef: { name: string } };
}

Deno.test({
  name:
    "setup-signing, pipeline, a push to Gitea, the sink's PipelineRun, its signing step: the webhook admits the image",
  ignore: e2eSkipReason([
    "kube-apiserver",
    "etcd",
    "kubectl",
    "openssl",
    "git",
    "gitea",
    "docker-registry",
    "skopeo",
    "gpg",
    "gpgconf",
    "tekton-pipeline",
    ...TEKTON_TRIGGERS_TOOLS,
  ]) !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster({ crds: ["toolkit", "tekton"] });
    await using gitea = await startGitea();
    await using backend = await startRegistry();
    await using gpg = await startGpg();
    await using vault = await startSigningVault();
    await using dir = await tempDir("toolkit-signing-chain-");
    // The registry as a cluster reaches it: HTTPS, with the signature extension.
    const ca = await makeCA(dir.path, "registry-ca");
    const cert = await issueCert(dir.path, ca, {
      name: "registry",
      cn: "registry",
      sans: LOOPBACK_SANS,
    });
    await using registry = startExtensionRegistry(backend.url, {
      cert: cert.certPem,
      key: cert.keyPem,
    });
    const caFile = `${dir.path}/registry-ca.crt`;
    await Deno.writeTextFile(caFile, ca.certPem);
    const env = { KUBECONFIG: await copyKubeconfig(cluster, dir.path), HOME: dir.path };

    const repo = await gitea.createRepo("shop-frontend", [
      { path: "package.json", content: '{"name":"shop-frontend","version":"1.0.0"}\n' },
      { path: "server.js", content: "require('http').createServer().listen(8080);\n" },
    ]);
    await createNamespaces(cluster, ["tools", "toolkit-system", "dev"]);
    await apply(cluster, ...templateObjects("tools"));
    await using _interceptors = await startInterceptors(cluster);
    await using sink = await startEventListenerSink(cluster, {
      namespace: "dev",
      eventListener: "tekton",
    });
    const repository = `${registry.host}/demo`;

    await t.step("setup-signing: key in the vault, Secret, Task and policy", async () => {
      const r = await toolkit([
        "image-security",
        "setup-signing",
        "--repository",
        `${repository}/*`,
        ...vault.flags,
      ], { ...env, IBMCLOUD_API_KEY: vault.apiKey });
      assert.equal(r.status, 0, r.err);
    });

    let firstRun = "";
    let firstCommit = "";
    await t.step("pipeline: the copied pipeline signs what ibm-build pushes", async () => {
      const args = [
        "pipeline",
        `${repo.cloneUrl}#main`,
        "--tekton",
        "-n",
        "dev",
        "-u",
        GITEA_ADMIN.username,
        "-P",
        gitea.token,
        "-p",
        `image-server=${registry.host}`,
        "--listener-url",
        sink.url,
        "--no-wait",
      ];
      // The first run starts at the branch's head commit.
      const r = await toolkit([...args, "-o", "json"], env);
      assert.equal(r.status, 0, r.err);
      const report = JSON.parse(r.out);
      firstRun = report.pipelineRun;
      firstCommit = report.commit;
      const head = await gitea.api("GET", `/repos/${repo.fullName}/branches/main`) as {
        commit: { id: string };
      };
      assert.equal(firstCommit, head.commit.id);
      assert.deepEqual(report.signing, {
        task: "image-sign",
        after: "ibm-build",
        secret: 'Secret "dev/image-signing" (from tools)',
      });
      const again = await toolkit([...args, "--no-start", "-o", "json"], env);
      assert.equal(again.status, 0, again.err);
      for (const result of JSON.parse(again.out).results) {
        assert.equal(result.outcome, "unchanged", JSON.stringify(result));
      }
      // Tekton's own validation accepts the pipeline and Tasks as the API server has them.
      const objects = await Promise.all([
        getJson(cluster, ["pipeline", "shop-frontend", "-n", "dev"]),
        getJson(cluster, ["task", "toolkit-image-sign", "-n", "dev"]),
        getJson(cluster, ["task", "ibm-build", "-n", "dev"]),
      ]);
      const verdicts = await tektonValidate(objects);
      assert.deepEqual(verdicts.map((v) => [v.kind, v.name, v.error]), [
        ["Pipeline", "shop-frontend", ""],
        ["Task", "toolkit-image-sign", ""],
        ["Task", "ibm-build", ""],
      ]);
    });

    await t.step(
      "the first run's provenance names the branch's head commit, not the branch",
      async () => {
        const pipeline = await getJson(cluster, ["pipeline", "shop-frontend", "-n", "dev"]);
        const pipelineRun = await getJson(cluster, ["pipelinerun", firstRun, "-n", "dev"]);
        const taskRun = await pipelineTaskRun({
          pipeline,
          pipelineRun,
          pipelineTask: "image-sign",
          results: {
            "ibm-build": {
              IMAGE_URL: `${repository}/shop-frontend:1`,
              IMAGE_DIGEST: `sha256:${"0".repeat(64)}`,
            },
          },
        });
        const given = Object.fromEntries(
          (taskRun.spec.params as { name: string; value: string }[]).map((p) => [p.name, p.value]),
        );
        assert.equal(given.REVISION, firstCommit);
        assert.equal(given.COMMIT, firstCommit);
      },
    );

    let run: PipelineRun | undefined;
    let commit = "";
    await t.step("a push to Gitea makes the sink start a PipelineRun", async () => {
      commit = await gitea.pushCommit(repo, [{ path: "README.md", content: "# shop\n" }]);
      await waitFor("the PipelineRun of the pushed commit", async () => {
        const list = JSON.parse(
          await kubectl(cluster, ["get", "pipelineruns", "-n", "dev", "-o", "json"]),
        ) as { items: PipelineRun[] };
        run = list.items.find((r) =>
          r.spec.params.some((p) => p.name === "git-revision" && p.value === commit)
        );
        return run !== undefined;
      }, { process: sink.process, timeoutMs: 60_000 });
      assert.equal(run!.spec.pipelineRef.name, "shop-frontend");
    });

    // What ibm-build would do in that run: push the image and report it (Tekton's results).
    const image = `${repository}/shop-frontend:${commit.slice(0, 12)}`;
    const digest = await gpg.pushImage(
      `${backend.host}/demo/shop-frontend:${commit.slice(0, 12)}`,
      { content: `shop-frontend at ${commit}\n` },
    );
    const unsigned = `${repository}/shop-frontend:unsigned`;
    await gpg.pushImage(`${backend.host}/demo/shop-frontend:unsigned`, { content: "unsigned\n" });

    // deno-lint-ignore no-explicit-any
    let signTaskRun: any;
    await t.step("the signing step, run as the PipelineRun runs it, signs the image", async () => {
      const pipeline = await getJson(cluster, ["pipeline", "shop-frontend", "-n", "dev"]);
      const pipelineRun = await getJson(cluster, ["pipelinerun", run!.metadata.name, "-n", "dev"]);
      const taskRun = await pipelineTaskRun({
        pipeline,
        pipelineRun,
        pipelineTask: "image-sign",
        results: { "ibm-build": { IMAGE_URL: image, IMAGE_DIGEST: digest } },
      });
      // The provenance's parameters, resolved by Tekton's own code from the run: the git
      // parameters the PipelineRun got, its pipeline's name and its uid.
      assert.deepEqual(taskRun.spec.params, [
        { name: "IMAGE_URL", value: image },
        { name: "IMAGE_DIGEST", value: digest },
        { name: "REPOSITORY_URL", value: repo.cloneUrl },
        { name: "REVISION", value: commit },
        { name: "COMMIT", value: commit },
        { name: "PIPELINE_NAME", value: "shop-frontend" },
        { name: "BUILD_TASK", value: "ibm-build" },
        { name: "PIPELINE_RUN_UID", value: pipelineRun!.metadata.uid },
        { name: "PROVENANCE_REQUIRED", value: "true" },
      ]);
      signTaskRun = taskRun;
      assert.equal(taskRun.spec.serviceAccountName, "pipeline");
      const step = await runSignStep({
        task: await getJson(cluster, ["task", "toolkit-image-sign", "-n", "dev"]),
        taskRun,
        secrets: await namespaceSecrets(cluster, "dev"),
        trust: caFile,
      });
      try {
        assert.equal(step.code, 0, step.stderr);
        assert.equal(step.results.SIGNED_DIGEST, digest);
        assert.equal(step.results.SIGNATURE_STORE, `the signature extension of ${registry.host}`);
        assert.equal(registry.signatures.get(`demo/shop-frontend@${digest}`)?.length, 1);
        const line = await vault.privateKeyLine();
        assert.ok(!`${step.argv.join(" ")} ${step.stdout} ${step.stderr}`.includes(line));
      } finally {
        await step.dispose();
      }
    });

    await t.step(
      "the provenance step attests the build with the same key: SLSA v1 in the .att tag",
      async () => {
        const step = await runSignStep({
          step: "provenance",
          task: await getJson(cluster, ["task", "toolkit-image-sign", "-n", "dev"]),
          taskRun: signTaskRun,
          secrets: await namespaceSecrets(cluster, "dev"),
          trust: caFile,
        });
        try {
          assert.equal(step.code, 0, step.stderr);
          assert.match(step.stderr, /Added the attestation to .*\.att \(1 attestation there now\)/);
          const line = await vault.privateKeyLine();
          assert.ok(!`${step.argv.join(" ")} ${step.stdout} ${step.stderr}`.includes(line));
        } finally {
          await step.dispose();
        }
        const found = await attestationEnvelopes(backend.url, "demo/shop-frontend", digest);
        assert.deepEqual(found.map((a) => a.predicateType), ["https://slsa.dev/provenance/v1"]);
        const keySecret = await getJson(cluster, [
          "secret",
          "image-signing-key",
          "-n",
          "toolkit-system",
        ]);
        const statement = await verifiedOpenPgpStatement(
          found[0]!.envelope,
          atob((keySecret!.data as Record<string, string>).key!),
        );
        assert.deepEqual(statement.subject, [{
          name: `${registry.host}/demo/shop-frontend`,
          digest: { sha256: digest.slice("sha256:".length) },
        }]);
        const predicate = statement.predicate;
        assert.equal(
          predicate.buildDefinition.buildType,
          "https://toolkit.dev/tekton/image-build/v1",
        );
        assert.deepEqual(predicate.buildDefinition.externalParameters, {
          repository: repo.cloneUrl,
          revision: commit,
          pipeline: "shop-frontend",
          task: "ibm-build",
        });
        assert.deepEqual(predicate.buildDefinition.resolvedDependencies, [{
          uri: `git+${repo.cloneUrl}`,
          digest: { sha1: commit },
        }]);
        assert.equal(predicate.runDetails.builder.id, "https://toolkit.dev/tekton/tools");
        const pipelineRun = await getJson(cluster, [
          "pipelinerun",
          run!.metadata.name,
          "-n",
          "dev",
        ]);
        assert.equal(predicate.runDetails.metadata.invocationId, pipelineRun!.metadata.uid);
      },
    );

    await t.step(
      "the webhook admits the signed image, pinned, and denies the unsigned one",
      async () => {
        await assertEnforced(cluster, {
          webhookArgs: ["--registry-ca-file", caFile],
          namespace: "dev",
          signed: image,
          pinned: `${repository}/shop-frontend@${digest}`,
          unsigned,
          denial: /A signature was required, but no signature exists/,
        });
      },
    );
  },
});
