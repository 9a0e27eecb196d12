/**
 * toolkit's trigger objects at work, end to end: the TriggerTemplates, TriggerBindings, webhook
 * Secrets and EventListener that `lib/tekton` builds are applied to a real API server (with the
 * Tekton CRDs), and Tekton's own EventListener sink and core interceptors process real
 * deliveries against them:
 *
 * - a `git push` to the test Gitea, delivered by Gitea's webhook, creates one PipelineRun with the
 *   pushed repository and commit; the same delivery signed with a wrong secret creates none, and
 *   a push to another branch creates none;
 * - the recorded push of GitHub, GitLab, Gogs and Bitbucket Cloud, signed (or carrying its token)
 *   as that host does, creates one PipelineRun through that flavour's trigger; signed with a wrong
 *   secret (Gogs: a wrong or missing URL token) it creates none.
 *
 * Every delivery is processed by every trigger of the listener. A test waits until each trigger
 * has reached its outcome for each delivery (a PipelineRun labelled with the sink's event id and
 * the trigger, or the sink's debug line saying an interceptor stopped it), then checks the
 * outcomes: no waiting for something not to happen. No Tekton controller runs, so PipelineRuns
 * are created and never started.
 */
import assert from "node:assert/strict";
import type { GitFlavour } from "../../lib/githost/flavour.ts";
import {
  buildTriggerObjects,
  type EventListener,
  type TriggerObjects,
  upsertTrigger,
  webhookSecret,
  webhookUrlFor,
} from "../../lib/tekton/mod.ts";
import type { KubeObject } from "../../lib/kube/resources.ts";
import {
  e2eSkipReason,
  freePort,
  type HttpRequest,
  kubectlOk,
  type ManagedProcess,
  startCluster,
  startEventListenerSink,
  startGitea,
  startInterceptors,
  TEKTON_TRIGGERS_TOOLS,
  type TestCluster,
  waitFor,
} from "../env/mod.ts";
import { FIXTURE_SECRET, recordedPush, signedAs, withHeader } from "./push_payloads.ts";

const NAMESPACE = "ci";
const PIPELINE = "demo-app";
const GITEA_SECRET = "gitea-webhook-secret-for-tests";
const TRIGGERS = "triggers.tekton.dev/v1beta1";
/** The flavours whose recorded deliveries are posted to the sink (GHE's objects are GitHub's). */
const RECORDED_FLAVOURS: readonly GitFlavour[] = ["github", "gitlab", "gogs", "bitbucket"];

interface PipelineRun extends KubeObject {
  spec: {
    pipelineRef: { name: string };
    params: { name: string; value: string }[];
    taskRunTemplate?: { serviceAccountName?: string };
  };
}

/** What became of one delivery in one trigger. */
type Outcome = { kind: "created"; run: PipelineRun } | { kind: "stopped" | "failed"; why: string };

function labelEnding(object: KubeObject, suffix: string): string | undefined {
  const labels = object.metadata.labels ?? {};
  return Object.entries(labels).find(([key]) => key.endsWith(suffix))?.[1];
}

function fieldEnding(line: Record<string, unknown>, suffix: string): unknown {
  return Object.entries(line).find(([key]) => key.endsWith(suffix))?.[1];
}

/** The outcome of event `eventId` in each trigger that has reached one. */
async function outcomes(
  cluster: TestCluster,
  sinkLog: string,
  eventId: string,
): Promise<Map<string, Outcome>> {
  const found = new Map<string, Outcome>();
  const runs = JSON.parse(
    await kubectlOk(cluster, ["get", "pipelineruns", "-n", NAMESPACE, "-o", "json"]),
  ) as { items: PipelineRun[] };
  for (const run of runs.items) {
    if (labelEnding(run, "/triggers-eventid") !== eventId) continue;
    found.set(labelEnding(run, "/trigger") ?? "?", { kind: "created", run });
  }
  for (const text of (await Deno.readTextFile(sinkLog)).split("\n")) {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text);
    } catch {
      continue; // not a log record, or the line being written
    }
    if (fieldEnding(line, "/triggers-eventid") !== eventId) continue;
    const trigger = fieldEnding(line, "/trigger");
    if (typeof trigger !== "string") continue;
    // knative's encoder writes `message` and `severity` (zap's defaults: `msg`, `level`).
    const message = String(line.message ?? line.msg);
    const severity = String(line.severity ?? line.level).toLowerCase();
    if (message.startsWith("interceptor stopped trigger processing")) {
      found.set(trigger, { kind: "stopped", why: message });
    } else if (severity === "error") found.set(trigger, { kind: "failed", why: message });
  }
  return found;
}

/** Waits until every trigger in `triggers` has an outcome for `eventId`, and returns them. */
async function settled(
  cluster: TestCluster,
  sink: ManagedProcess,
  eventId: string,
  triggers: readonly string[],
): Promise<Map<string, Outcome>> {
  let found = new Map<string, Outcome>();
  try {
    await waitFor(`the outcome of event ${eventId} in every trigger`, async () => {
      found = await outcomes(cluster, sink.logFile, eventId);
      return triggers.every((name) => found.has(name));
    }, { process: sink, timeoutMs: 30_000 });
  } catch (error) {
    const missing = triggers.filter((name) => !found.has(name));
    throw new Error(`No outcome in ${missing.join(", ")}`, { cause: error });
  }
  return found;
}

function paramsOf(run: PipelineRun): Record<string, string> {
  return Object.fromEntries(run.spec.params.map((p) => [p.name, p.value]));
}

/** Checks that exactly `creator` (or no trigger) created a run, and every other one stopped. */
function assertOutcomes(
  found: Map<string, Outcome>,
  creator: string | undefined,
  what: string,
): PipelineRun | undefined {
  let created: PipelineRun | undefined;
  for (const [trigger, outcome] of found) {
    if (trigger === creator) {
      assert.equal(outcome.kind, "created", `${what}: ${trigger} ${JSON.stringify(outcome)}`);
      if (outcome.kind === "created") created = outcome.run;
    } else {
      assert.equal(outcome.kind, "stopped", `${what}: ${trigger} ${JSON.stringify(outcome)}`);
    }
  }
  return created;
}

function triggerObjects(flavour: GitFlavour, repoPath: string, branch: string): TriggerObjects {
  return buildTriggerObjects({
    pipelineName: PIPELINE,
    namespace: NAMESPACE,
    flavour,
    repoPath,
    branch,
    secretName: `${flavour}-webhook`,
    secretKey: "secret",
    triggersApiVersion: TRIGGERS,
    pipelinesApiVersion: "tekton.dev/v1",
  });
}

async function apply(cluster: TestCluster, objects: readonly KubeObject[]): Promise<void> {
  const list = { apiVersion: "v1", kind: "List", items: objects };
  await kubectlOk(cluster, ["apply", "-f", "-"], JSON.stringify(list));
}

Deno.test({
  name: "toolkit's trigger objects make Tekton's sink run the pipeline for the right pushes only",
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
    const repo = await gitea.createRepo(PIPELINE, [
      { path: "go.mod", content: "module example.com/demo-app\n\ngo 1.22\n" },
    ]);

    // The Gitea repository's objects, and a listener made by upsertTrigger from nothing.
    await kubectlOk(cluster, ["create", "namespace", NAMESPACE]);
    const giteaObjects = triggerObjects("gitea", repo.fullName, "main");
    const secret = (flavour: GitFlavour, value: string) =>
      webhookSecret({
        name: `${flavour}-webhook`,
        namespace: NAMESPACE,
        key: "secret",
        value,
        pipelineName: PIPELINE,
      });
    await apply(cluster, [
      {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "pipeline", namespace: NAMESPACE },
      },
      secret("gitea", GITEA_SECRET),
      giteaObjects.triggerTemplate,
      giteaObjects.triggerBinding,
      upsertTrigger(undefined, giteaObjects.trigger, {
        namespace: NAMESPACE,
        triggersApiVersion: TRIGGERS,
      }),
    ]);

    // The other flavours' triggers, added by upsertTrigger to the listener as the server has it.
    const recorded = await Promise.all(RECORDED_FLAVOURS.map((f) => recordedPush(f)));
    const flavourObjects = new Map(
      recorded.map((
        push,
      ) => [push.flavour, triggerObjects(push.flavour, push.repoPath, push.branch)]),
    );
    let listener = JSON.parse(
      await kubectlOk(cluster, ["get", "eventlistener", "tekton", "-n", NAMESPACE, "-o", "json"]),
    ) as EventListener;
    for (const [flavour, objects] of flavourObjects) {
      await apply(cluster, [
        secret(flavour, FIXTURE_SECRET),
        objects.triggerTemplate,
        objects.triggerBinding,
      ]);
      listener = upsertTrigger(listener, objects.trigger, {
        namespace: NAMESPACE,
        triggersApiVersion: TRIGGERS,
        replacing: objects.supersedes,
      });
    }
    await kubectlOk(cluster, ["replace", "-f", "-"], JSON.stringify(listener));
    const allTriggers = [giteaObjects.name, ...[...flavourObjects.values()].map((o) => o.name)];
    const stored = JSON.parse(
      await kubectlOk(cluster, ["get", "eventlistener", "tekton", "-n", NAMESPACE, "-o", "json"]),
    ) as EventListener;
    assert.deepEqual(stored.spec?.triggers?.map((trigger) => trigger.name), allTriggers);

    await using _interceptors = await startInterceptors(cluster);
    await using sink = await startEventListenerSink(cluster, {
      namespace: NAMESPACE,
      eventListener: "tekton",
      debugLog: true,
    });

    // Gitea's hooks deliver through a relay that keeps each delivery and the sink's event id.
    interface Relayed {
      readonly hook: string;
      readonly body: { ref?: string; after?: string };
      readonly eventId: string;
    }
    const relayed: Relayed[] = [];
    const relayPort = freePort();
    await using _relay = Deno.serve(
      { hostname: "127.0.0.1", port: relayPort, onListen: () => {} },
      async (request) => {
        const url = new URL(request.url);
        const body = await request.text();
        const headers = new Headers(request.headers);
        for (const name of ["host", "content-length", "connection"]) headers.delete(name);
        const answer = await fetch(`${sink.url}${url.pathname}${url.search}`, {
          method: "POST",
          headers,
          body,
        });
        const text = await answer.text();
        relayed.push({
          hook: url.pathname,
          body: JSON.parse(body),
          eventId: (JSON.parse(text) as { eventID: string }).eventID,
        });
        return new Response(text, { status: answer.status });
      },
    );
    const relayUrl = `http://127.0.0.1:${relayPort}`;
    for (const [hook, hookSecret] of [["/right", GITEA_SECRET], ["/wrong", "not-the-secret"]]) {
      await gitea.api("POST", `/repos/${repo.fullName}/hooks`, {
        type: "gitea",
        active: true,
        events: ["push"],
        branch_filter: "*",
        config: {
          url: webhookUrlFor("gitea", `${relayUrl}${hook}`, hookSecret!),
          content_type: "json",
          secret: hookSecret,
        },
      });
    }
    const deliveriesOf = async (commit: string) => {
      const of = (hook: string) => relayed.find((d) => d.hook === hook && d.body.after === commit);
      await waitFor(
        `Gitea's deliveries of ${commit}`,
        () => Promise.resolve(of("/right") !== undefined && of("/wrong") !== undefined),
      );
      return { right: of("/right")!, wrong: of("/wrong")! };
    };
    const allRuns = async () =>
      (JSON.parse(
        await kubectlOk(cluster, ["get", "pipelineruns", "-n", NAMESPACE, "-o", "json"]),
      ) as { items: PipelineRun[] }).items;

    await t.step(
      "a push to the branch runs the pipeline once, with its URL and commit",
      async () => {
        const commit = await gitea.pushCommit(repo, [{ path: "README.md", content: "# demo\n" }], {
          message: "Add a README",
        });
        const { right, wrong } = await deliveriesOf(commit);
        assert.equal(right.body.ref, "refs/heads/main");

        const run = assertOutcomes(
          await settled(cluster, sink.process, right.eventId, allTriggers),
          giteaObjects.name,
          "the signed delivery",
        );
        assert.ok(run);
        assert.deepEqual(paramsOf(run), {
          "git-url": repo.cloneUrl,
          "git-revision": commit,
          "scan-image": "false",
        });
        assert.equal(run.spec.pipelineRef.name, PIPELINE);
        assert.equal(run.spec.taskRunTemplate?.serviceAccountName, "pipeline");
        assert.equal(run.metadata.labels?.app, PIPELINE);
        assert.ok(run.metadata.name.startsWith(`${PIPELINE}-`), run.metadata.name);

        const refused = await settled(cluster, sink.process, wrong.eventId, allTriggers);
        assertOutcomes(refused, undefined, "the delivery with a wrong secret");
        const giteaOutcome = refused.get(giteaObjects.name);
        assert.ok(giteaOutcome?.kind === "stopped");
        assert.match(giteaOutcome.why, /signature/i);

        assert.equal((await allRuns()).length, 1);
      },
    );

    await t.step("a push to another branch runs nothing", async () => {
      await gitea.api("POST", `/repos/${repo.fullName}/branches`, {
        new_branch_name: "dev",
        old_branch_name: "main",
      });
      const commit = await gitea.pushCommit(repo, [{ path: "dev.txt", content: "dev\n" }], {
        branch: "dev",
        message: "Work on dev",
      });
      const { right, wrong } = await deliveriesOf(commit);
      assert.equal(right.body.ref, "refs/heads/dev");
      for (const delivery of [right, wrong]) {
        const found = await settled(cluster, sink.process, delivery.eventId, allTriggers);
        assertOutcomes(found, undefined, `the push to dev (${delivery.hook})`);
      }
      assert.equal((await allRuns()).length, 1);
    });

    const deliver = async (request: HttpRequest) => {
      const answer = await fetch(`${sink.url}${request.path ?? "/"}`, {
        method: "POST",
        headers: Object.fromEntries(
          Object.entries(request.headers).filter(([name]) =>
            !["host", "content-length"].includes(name.toLowerCase())
          ),
        ),
        body: request.body,
      });
      assert.equal(answer.status, 202);
      return (await answer.json() as { eventID: string }).eventID;
    };

    for (const push of recorded) {
      const name = flavourObjects.get(push.flavour)!.name;
      await t.step(
        `${push.flavour}: a delivery signed as the host signs it runs the pipeline`,
        async () => {
          const eventId = await deliver(signedAs(push.flavour, push.request, FIXTURE_SECRET));
          const run = assertOutcomes(
            await settled(cluster, sink.process, eventId, allTriggers),
            name,
            `${push.flavour}'s signed delivery`,
          );
          assert.ok(run);
          assert.deepEqual(paramsOf(run), {
            "git-url": push.gitUrl,
            "git-revision": push.revision,
            "scan-image": "false",
          });
        },
      );

      await t.step(`${push.flavour}: a delivery with a wrong secret runs nothing`, async () => {
        const forged = [signedAs(push.flavour, push.request, "not-the-secret")];
        if (push.flavour === "gogs") {
          forged.push({ ...push.request, path: "/" });
        }
        if (push.flavour === "gitlab") {
          forged.push(withHeader(push.request, "X-Gitlab-Token", undefined));
        }
        for (const request of forged) {
          const eventId = await deliver(request);
          const found = await settled(cluster, sink.process, eventId, allTriggers);
          assertOutcomes(found, undefined, `${push.flavour}'s forged delivery`);
        }
      });
    }

    await t.step("the API server takes v1alpha1 objects (with a v1beta1 PipelineRun)", async () => {
      const legacy = "ci-legacy";
      await kubectlOk(cluster, ["create", "namespace", legacy]);
      const alpha = buildTriggerObjects({
        pipelineName: PIPELINE,
        namespace: legacy,
        flavour: "gitlab",
        repoPath: "group/sub/repo",
        branch: "main",
        secretName: "gitlab-webhook",
        secretKey: "secret",
        triggersApiVersion: "triggers.tekton.dev/v1alpha1",
        pipelinesApiVersion: "tekton.dev/v1beta1",
      });
      const listener = upsertTrigger(undefined, alpha.trigger, {
        namespace: legacy,
        triggersApiVersion: "triggers.tekton.dev/v1alpha1",
      });
      const items = [alpha.triggerTemplate, alpha.triggerBinding, listener];
      await kubectlOk(
        cluster,
        ["apply", "--dry-run=server", "-f", "-"],
        JSON.stringify({ apiVersion: "v1", kind: "List", items }),
      );
    });

    await t.step("every run is one of the accepted deliveries", async () => {
      assert.equal((await allRuns()).length, 1 + RECORDED_FLAVOURS.length);
    });
  },
});
