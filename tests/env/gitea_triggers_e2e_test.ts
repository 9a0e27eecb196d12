/**
 * The test environment's Gitea and Tekton Triggers work together: a real `git push` to Gitea is
 * delivered by Gitea's webhook (with its secret) to Tekton's EventListener sink, which checks it
 * with Tekton's `github` and `cel` interceptors and creates a PipelineRun with the pushed
 * repository and commit. The EventListener, TriggerBinding and TriggerTemplate are written by hand
 * here; no Tekton controller runs, so the PipelineRun is created and never started. A second hook
 * records the same delivery for Tekton's `cel-eval` and `binding-eval`.
 */
import assert from "node:assert/strict";
import {
  bindingEval,
  celEval,
  e2eSkipReason,
  freePort,
  type HttpRequest,
  kubectlOk,
  startCluster,
  startEventListenerSink,
  startGitea,
  startInterceptors,
  TEKTON_TRIGGERS_TOOLS,
  waitFor,
} from "./mod.ts";

const NAMESPACE = "ci";
const WEBHOOK_SECRET = "gitea-webhook-secret-for-tests";

function listenerObjects(repoFullName: string): string {
  return `
apiVersion: v1
kind: ServiceAccount
metadata: {name: pipeline, namespace: ${NAMESPACE}}
---
apiVersion: v1
kind: Secret
metadata: {name: gitea-webhook, namespace: ${NAMESPACE}}
stringData: {secretToken: ${WEBHOOK_SECRET}}
---
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerBinding
metadata: {name: demo-app-main, namespace: ${NAMESPACE}}
spec:
  params:
    - {name: git-url, value: $(body.repository.clone_url)}
    - {name: git-revision, value: $(body.after)}
---
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata: {name: demo-app-main, namespace: ${NAMESPACE}}
spec:
  params:
    - {name: git-url}
    - {name: git-revision}
  resourcetemplates:
    - apiVersion: tekton.dev/v1
      kind: PipelineRun
      metadata:
        generateName: demo-app-
        labels: {app: demo-app}
      spec:
        pipelineRef: {name: demo-app}
        taskRunTemplate: {serviceAccountName: pipeline}
        params:
          - {name: git-url, value: $(tt.params.git-url)}
          - {name: git-revision, value: $(tt.params.git-revision)}
---
apiVersion: triggers.tekton.dev/v1beta1
kind: EventListener
metadata: {name: tekton, namespace: ${NAMESPACE}}
spec:
  serviceAccountName: pipeline
  triggers:
    - name: demo-app-main
      interceptors:
        - ref: {name: github, kind: ClusterInterceptor}
          params:
            - name: secretRef
              value: {secretName: gitea-webhook, secretKey: secretToken}
            - name: eventTypes
              value: [push]
        - ref: {name: cel, kind: ClusterInterceptor}
          params:
            - name: filter
              value: ${JSON.stringify(giteaPushFilter(repoFullName))}
      bindings:
        - {kind: TriggerBinding, ref: demo-app-main}
      template:
        ref: demo-app-main
`;
}

function giteaPushFilter(repoFullName: string): string {
  return `header.match('X-Gitea-Event', 'push') && body.ref == 'refs/heads/main' && ` +
    `body.repository.full_name == '${repoFullName}'`;
}

interface PipelineRun {
  metadata: { name: string };
  spec: { params: { name: string; value: string }[] };
}

Deno.test({
  name: "a git push to Gitea makes Tekton's EventListener sink create a PipelineRun for the commit",
  ignore: e2eSkipReason([
    "kube-apiserver",
    "etcd",
    "kubectl",
    "openssl",
    "git",
    "gitea",
    ...TEKTON_TRIGGERS_TOOLS,
  ]) !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster({ crds: ["tekton"] });
    await using gitea = await startGitea();

    const repo = await gitea.createRepo("demo-app", [
      { path: "go.mod", content: "module example.com/demo-app\n\ngo 1.22\n" },
      { path: "cmd/demo/main.go", content: "package main\n\nfunc main() {}\n" },
    ]);

    await t.step("Gitea's API gives the repository's default branch and tree", async () => {
      const info = await gitea.api("GET", `/repos/${repo.fullName}`) as { default_branch: string };
      assert.equal(info.default_branch, "main");
      const tree = await gitea.api(
        "GET",
        `/repos/${repo.fullName}/git/trees/main?recursive=true`,
      ) as { tree: { path: string; type: string }[] };
      assert.deepEqual(
        tree.tree.filter((e) => e.type === "blob").map((e) => e.path).sort(),
        ["cmd/demo/main.go", "go.mod"],
      );
    });

    await kubectlOk(cluster, ["create", "namespace", NAMESPACE]);
    await kubectlOk(cluster, ["apply", "-f", "-"], listenerObjects(repo.fullName));
    await using _interceptors = await startInterceptors(cluster);
    await using sink = await startEventListenerSink(cluster, {
      namespace: NAMESPACE,
      eventListener: "tekton",
    });

    // A second hook to a listener of the test's own, to keep the delivery Gitea sends.
    const deliveries: HttpRequest[] = [];
    const recorderPort = freePort();
    await using _recorder = Deno.serve(
      { hostname: "127.0.0.1", port: recorderPort, onListen: () => {} },
      async (request) => {
        deliveries.push({
          path: new URL(request.url).pathname,
          headers: Object.fromEntries(request.headers),
          body: await request.text(),
        });
        return new Response("recorded");
      },
    );
    for (const url of [sink.url, `http://127.0.0.1:${recorderPort}/gitea`]) {
      await gitea.api("POST", `/repos/${repo.fullName}/hooks`, {
        type: "gitea",
        active: true,
        events: ["push"],
        branch_filter: "*",
        config: { url, content_type: "json", secret: WEBHOOK_SECRET },
      });
    }

    const commit = await gitea.pushCommit(repo, [
      { path: "README.md", content: "# demo-app\n" },
    ], { message: "Add a README" });

    await t.step("the push creates a PipelineRun with the repository and the commit", async () => {
      let runs: PipelineRun[] = [];
      await waitFor("a PipelineRun made by the EventListener sink", async () => {
        const out = await kubectlOk(cluster, [
          "get",
          "pipelineruns",
          "-n",
          NAMESPACE,
          "-o",
          "json",
        ]);
        runs = (JSON.parse(out) as { items: PipelineRun[] }).items;
        return runs.length > 0;
      }, { process: sink.process, timeoutMs: 60_000 });
      assert.equal(runs.length, 1);
      const params = Object.fromEntries(runs[0]!.spec.params.map((p) => [p.name, p.value]));
      assert.deepEqual(params, { "git-url": repo.cloneUrl, "git-revision": commit });
    });

    await t.step("Tekton's evaluators accept the recorded Gitea delivery", async () => {
      await waitFor("the recorded delivery", () => Promise.resolve(deliveries.length > 0));
      const delivery = deliveries[0]!;
      assert.equal(delivery.headers["x-gitea-event"], "push");
      assert.equal(await celEval(giteaPushFilter(repo.fullName), delivery), "true");
      assert.equal(await celEval(giteaPushFilter("someone/else"), delivery), "false");
      const binding = listenerObjects(repo.fullName).split("\n---\n")
        .find((doc) => doc.includes("kind: TriggerBinding"))!;
      assert.deepEqual(await bindingEval(binding, delivery), {
        "git-url": repo.cloneUrl,
        "git-revision": commit,
      });
    });
  },
});
