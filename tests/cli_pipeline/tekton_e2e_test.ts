/**
 * `toolkit pipeline --tekton` end to end, on plain Kubernetes: the real kube-apiserver with
 * Tekton's CRDs, the real Gitea as the git host, and Tekton Triggers' own EventListener sink and
 * core interceptors. No Tekton controller runs here, so the test plays its part where it must:
 * the EventListener's Deployment `el-tekton` is created by the test and its Pod reported ready
 * by the kubelet stand-in, and the sink runs as a process on a loopback port that Gitea delivers
 * to (`--listener-url`). The proof is the chain: `pipeline` sets everything up, a `git push` to
 * Gitea reaches the sink through the webhook `pipeline` registered (with its secret), and the
 * sink creates a PipelineRun of the copied pipeline with the pushed repository and commit.
 */
import assert from "node:assert/strict";
import {
  e2eSkipReason,
  GITEA_ADMIN,
  startCluster,
  startEventListenerSink,
  startGitea,
  startInterceptors,
  startPendingPods,
  TEKTON_TRIGGERS_TOOLS,
  type TestCluster,
  waitFor,
} from "../env/mod.ts";
import {
  apply,
  copyKubeconfig,
  getJson,
  kubectl,
  type Obj,
  tempDir,
  toolkit,
} from "../cli_dev/helpers.ts";
import { templateObjects } from "./_templates.ts";

interface PipelineRun {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { params: { name: string; value: string }[]; pipelineRef: { name: string } };
}

async function pipelineRuns(cluster: TestCluster, namespace: string): Promise<PipelineRun[]> {
  const out = await kubectl(cluster, ["get", "pipelineruns", "-n", namespace, "-o", "json"]);
  return (JSON.parse(out) as { items: PipelineRun[] }).items;
}

function params(run: PipelineRun): Record<string, string> {
  return Object.fromEntries(run.spec.params.map((p) => [p.name, p.value]));
}

/** What Tekton Triggers' controller would make for the EventListener: its Deployment. */
function listenerDeployment(namespace: string): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "el-tekton", namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { eventlistener: "tekton" } },
      template: {
        metadata: { labels: { eventlistener: "tekton" } },
        spec: { containers: [{ name: "event-listener", image: "tekton-el:stand-in" }] },
      },
    },
  } as unknown as Obj;
}

Deno.test({
  name: "pipeline --tekton connects a Gitea repository: a push starts a PipelineRun",
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
    await using dir = await tempDir("toolkit-pipeline-");
    const env = { KUBECONFIG: await copyKubeconfig(cluster, dir.path), HOME: dir.path };
    const repo = await gitea.createRepo("demo.app", [
      { path: "package.json", content: '{"name":"demo-app","version":"1.0.0"}\n' },
      { path: "server.js", content: "console.log('hello');\n" },
    ]);

    await kubectl(cluster, ["create", "namespace", "tools"]);
    await kubectl(cluster, ["create", "namespace", "dev"]);
    await kubectl(cluster, ["create", "namespace", "empty"]);
    await apply(cluster, ...templateObjects("tools"));
    await apply(cluster, listenerDeployment("dev"));
    await using _interceptors = await startInterceptors(cluster);
    await using sink = await startEventListenerSink(cluster, {
      namespace: "dev",
      eventListener: "tekton",
    });
    // The kubelet stand-in reports the listener's Pod ready, as a real node would.
    let running = true;
    const kubelet = (async () => {
      while (running) {
        await startPendingPods(cluster, "dev").catch(() => 0);
        await new Promise((r) => setTimeout(r, 300));
      }
    })();

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
      "image-server=quay.io",
      "--ingress-host",
      "el-tekton.dev.example.com",
      "--listener-url",
      sink.url,
    ];

    try {
      await t.step(
        "the first run sets everything up, starts a run and registers the hook",
        async () => {
          const r = await toolkit([...args, "-o", "json"], env);
          assert.equal(r.status, 0, r.err);
          const report = JSON.parse(r.out);
          assert.equal(report.pipeline, "demo-app");
          assert.equal(report.runtime, "nodejs");
          assert.equal(report.template, "tools/ibm-nodejs");
          assert.equal(report.gitHost, "gitea");
          assert.equal(report.branch, "main");
          assert.equal(report.webhook.action, "created");
          assert.match(r.err, /tkn pipelinerun logs -f demo-app-\S+ -n dev/);

          // The pipeline, under the repository's name, with the answers as defaults.
          const pipeline = await getJson(cluster, ["pipeline", "demo-app", "-n", "dev"]);
          const defaults = Object.fromEntries(
            (pipeline?.spec as { params: { name: string; default?: string }[] }).params
              .map((p) => [p.name, p.default]),
          );
          assert.equal(defaults["image-server"], "quay.io");
          assert.equal(defaults["scan-image"], "true");
          assert.equal(pipeline?.metadata.labels?.app, "demo-app");
          // Only the Tasks it uses, without the Argo CD instance label.
          const tasks = await kubectl(cluster, ["get", "tasks", "-n", "dev", "-o", "name"]);
          assert.deepEqual(tasks.trim().split("\n").sort(), [
            "task.tekton.dev/ibm-build",
            "task.tekton.dev/ibm-setup",
          ]);
          const setup = await getJson(cluster, ["task", "ibm-setup", "-n", "dev"]);
          assert.equal(setup?.metadata.labels?.["argocd.argoproj.io/instance"], undefined);

          // The EventListener's account and grants, which plain Kubernetes does not have.
          assert.ok(await getJson(cluster, ["serviceaccount", "pipeline", "-n", "dev"]));
          assert.ok(await getJson(cluster, ["role", "toolkit-tekton-eventlistener", "-n", "dev"]));
          // The listener, its one trigger, the Ingress.
          const listener = await getJson(cluster, ["eventlistener", "tekton", "-n", "dev"]);
          const triggers = (listener?.spec as { triggers: { name: string }[] }).triggers;
          assert.equal(triggers.length, 1);
          const ingress = await getJson(cluster, ["ingress", "el-tekton", "-n", "dev"]);
          assert.equal(
            (ingress?.spec as { rules: { host: string }[] }).rules[0]!.host,
            "el-tekton.dev.example.com",
          );
          // The git credentials, for the pipeline's clone.
          const secret = await getJson(cluster, ["secret", "git-credentials", "-n", "dev"]);
          assert.equal(secret?.type, "kubernetes.io/basic-auth");

          // The first run: the repository and the commit the branch points to, as Gitea says.
          const head = await gitea.api("GET", `/repos/${repo.fullName}/branches/main`) as {
            commit: { id: string };
          };
          assert.match(head.commit.id, /^[0-9a-f]{40}$/);
          assert.equal(report.commit, head.commit.id);
          const runs = await pipelineRuns(cluster, "dev");
          assert.equal(runs.length, 1);
          assert.equal(runs[0]!.metadata.name, report.pipelineRun);
          assert.deepEqual(params(runs[0]!), {
            "git-url": repo.cloneUrl.replace(/\.git$/, ""),
            "git-revision": head.commit.id,
            "scan-image": "true",
            "image-server": "quay.io",
          });

          // One hook, to the listener, with a secret.
          const hooks = await gitea.api("GET", `/repos/${repo.fullName}/hooks`) as {
            config: { url: string };
            events: string[];
          }[];
          assert.equal(hooks.length, 1);
          assert.equal(hooks[0]!.config.url, sink.url);
        },
      );

      await t.step("a second run changes nothing and adds no hook", async () => {
        const r = await toolkit([...args, "--no-start", "-o", "json"], env);
        assert.equal(r.status, 0, r.err);
        const report = JSON.parse(r.out);
        for (const result of report.results) {
          assert.equal(result.outcome, "unchanged", JSON.stringify(result));
        }
        assert.ok(["unchanged", "updated"].includes(report.webhook.action));
        const hooks = await gitea.api("GET", `/repos/${repo.fullName}/hooks`) as unknown[];
        assert.equal(hooks.length, 1);
        assert.equal((await pipelineRuns(cluster, "dev")).length, 1);
      });

      await t.step("a push to the branch makes the sink start a run of the commit", async () => {
        const commit = await gitea.pushCommit(repo, [{ path: "README.md", content: "# demo\n" }]);
        let run: PipelineRun | undefined;
        await waitFor("a PipelineRun of the pushed commit", async () => {
          run = (await pipelineRuns(cluster, "dev")).find((r) =>
            params(r)["git-revision"] === commit
          );
          return run !== undefined;
        }, { process: sink.process, timeoutMs: 60_000 });
        assert.equal(run!.spec.pipelineRef.name, "demo-app");
        assert.equal(params(run!)["git-url"], repo.cloneUrl);
        assert.equal(params(run!)["scan-image"], "true");
      });

      await t.step("a push to another branch starts nothing", async () => {
        const before = (await pipelineRuns(cluster, "dev")).length;
        await gitea.api("POST", `/repos/${repo.fullName}/branches`, {
          new_branch_name: "feature",
          old_branch_name: "main",
        });
        await gitea.pushCommit(repo, [{ path: "x.txt", content: "x\n" }], { branch: "feature" });
        // The hook fires for every branch; the trigger's filter drops this one. Give the
        // delivery time to arrive, then check that nothing was made.
        await new Promise((r) => setTimeout(r, 3000));
        assert.equal((await pipelineRuns(cluster, "dev")).length, before);
      });

      await t.step("--dry-run prints every object and writes nothing", async () => {
        const r = await toolkit([...args, "--dry-run", "-o", "json"], env);
        assert.equal(r.status, 0, r.err);
        const list = JSON.parse(r.out) as { items: Obj[] };
        const kinds = list.items.map((o) => o.kind);
        for (
          const kind of [
            "Task",
            "Pipeline",
            "TriggerTemplate",
            "TriggerBinding",
            "EventListener",
            "Ingress",
            "PipelineRun",
          ]
        ) assert.ok(kinds.includes(kind), kind);
        assert.doesNotMatch(r.out, new RegExp(gitea.token));
        assert.equal((await pipelineRuns(cluster, "dev")).length >= 2, true);
      });

      await t.step(
        "a hook the host refuses leaves the rest in place, says what to register, exits 1",
        async () => {
          // A token that may read the repository but not change its hooks.
          const made = await fetch(`${gitea.url}/api/v1/users/${GITEA_ADMIN.username}/tokens`, {
            method: "POST",
            headers: {
              Authorization: `Basic ${btoa(`${GITEA_ADMIN.username}:${GITEA_ADMIN.password}`)}`,
              "Content-Type": "application/json",
            },
            body: JSON.stringify({ name: "read-only", scopes: ["read:repository", "read:user"] }),
          });
          assert.equal(made.status, 201, await made.clone().text());
          const readOnly = (await made.json() as { sha1: string }).sha1;
          await kubectl(cluster, ["create", "namespace", "dev2"]);
          const r = await toolkit(
            [
              "pipeline",
              `${repo.cloneUrl}#main`,
              "--tekton",
              "-n",
              "dev2",
              "-u",
              GITEA_ADMIN.username,
              "-P",
              readOnly,
              "--listener-url",
              "http://listener.example.com/dev2",
              "--no-wait",
            ],
            env,
          );
          assert.equal(r.status, 1, r.err);
          assert.match(r.err, /The webhook could not be created: .*HTTP 403/);
          assert.match(
            r.err,
            /Register it by hand on Gitea: URL http:\/\/listener\.example\.com\/dev2, content type JSON, secret [0-9a-f]{48}, event "push"/,
          );
          assert.match(r.err, /The pipeline is registered, but 1 step\(s\) failed/);
          // Everything else is there.
          assert.ok(await getJson(cluster, ["pipeline", "demo-app", "-n", "dev2"]));
          assert.ok(await getJson(cluster, ["eventlistener", "tekton", "-n", "dev2"]));
          assert.equal((await pipelineRuns(cluster, "dev2")).length, 1);
        },
      );

      await t.step("bad input fails clearly", async () => {
        const cases: [string[], number, RegExp][] = [
          [[...args, "-t", "empty"], 1, /no template pipelines in namespace "empty"/],
          [[...args.slice(0, 4), "nope", ...args.slice(5)], 1, /namespace "nope"/],
          [[...args, "--pipeline", "nope"], 2, /no template pipeline "nope": choose one of/],
          [["pipeline", "not a url", "--tekton", "-n", "dev"], 2, /Cannot parse git URL/],
          [
            [...args.slice(0, 7), "-P", "wrong-token", ...args.slice(9)],
            1,
            /401|refused|authenticat/i,
          ],
          [
            [
              "pipeline",
              "http://127.0.0.1:1/o/r#main",
              "--tekton",
              "-n",
              "dev",
              "-u",
              "a",
              "-P",
              "b",
            ],
            1,
            /reach|connect/i,
          ],
          [["pipeline", `${repo.cloneUrl}#main`, "-n", "dev"], 2, /--tekton or --jenkins/],
        ];
        for (const [argv, status, message] of cases) {
          const r = await toolkit(argv, env);
          assert.equal(r.status, status, `${argv.join(" ")}\n${r.err}`);
          assert.match(r.err, message, argv.join(" "));
          assert.doesNotMatch(r.err, new RegExp(gitea.token));
        }
      });
    } finally {
      running = false;
      await kubelet;
    }
  },
});

Deno.test({
  name: "pipeline --tekton on OpenShift exposes the listener by a Route whose host is kept",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl", "openssl", "git", "gitea"]) !==
    undefined,
  fn: async () => {
    await using cluster = await startCluster({ crds: ["tekton", "openshift"] });
    await using gitea = await startGitea();
    await using dir = await tempDir("toolkit-pipeline-");
    const env = { KUBECONFIG: await copyKubeconfig(cluster, dir.path), HOME: dir.path };
    const repo = await gitea.createRepo("go-service", [
      { path: "go.mod", content: "module example.com/go-service\n\ngo 1.22\n" },
    ]);
    await kubectl(cluster, ["create", "namespace", "tools"]);
    await kubectl(cluster, ["create", "namespace", "dev"]);
    await apply(cluster, ...templateObjects("tools"));
    const args = [
      "pipeline",
      repo.cloneUrl,
      "--tekton",
      "-n",
      "dev",
      "-u",
      GITEA_ADMIN.username,
      "-P",
      gitea.token,
      "--no-wait",
      "--skipWebhook",
      "--no-start",
    ];
    let r = await toolkit([...args, "-o", "json"], env);
    assert.equal(r.status, 0, r.err);
    assert.equal(JSON.parse(r.out).template, "tools/ibm-golang");
    // The router assigns the host; toolkit's next apply must keep it (igc's PUT dropped it).
    await kubectl(cluster, [
      "patch",
      "route",
      "el-tekton",
      "-n",
      "dev",
      "--type=merge",
      "-p",
      '{"spec":{"host":"el-tekton-dev.apps.example.com"}}',
    ]);
    r = await toolkit([...args, "-o", "json"], env);
    assert.equal(r.status, 0, r.err);
    const report = JSON.parse(r.out);
    assert.equal(report.listenerUrl, "https://el-tekton-dev.apps.example.com");
    const route = await getJson(cluster, ["route", "el-tekton", "-n", "dev"]);
    const spec = route?.spec as { host: string; port: { targetPort: string }; tls: unknown };
    assert.equal(spec.host, "el-tekton-dev.apps.example.com");
    assert.equal(spec.port.targetPort, "http-listener");
    assert.deepEqual(spec.tls, { termination: "edge", insecureEdgeTerminationPolicy: "Allow" });
  },
});
