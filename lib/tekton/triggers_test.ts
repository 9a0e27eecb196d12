import assert from "node:assert/strict";
import { GIT_FLAVOURS } from "../githost/flavour.ts";
import { TRIGGER_FLAVOURS, webhookUrlFor } from "./trigger_flavours.ts";
import {
  buildTriggerObjects,
  type EventListener,
  igcTriggerName,
  pushFilter,
  type TriggerInput,
  TriggerInputError,
  triggerName,
  upsertTrigger,
  webhookSecret,
} from "./triggers.ts";

const INPUT: TriggerInput = {
  pipelineName: "demo-app",
  namespace: "dev",
  flavour: "github",
  repoPath: "octo-org/demo-app",
  branch: "main",
  secretName: "demo-app-webhook",
  secretKey: "secret",
  triggersApiVersion: "triggers.tekton.dev/v1beta1",
  pipelinesApiVersion: "tekton.dev/v1",
};

Deno.test("triggerName is a stable DNS label per repository and branch", () => {
  const name = triggerName("octo-org/demo-app", "main");
  assert.match(name, /^octo-org-demo-app-main-[0-9a-f]{8}$/);
  assert.equal(triggerName("octo-org/demo-app", "main"), name);
  // The hosts fold the repository's ASCII case; branches keep theirs.
  assert.equal(triggerName("Octo-Org/Demo-App", "main"), name);
  assert.notEqual(triggerName("octo-org/demo-app", "Main"), name);
  // Readable parts that collide still make different names.
  assert.notEqual(triggerName("a/b-c", "main"), triggerName("a-b/c", "main"));
  assert.notEqual(triggerName("o/r", "feature/x"), triggerName("o/r", "feature-x"));

  const long = triggerName(`group/${"sub".repeat(30)}/repo`, `feature/${"x".repeat(80)}`);
  assert.ok(long.length <= 63, long);
  assert.match(long, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  assert.match(triggerName("ü/ö", "ß"), /^trigger-[0-9a-f]{8}$/);
  assert.match(triggerName("o/r", "it's"), /^o-r-it-s-[0-9a-f]{8}$/);
});

Deno.test("the template runs the pipeline with the pushed URL and revision as `pipeline`", () => {
  const objects = buildTriggerObjects(INPUT);
  assert.equal(objects.name, triggerName("octo-org/demo-app", "main"));
  assert.deepEqual(objects.triggerTemplate, {
    apiVersion: "triggers.tekton.dev/v1beta1",
    kind: "TriggerTemplate",
    metadata: { name: objects.name, namespace: "dev", labels: { app: "demo-app" } },
    spec: {
      params: [
        { name: "git-url", description: "The URL to clone the repository from" },
        { name: "git-revision", description: "The commit that was pushed" },
      ],
      resourcetemplates: [{
        apiVersion: "tekton.dev/v1",
        kind: "PipelineRun",
        metadata: { generateName: "demo-app-", labels: { app: "demo-app" } },
        spec: {
          pipelineRef: { name: "demo-app" },
          params: [
            { name: "git-url", value: "$(tt.params.git-url)" },
            { name: "git-revision", value: "$(tt.params.git-revision)" },
            { name: "scan-image", value: "false" },
          ],
          taskRunTemplate: { serviceAccountName: "pipeline" },
        },
      }],
    },
  });
});

Deno.test("a v1beta1 PipelineRun names its ServiceAccount in the spec; params can be fixed", () => {
  const objects = buildTriggerObjects({
    ...INPUT,
    pipelinesApiVersion: "tekton.dev/v1beta1",
    pipelineParams: { "scan-image": "true", "health-endpoint": "/health" },
  });
  const run = (objects.triggerTemplate.spec as { resourcetemplates: Record<string, unknown>[] })
    .resourcetemplates[0]!;
  assert.equal(run.apiVersion, "tekton.dev/v1beta1");
  assert.deepEqual(run.spec, {
    pipelineRef: { name: "demo-app" },
    params: [
      { name: "git-url", value: "$(tt.params.git-url)" },
      { name: "git-revision", value: "$(tt.params.git-revision)" },
      { name: "scan-image", value: "true" },
      { name: "health-endpoint", value: "/health" },
    ],
    serviceAccountName: "pipeline",
  });
  assert.throws(
    () => buildTriggerObjects({ ...INPUT, pipelineParams: { "git-revision": "main" } }),
    TriggerInputError,
  );
});

Deno.test("each flavour's binding reads its own payload paths", () => {
  const expected = {
    github: ["$(body.repository.clone_url)", "$(body.after)"],
    ghe: ["$(body.repository.clone_url)", "$(body.after)"],
    gitlab: ["$(body.project.git_http_url)", "$(body.checkout_sha)"],
    gitea: ["$(body.repository.clone_url)", "$(body.after)"],
    gogs: ["$(body.repository.clone_url)", "$(body.after)"],
    bitbucket: ["$(body.repository.links.html.href)", "$(body.push.changes[0].new.target.hash)"],
  };
  for (const flavour of GIT_FLAVOURS) {
    const { triggerBinding, name } = buildTriggerObjects({ ...INPUT, flavour });
    assert.deepEqual(triggerBinding, {
      apiVersion: "triggers.tekton.dev/v1beta1",
      kind: "TriggerBinding",
      metadata: { name, namespace: "dev", labels: { app: "demo-app" } },
      spec: {
        params: [
          { name: "git-url", value: expected[flavour][0] },
          { name: "git-revision", value: expected[flavour][1] },
        ],
      },
    }, flavour);
  }
});

Deno.test("the filter checks the event header, the branch and the repository per flavour", () => {
  assert.equal(
    pushFilter("github", "Octo-Org/demo-app", "main"),
    "header.match('X-GitHub-Event', 'push') && !body.after.matches('^0+$') && " +
      "body.ref == 'refs/heads/main' && " +
      "body.repository.full_name.lowerAscii() == 'octo-org/demo-app'",
  );
  assert.equal(
    pushFilter("gitlab", "group/sub/repo", "main"),
    "header.match('X-Gitlab-Event', 'Push Hook') && !body.after.matches('^0+$') && " +
      "body.ref == 'refs/heads/main' && " +
      "body.project.path_with_namespace.lowerAscii() == 'group/sub/repo'",
  );
  assert.equal(
    pushFilter("bitbucket", "team/repo", "release/1.0"),
    "header.match('X-Event-Key', 'repo:push') && body.push.changes[0].new != null && " +
      "body.push.changes[0].new.type == 'branch' && " +
      "body.push.changes[0].new.name == 'release/1.0' && " +
      "body.repository.full_name.lowerAscii() == 'team/repo'",
  );
  assert.match(pushFilter("gitea", "o/r", "main"), /^header\.match\('X-Gitea-Event', 'push'\)/);
  assert.match(pushFilter("gogs", "o/r", "main"), /^header\.match\('X-Gogs-Event', 'push'\)/);
});

Deno.test("quotes and backslashes in a branch stay inside the CEL string", () => {
  const filter = pushFilter("github", "o/r", "x' || true || 'y\\");
  assert.ok(
    filter.includes("body.ref == 'refs/heads/x\\' || true || \\'y\\\\' && "),
    filter,
  );
});

Deno.test("v1beta1 triggers check the secret with ClusterInterceptors, then filter with CEL", () => {
  const interceptors = (flavour: TriggerInput["flavour"]) =>
    buildTriggerObjects({ ...INPUT, flavour }).trigger.interceptors;
  const secretRef = { secretName: "demo-app-webhook", secretKey: "secret" };
  const core = (name: string, event: string) => ({
    ref: { name, kind: "ClusterInterceptor" },
    params: [
      { name: "secretRef", value: secretRef },
      { name: "eventTypes", value: [event] },
    ],
  });
  const cel = (flavour: TriggerInput["flavour"]) => ({
    ref: { name: "cel", kind: "ClusterInterceptor" },
    params: [{ name: "filter", value: pushFilter(flavour, "octo-org/demo-app", "main") }],
  });
  assert.deepEqual(interceptors("github"), [core("github", "push"), cel("github")]);
  assert.deepEqual(interceptors("ghe"), [core("github", "push"), cel("ghe")]);
  assert.deepEqual(interceptors("gitea"), [core("github", "push"), cel("gitea")]);
  assert.deepEqual(interceptors("gitlab"), [core("gitlab", "Push Hook"), cel("gitlab")]);
  assert.deepEqual(interceptors("bitbucket"), [core("bitbucket", "repo:push"), cel("bitbucket")]);
  assert.deepEqual(interceptors("gogs"), [
    {
      ref: { name: "cel", kind: "ClusterInterceptor" },
      params: [{
        name: "filter",
        value: "'toolkit-token' in requestURL.parseURL().query && " +
          "requestURL.parseURL().query['toolkit-token']" +
          ".compareSecret('secret', 'demo-app-webhook')",
      }],
    },
    cel("gogs"),
  ]);

  const { trigger, name } = buildTriggerObjects(INPUT);
  assert.deepEqual(trigger.bindings, [{ kind: "TriggerBinding", ref: name }]);
  assert.deepEqual(trigger.template, { ref: name });
  assert.equal(trigger.name, name);
});

Deno.test("v1alpha1 triggers use the older interceptor fields", () => {
  const alpha = { ...INPUT, triggersApiVersion: "triggers.tekton.dev/v1alpha1" as const };
  const secretRef = { secretName: "demo-app-webhook", secretKey: "secret" };
  const github = buildTriggerObjects(alpha);
  assert.equal(github.triggerTemplate.apiVersion, "triggers.tekton.dev/v1alpha1");
  assert.equal(github.triggerBinding.apiVersion, "triggers.tekton.dev/v1alpha1");
  assert.deepEqual(github.trigger.interceptors, [
    { github: { secretRef, eventTypes: ["push"] } },
    { cel: { filter: pushFilter("github", "octo-org/demo-app", "main") } },
  ]);
  assert.deepEqual(buildTriggerObjects({ ...alpha, flavour: "gitlab" }).trigger.interceptors![0], {
    gitlab: { secretRef, eventTypes: ["Push Hook"] },
  });
  assert.deepEqual(
    buildTriggerObjects({ ...alpha, flavour: "bitbucket" }).trigger.interceptors![0],
    { bitbucket: { secretRef, eventTypes: ["repo:push"] } },
  );
  const gogs = buildTriggerObjects({ ...alpha, flavour: "gogs" }).trigger.interceptors!;
  assert.match((gogs[0] as { cel: { filter: string } }).cel.filter, /compareSecret/);
});

Deno.test("the trigger supersedes igc's trigger of the same repository and branch", () => {
  assert.equal(igcTriggerName("myorg/my.node-app", "main"), "myorg-my.node-app-main");
  assert.equal(igcTriggerName("group/sub/repo", "dev"), "group-sub/repo-dev");
  assert.deepEqual(buildTriggerObjects(INPUT).supersedes, ["octo-org-demo-app-main"]);
});

Deno.test("upsertTrigger creates the listener `tekton` when there is none", () => {
  const { trigger } = buildTriggerObjects(INPUT);
  assert.deepEqual(
    upsertTrigger(undefined, trigger, {
      namespace: "dev",
      triggersApiVersion: "triggers.tekton.dev/v1beta1",
    }),
    {
      apiVersion: "triggers.tekton.dev/v1beta1",
      kind: "EventListener",
      metadata: { name: "tekton", namespace: "dev", labels: { app: "tekton" } },
      spec: { serviceAccountName: "pipeline", triggers: [trigger] },
    },
  );
});

Deno.test("upsertTrigger replaces by name in place, keeps the others and appends new ones", () => {
  const main = buildTriggerObjects(INPUT).trigger;
  const dev = buildTriggerObjects({ ...INPUT, branch: "dev" }).trigger;
  const other = { name: "someone-elses", template: { ref: "x" } };
  const existing: EventListener = {
    apiVersion: "triggers.tekton.dev/v1beta1",
    kind: "EventListener",
    metadata: { name: "tekton", namespace: "dev", resourceVersion: "42", labels: { a: "b" } },
    spec: {
      serviceAccountName: "custom",
      resources: { kubernetesResource: { replicas: 2 } },
      triggers: [
        { name: main.name, template: { ref: "old" } },
        other,
      ],
    },
  };
  const before = structuredClone(existing);
  const target = { namespace: "dev", triggersApiVersion: "triggers.tekton.dev/v1beta1" } as const;

  const updated = upsertTrigger(existing, main, target);
  assert.deepEqual(existing, before, "the input is not changed");
  assert.deepEqual(updated, {
    ...existing,
    spec: { ...existing.spec, triggers: [main, other] },
  });

  const added = upsertTrigger(updated, dev, target);
  assert.deepEqual(added.spec?.triggers, [main, other, dev]);
  assert.equal(added.metadata.resourceVersion, "42");
  assert.equal(added.spec?.serviceAccountName, "custom");
});

Deno.test("upsertTrigger takes the place of igc's trigger and drops duplicates", () => {
  const objects = buildTriggerObjects(INPUT);
  const igc = { name: "octo-org-demo-app-main", bindings: [{ ref: "trigger-binding" }] };
  const other = { name: "other" };
  const existing: EventListener = {
    metadata: { name: "tekton", namespace: "dev" },
    spec: { triggers: [other, igc, { ...objects.trigger, template: { ref: "stale" } }] },
  };
  const result = upsertTrigger(existing, objects.trigger, {
    namespace: "dev",
    triggersApiVersion: "triggers.tekton.dev/v1alpha1",
    replacing: objects.supersedes,
  });
  assert.deepEqual(result.spec?.triggers, [other, objects.trigger]);
  assert.equal(result.apiVersion, "triggers.tekton.dev/v1alpha1");
  assert.equal(result.kind, "EventListener");
  assert.equal(result.spec?.serviceAccountName, "pipeline");
});

Deno.test("the webhook Secret holds the secret under its key", () => {
  assert.deepEqual(
    webhookSecret({
      name: "demo-app-webhook",
      namespace: "dev",
      key: "secret",
      value: "s3cr3t",
      pipelineName: "demo-app",
    }),
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "demo-app-webhook", namespace: "dev", labels: { app: "demo-app" } },
      type: "Opaque",
      stringData: { secret: "s3cr3t" },
    },
  );
  const bad = { name: "x", namespace: "dev", key: "secret", value: "", pipelineName: "demo-app" };
  assert.throws(() => webhookSecret(bad), /The webhook secret is empty/);
  assert.throws(() => webhookSecret({ ...bad, value: "v", key: "a/b" }), TriggerInputError);
  assert.throws(() => webhookSecret({ ...bad, value: "v", name: "Bad_Name" }), TriggerInputError);
});

Deno.test("input Kubernetes or the filter could not take is refused with a clear message", () => {
  const refused: [Partial<TriggerInput>, RegExp][] = [
    [{ branch: "" }, /The branch is empty/],
    [{ branch: "a\nb" }, /The branch contains control characters/],
    [{ branch: "\ud800" }, /not well-formed/],
    [{ repoPath: "repo" }, /"repo" is not owner\/name/],
    [{ repoPath: "owner//repo" }, /is not owner\/name/],
    [{ repoPath: "/repo" }, /is not owner\/name/],
    [{ pipelineName: "Demo_App" }, /pipeline name "Demo_App" is not a Kubernetes name/],
    [{ pipelineName: "a".repeat(64) }, /is not a Kubernetes name/],
    [{ namespace: "Dev" }, /namespace "Dev"/],
    [{ secretName: "" }, /Secret name/],
    [{ secretKey: "a b" }, /Secret key/],
    [{ flavour: "azure" as TriggerInput["flavour"] }, /Unknown git host flavour "azure"/],
    [{ flavour: "toString" as TriggerInput["flavour"] }, /Unknown git host flavour/],
    [
      { triggersApiVersion: "triggers.tekton.dev/v1" as TriggerInput["triggersApiVersion"] },
      /Unsupported Triggers API version/,
    ],
    [
      { pipelinesApiVersion: "tekton.dev/v1alpha1" as TriggerInput["pipelinesApiVersion"] },
      /Unsupported Tekton Pipelines API version/,
    ],
  ];
  for (const [change, message] of refused) {
    assert.throws(() => buildTriggerObjects({ ...INPUT, ...change }), (error: unknown) => {
      assert.ok(error instanceof TriggerInputError, String(error));
      assert.match(error.message, message);
      return true;
    });
  }
});

Deno.test("webhookUrlFor adds the secret to the URL of Gogs hooks only", () => {
  const listener = "https://el-tekton.apps.example.com/";
  for (const flavour of GIT_FLAVOURS.filter((f) => f !== "gogs")) {
    assert.equal(webhookUrlFor(flavour, listener, "s e/cret"), listener);
  }
  assert.equal(
    webhookUrlFor("gogs", listener, "s e/cret&x"),
    "https://el-tekton.apps.example.com/?toolkit-token=s+e%2Fcret%26x",
  );
  assert.equal(
    webhookUrlFor("gogs", "http://127.0.0.1:8080/hook?a=1", "t"),
    "http://127.0.0.1:8080/hook?a=1&toolkit-token=t",
  );
  assert.equal(TRIGGER_FLAVOURS.gogs.secretCheck.kind, "url-token");
});
