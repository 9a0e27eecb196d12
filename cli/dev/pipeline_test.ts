/**
 * `toolkit pipeline --tekton` in-process: the in-memory API server of `tests/fakes/kube_api.ts`
 * serving Tekton's kinds, with the template pipelines of the end-to-end tests, and a hosted git
 * stand-in of `tests/fakes/hosted_git.ts` as the git host. Its flags, its bad input, the questions
 * asked on a terminal, and the result of each step (what was written, the hook, the run, what
 * failed). The end-to-end tests (real API server, Gitea, Tekton Triggers' sink) are in
 * `tests/cli_pipeline/`.
 */
import assert from "node:assert/strict";
import {
  DEPLOYMENTS,
  INGRESSES,
  type KubeObject,
  NAMESPACES,
  ROUTES,
  SECRETS,
  SERVICE_ACCOUNTS,
} from "../../lib/kube/mod.ts";
import { signTask, tektonApisAt } from "../../lib/tekton/mod.ts";
import { signingSecretManifest } from "../../lib/signing/mod.ts";
import { type FakeCli, fakeCli } from "../../tests/fakes/cli.ts";
import { type HostedGit, startHostedGit } from "../../tests/fakes/hosted_git.ts";
import { templateObjects } from "../../tests/cli_pipeline/_templates.ts";

const TOKEN = "glpat-test-token-0123456789";
const APIS = tektonApisAt("v1", "v1beta1");
const TEKTON_TYPES = [
  APIS.pipelines,
  APIS.tasks,
  APIS.pipelineRuns,
  APIS.triggerTemplates,
  APIS.triggerBindings,
  APIS.eventListeners,
];

interface Setup {
  readonly cli: FakeCli;
  readonly host: HostedGit;
  readonly args: string[];
}

async function setUp(options: { openshift?: boolean } = {}): Promise<Setup> {
  const cli = await fakeCli({ types: TEKTON_TYPES, ...options });
  for (const name of ["tools", "dev", "empty"]) cli.kube.seed(NAMESPACES, { metadata: { name } });
  cli.kube.seedObjects(...templateObjects("tools") as KubeObject[]);
  const host = startHostedGit(
    "gitlab",
    {
      path: "team/demo.app",
      defaultBranch: "main",
      files: { "package.json": '{"name":"demo-app"}\n', "server.js": "1\n" },
    },
    { username: "alice", token: TOKEN },
  );
  const args = [
    "pipeline",
    `${host.origin}/team/demo.app`,
    "--tekton",
    "-n",
    "dev",
    "-u",
    "alice",
    "-P",
    TOKEN,
    "--git-host-type",
    "gitlab",
  ];
  return { cli, host, args };
}

async function dispose(s: Setup): Promise<void> {
  await s.host[Symbol.asyncDispose]();
  await s.cli[Symbol.asyncDispose]();
}

/** What Tekton Triggers' controller would make for the EventListener, ready. */
function readyListener(namespace: string): KubeObject {
  return {
    metadata: { name: "el-tekton", namespace },
    spec: { replicas: 1 },
    status: { replicas: 1, availableReplicas: 1 },
  };
}

function params(run: KubeObject | undefined): Record<string, string> {
  const list = (run?.spec as { params: { name: string; value: string }[] }).params;
  return Object.fromEntries(list.map((p) => [p.name, p.value]));
}

Deno.test("pipeline --tekton sets everything up, starts a run and registers one hook", async () => {
  const s = await setUp();
  try {
    const { cli, host, args } = s;
    cli.kube.seed(DEPLOYMENTS, readyListener("dev"));
    const r = await cli.run([
      ...args,
      "-p",
      "image-server=quay.io",
      "--ingress-host",
      "el-tekton.dev.example.com",
      "-o",
      "json",
    ]);
    assert.equal(r.status, 0, r.err);
    const report = JSON.parse(r.out);
    assert.equal(report.pipeline, "demo-app");
    assert.equal(report.runtime, "nodejs");
    assert.equal(report.template, "tools/ibm-nodejs");
    assert.equal(report.gitHost, "gitlab");
    assert.equal(report.branch, "main");
    assert.equal(report.listenerUrl, "http://el-tekton.dev.example.com");
    assert.equal(report.webhook.action, "created");
    assert.deepEqual(report.problems, []);
    assert.match(r.err, /tkn pipelinerun logs -f demo-app-\S+ -n dev/);

    // The pipeline, named after the repository, with the answers as its defaults.
    const pipeline = cli.kube.get(APIS.pipelines, "dev", "demo-app");
    const defaults = Object.fromEntries(
      (pipeline?.spec as { params: { name: string; default?: string }[] }).params
        .map((p) => [p.name, p.default]),
    );
    assert.equal(defaults["image-server"], "quay.io");
    assert.equal(defaults["scan-image"], "true");
    // Only the Tasks it uses, without the Argo CD instance label.
    assert.deepEqual(cli.kube.list(APIS.tasks, "dev").map((t) => t.metadata.name), [
      "ibm-build",
      "ibm-setup",
    ]);
    assert.equal(
      cli.kube.get(APIS.tasks, "dev", "ibm-setup")?.metadata.labels?.[
        "argocd.argoproj.io/instance"
      ],
      undefined,
    );
    assert.ok(cli.kube.get(SERVICE_ACCOUNTS, "dev", "pipeline"));
    const listener = cli.kube.get(APIS.eventListeners, "dev", "tekton");
    assert.equal((listener?.spec as { triggers: unknown[] }).triggers.length, 1);
    assert.ok(cli.kube.get(INGRESSES, "dev", "el-tekton"));
    assert.equal(cli.kube.get(SECRETS, "dev", "git-credentials")?.type, "kubernetes.io/basic-auth");
    const runs = cli.kube.list(APIS.pipelineRuns, "dev");
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.metadata.name, report.pipelineRun);
    // The run builds the branch's head commit, as GitLab names it, not the moving branch.
    assert.equal(report.commit, host.head);
    assert.ok(
      host.requests.some((q) =>
        q.path === "/api/v4/projects/team%2Fdemo.app/repository/branches/main"
      ),
    );
    assert.match(r.err, new RegExp(`Pipeline run started at main ${host.head}: demo-app-`));
    assert.deepEqual(params(runs[0]), {
      "git-url": `${host.origin}/team/demo.app`,
      "git-revision": host.head,
      "scan-image": "true",
      "image-server": "quay.io",
    });
    // One hook, to the listener, with the secret kept in the namespace.
    assert.equal(host.hooks.length, 1);
    assert.equal(host.hooks[0]!.url, "http://el-tekton.dev.example.com");
    const webhookSecret = cli.kube.list(SECRETS, "dev").find((x) =>
      x.metadata.name.endsWith("-webhook")
    );
    assert.equal(
      atob((webhookSecret?.data as Record<string, string>).secret!),
      host.hooks[0]!.secret,
    );

    // A second run changes nothing and adds no hook.
    const again = await cli.run([
      ...args,
      "-p",
      "image-server=quay.io",
      "--ingress-host",
      "el-tekton.dev.example.com",
      "--no-start",
      "-o",
      "json",
    ]);
    assert.equal(again.status, 0, again.err);
    const second = JSON.parse(again.out);
    for (const x of second.results) assert.equal(x.outcome, "unchanged", JSON.stringify(x));
    assert.equal(second.webhook.action, "unchanged");
    assert.equal(host.hooks.length, 1);
    assert.equal(cli.kube.list(APIS.pipelineRuns, "dev").length, 1);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline --tekton --dry-run prints every object, secrets redacted, and writes nothing", async () => {
  const s = await setUp();
  try {
    const { cli, host, args } = s;
    const r = await cli.run([
      ...args,
      "--ingress-host",
      "el.example.com",
      "--dry-run",
      "-o",
      "json",
    ]);
    assert.equal(r.status, 0, r.err);
    const kinds = (JSON.parse(r.out) as { items: KubeObject[] }).items.map((o) => o.kind);
    for (
      const kind of [
        "Secret",
        "Task",
        "Pipeline",
        "TriggerTemplate",
        "TriggerBinding",
        "EventListener",
        "Ingress",
        "PipelineRun",
      ]
    ) assert.ok(kinds.includes(kind), kind);
    const run = (JSON.parse(r.out) as { items: KubeObject[] }).items.find((o) =>
      o.kind === "PipelineRun"
    );
    assert.equal(params(run)["git-revision"], host.head);
    assert.doesNotMatch(r.out, new RegExp(TOKEN));
    assert.deepEqual(cli.kube.writes(), []);
    assert.deepEqual(host.hooks, []);
    const yaml = await cli.run([...args, "--dry-run"]);
    assert.equal(yaml.status, 0, yaml.err);
    assert.match(yaml.out, /^---$/m);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline --tekton: the steps that cannot be done are reported, the rest stays, exit 1", async () => {
  const s = await setUp();
  try {
    const { cli, host, args } = s;
    // No Deployment el-tekton ever gets ready, and the listener has no URL.
    const r = await cli.run([...args, "--wait-timeout", "5"]);
    assert.equal(r.status, 1, r.err);
    assert.match(r.err, /The event listener is not available after 5 s \(no Deployment yet\)/);
    assert.match(r.err, /No webhook was created: the event listener has no URL/);
    assert.match(r.err, /The pipeline is registered, but 2 step\(s\) failed/);
    assert.ok(cli.clock.slept.length >= 5);
    assert.ok(cli.kube.get(APIS.pipelines, "dev", "demo-app"));
    assert.equal(cli.kube.list(APIS.pipelineRuns, "dev").length, 1);
    assert.deepEqual(host.hooks, []);

    // A refused write stops the command with the API server's reason.
    cli.kube.refuse({ method: "PATCH", type: APIS.triggerBindings });
    const refused = await cli.run([...args, "--no-wait", "--skipWebhook", "--no-start"]);
    assert.equal(refused.status, 1);
    assert.match(refused.err, /TriggerBinding .*denied the request/);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline --tekton --start: a branch whose head cannot be read starts no run, the rest stays, exit 1", async () => {
  const s = await setUp();
  try {
    const { cli, host, args } = s;
    cli.kube.seed(DEPLOYMENTS, readyListener("dev"));
    // A branch of the URL (`url#branch`) that the host does not have.
    const r = await cli.run([
      "pipeline",
      `${host.origin}/team/demo.app#feature/gone`,
      ...args.slice(2),
      "--listener-url",
      "https://el.example.com",
      "-o",
      "json",
    ]);
    assert.equal(r.status, 1, r.err);
    assert.match(
      r.err,
      /The first PipelineRun was not started: \S+ has no branch "feature\/gone" in repository "team\/demo.app"/,
    );
    assert.match(r.err, /The pipeline is registered, but 1 step\(s\) failed: No PipelineRun: /);
    const report = JSON.parse(r.out);
    assert.equal(report.pipelineRun, undefined);
    assert.equal(report.commit, undefined);
    assert.equal(report.problems.length, 1);
    // The branch is URL-encoded, as GitLab reads it; everything else was done.
    assert.ok(
      host.requests.some((q) =>
        q.path === "/api/v4/projects/team%2Fdemo.app/repository/branches/feature%2Fgone"
      ),
    );
    assert.deepEqual(cli.kube.list(APIS.pipelineRuns, "dev"), []);
    assert.ok(cli.kube.get(APIS.pipelines, "dev", "demo-app"));
    assert.equal(report.webhook.action, "created");
    assert.equal(host.hooks.length, 1);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline asks on a terminal: the kind, the template pipeline and each parameter", async () => {
  const s = await setUp();
  try {
    const { cli, args } = s;
    // Without --tekton or --jenkins, and with a pipeline no runtime narrows.
    cli.kube.seed(APIS.pipelines, {
      metadata: { name: "ibm-other", namespace: "tools" },
      spec: { params: [], tasks: [] },
    });
    const base = args.filter((a) => a !== "--tekton");
    const r = await cli.run(
      [...base, "--listener-url", "https://el.example.com", "--no-wait", "--no-start"],
      { answers: ["tekton", "ibm-nodejs", false, "quay.io"] },
    );
    assert.equal(r.status, 0, r.err);
    assert.deepEqual(r.asked, [
      "Select the type of pipeline that should be run?",
      "Select the Pipeline to use in the PipelineRun:",
      "scan-image: Scan the image?",
      "image-server: The registry?",
    ]);
    const defaults = Object.fromEntries(
      (cli.kube.get(APIS.pipelines, "dev", "demo-app")?.spec as {
        params: { name: string; default?: string }[];
      }).params.map((p) => [p.name, p.default]),
    );
    assert.equal(defaults["scan-image"], "false");
    assert.equal(defaults["image-server"], "quay.io");

    const chosen = await cli.run(
      [
        ...args,
        "--listener-url",
        "https://el.example.com",
        "--no-wait",
        "--skipWebhook",
        "-p",
        "scan-image=true",
        "-p",
        "image-server=icr.io",
        "--pipeline",
        "ibm-golang",
      ],
    );
    assert.equal(chosen.status, 0, chosen.err);
    assert.match(chosen.err, /Pipeline template: tools\/ibm-golang/);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline --tekton on OpenShift exposes the listener by a Route whose host is kept", async () => {
  const s = await setUp({ openshift: true });
  try {
    const { cli, args } = s;
    const run = [...args, "--no-wait", "--skipWebhook", "--no-start", "-o", "json"];
    let r = await cli.run(run);
    assert.equal(r.status, 0, r.err);
    // The router assigns the host; the next apply keeps it.
    const route = cli.kube.get(ROUTES, "dev", "el-tekton")!;
    cli.kube.seed(ROUTES, {
      ...route,
      spec: { ...route.spec as object, host: "el-tekton-dev.apps.example.com" },
    });
    r = await cli.run(run);
    assert.equal(r.status, 0, r.err);
    assert.equal(JSON.parse(r.out).listenerUrl, "https://el-tekton-dev.apps.example.com");
    const spec = cli.kube.get(ROUTES, "dev", "el-tekton")?.spec as { host: string };
    assert.equal(spec.host, "el-tekton-dev.apps.example.com");
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline: bad input fails clearly, without quoting the token, and writes nothing", async () => {
  const s = await setUp();
  try {
    const { cli, host, args } = s;
    const cases: [string[], number, RegExp][] = [
      [[...args, "-t", "empty"], 1, /no template pipelines in namespace "empty"/],
      [[...args.slice(0, 4), "nope", ...args.slice(5)], 1, /namespace "nope"/],
      [[...args, "--pipeline", "nope"], 2, /no template pipeline "nope": choose one of/],
      [["pipeline", "not a url", "--tekton", "-n", "dev"], 2, /Cannot parse git URL/],
      [[...args, "--jenkins"], 2, /--tekton and --jenkins exclude each other/],
      [args.filter((a) => a !== "--tekton"), 2, /--tekton or --jenkins/],
      [[...args, "-p", "novalue"], 2, /Cannot use -p "novalue": write it as name=value/],
      [[...args, "--wait-timeout", "0"], 2, /--wait-timeout "0"/],
      [[...args, "--listener-url", "el"], 2, /Invalid --listener-url "el"/],
      [[...args, "--git-api-url", "ftp://x"], 2, /Invalid --git-api-url/],
      [[...args, "--git-ca-file", "missing.pem"], 2, /Cannot read --git-ca-file/],
      [[...args.slice(0, 8), "wrong-token", ...args.slice(9)], 1, /401|refused|authenticat/i],
    ];
    for (const [argv, status, message] of cases) {
      const r = await cli.run(argv);
      assert.equal(r.status, status, `${argv.join(" ")}\n${r.err}`);
      assert.match(r.err, message, argv.join(" "));
      assert.doesNotMatch(r.err + r.out, new RegExp(TOKEN));
    }
    assert.deepEqual(cli.kube.writes(), []);
    assert.deepEqual(host.hooks, []);
    // Without -n, the context's namespace; with none there, a usage error.
    const r = await cli.run(args.filter((a, i) => a !== "-n" && args[i - 1] !== "-n"));
    assert.equal(r.status, 2);
    assert.match(r.err, /The namespace is not known: pass -n NAMESPACE/);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline takes the git token from --git-token-file, TOOLKIT_GIT_TOKEN or -P -, and warns once for -P TOKEN", async () => {
  const s = await setUp();
  try {
    const { cli, host, args } = s;
    const at = args.indexOf("-P");
    const without = [...args.slice(0, at), ...args.slice(at + 2)];
    const dryRun = ["--ingress-host", "el.example.com", "--dry-run", "-o", "json", "-v"];
    await Deno.writeTextFile(`${cli.dir}/token`, `${TOKEN}\n`);
    const sources: [string, string[], { env?: Record<string, string>; stdin?: string }][] = [
      ["--git-token-file", [...without, "--git-token-file", "token"], {}],
      ["TOOLKIT_GIT_TOKEN", without, { env: { TOOLKIT_GIT_TOKEN: TOKEN } }],
      ["-P - (stdin)", [...without, "-P", "-"], { stdin: `${TOKEN}\n` }],
      ["--password=- (stdin)", [...without, "--password=-"], { stdin: TOKEN }],
    ];
    for (const [what, argv, options] of sources) {
      const r = await cli.run([...argv, ...dryRun], options);
      // The git host stand-in answers 401 to any other token: it was read and used.
      assert.equal(r.status, 0, `${what}: ${r.err}`);
      assert.doesNotMatch(r.err, /warning: the git token/, what);
      assert.ok(!(r.out + r.err).includes(TOKEN), `${what}: the token was printed`);
    }
    const argument = await cli.run([...args, ...dryRun]);
    assert.equal(argument.status, 0, argument.err);
    assert.equal(argument.err.match(/warning: the git token/g)?.length, 1, argument.err);
    assert.match(
      argument.err,
      /warning: the git token given as -P\/--password's value can be read by every user of this machine \(ps\) and stays in your shell's history: pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN, or give -P - to read it from standard input/,
    );
    assert.ok(!(argument.out + argument.err).includes(TOKEN));

    // The URL's own user:token@ works, and warns once too.
    const inUrl = [...without];
    inUrl[1] = inUrl[1]!.replace("://", `://alice:${TOKEN}@`);
    const url = await cli.run([...inUrl, ...dryRun]);
    assert.equal(url.status, 0, url.err);
    assert.equal(url.err.match(/warning: the git token/g)?.length, 1, url.err);
    assert.match(
      url.err,
      /warning: the git token given as the URL's user:token@ can be read by every user of this machine \(ps\) .*: give the URL without it, and the token with --git-token-file FILE, TOOLKIT_GIT_TOKEN or -P -/,
    );
    assert.ok(!(url.out + url.err).includes(TOKEN));

    // Two sources, an empty file, a file that is not there: nothing is reached or written.
    await Deno.writeTextFile(`${cli.dir}/empty`, "");
    const refused: [string[], Record<string, string>, number, RegExp][] = [
      [
        [...args, "--git-token-file", "token"],
        {},
        2,
        /Give the git token once: both -P\/--password and --git-token-file give it/,
      ],
      [
        [...without, "--git-token-file", "token"],
        { TOOLKIT_GIT_TOKEN: TOKEN },
        2,
        /both --git-token-file and \$TOOLKIT_GIT_TOKEN/,
      ],
      [
        [...without, "--git-token-file", "empty"],
        {},
        1,
        /Cannot use --git-token-file "empty": it is empty/,
      ],
      [[...without, "--git-token-file", "gone"], {}, 1, /Cannot read --git-token-file "gone"/],
    ];
    const before = cli.kube.requests.length;
    for (const [argv, env, status, says] of refused) {
      const r = await cli.run([...argv, "-v"], { env });
      assert.equal(r.status, status, `${argv.join(" ")}\n${r.err}`);
      assert.match(r.err, says);
      assert.ok(!(r.out + r.err).includes(TOKEN));
    }
    assert.equal(cli.kube.requests.length, before, "the API server was not reached");
    assert.deepEqual(cli.kube.writes(), []);
    assert.deepEqual(host.hooks, []);
  } finally {
    await dispose(s);
  }
});

/** What setup-signing leaves in the template namespace: the Secret and the signing Task. */
function seedSigning(cli: FakeCli, namespace = "tools", task = true): void {
  cli.kube.seedObjects(
    signingSecretManifest({
      vaultUrl: "https://us-south.kms.cloud.ibm.com",
      instanceId: "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b",
      keyId: "0d1c2b3a-4c1d-4e8f-9a7b-1c2d3e4f5a6b",
      iamUrl: "https://iam.cloud.ibm.com/identity/token",
      apiKey: "the-api-key-of-the-pipelines",
      fingerprint: "ABCDEF",
      format: "simple",
    }, { namespace }),
    ...(task ? [signTask({ version: "v1", namespace: "tools" })] : []),
  );
}

function taskNames(pipeline: KubeObject | undefined): string[] {
  return (pipeline?.spec as { tasks: { name: string }[] }).tasks.map((t) => t.name);
}

Deno.test("pipeline --tekton signs what it builds when signing is set up, once", async () => {
  const s = await setUp();
  try {
    const { cli, args } = s;
    seedSigning(cli);
    const run = [...args, "--no-wait", "--no-start", "--skipWebhook", "-o", "json"];
    const r = await cli.run(run);
    assert.equal(r.status, 0, r.err);
    const report = JSON.parse(r.out);
    assert.deepEqual(report.signing, {
      task: "image-sign",
      after: "ibm-build",
      secret: 'Secret "dev/image-signing" (from tools)',
    });
    assert.match(
      r.err,
      /Signing: task image-sign signs the image of task ibm-build \(IMAGE_URL, IMAGE_DIGEST\)/,
    );
    const pipeline = cli.kube.get(APIS.pipelines, "dev", "demo-app");
    assert.deepEqual(taskNames(pipeline), ["ibm-setup", "ibm-build", "image-sign"]);
    const sign = (pipeline?.spec as { tasks: Record<string, unknown>[] }).tasks[2]!;
    const params = sign.params as { name: string; value: string }[];
    assert.deepEqual(params.slice(0, 2), [
      { name: "IMAGE_URL", value: "$(tasks.ibm-build.results.IMAGE_URL)" },
      { name: "IMAGE_DIGEST", value: "$(tasks.ibm-build.results.IMAGE_DIGEST)" },
    ]);
    // And what its provenance step attests, from the run (lib/tekton/signing_step_test.ts).
    assert.deepEqual(params.slice(2).map((p) => p.name), [
      "REPOSITORY_URL",
      "REVISION",
      "COMMIT",
      "PIPELINE_NAME",
      "BUILD_TASK",
      "PIPELINE_RUN_UID",
      "PROVENANCE_REQUIRED",
    ]);
    // The signing Task is copied with the others, the Secret into the namespace.
    assert.ok(cli.kube.get(APIS.tasks, "dev", "toolkit-image-sign"));
    assert.ok(cli.kube.get(SECRETS, "dev", "image-signing"));
    // A second run changes nothing.
    const again = await cli.run(run);
    assert.equal(again.status, 0, again.err);
    for (const result of JSON.parse(again.out).results) {
      assert.equal(result.outcome, "unchanged", JSON.stringify(result));
    }
    // --no-sign copies the template as it is.
    const unsigned = await cli.run([...run, "--no-sign"]);
    assert.equal(unsigned.status, 0, unsigned.err);
    assert.equal(JSON.parse(unsigned.out).signing, false);
    assert.deepEqual(taskNames(cli.kube.get(APIS.pipelines, "dev", "demo-app")), [
      "ibm-setup",
      "ibm-build",
    ]);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline --tekton without a signing setup says once that its images will be denied", async () => {
  const s = await setUp();
  try {
    const r = await s.cli.run([
      ...s.args,
      "--no-wait",
      "--no-start",
      "--skipWebhook",
      "-o",
      "json",
    ]);
    assert.equal(r.status, 0, r.err);
    assert.equal(JSON.parse(r.out).signing, false);
    const warnings = r.err.match(/will not be signed/g) ?? [];
    assert.equal(warnings.length, 1, r.err);
    assert.match(
      r.err,
      /The images this pipeline builds will not be signed \(there is no Secret image-signing in dev or tools\): a policy that requires signatures will deny them\. Set signing up with `toolkit image-security setup-signing`/,
    );
    assert.deepEqual(taskNames(s.cli.kube.get(APIS.pipelines, "dev", "demo-app")), [
      "ibm-setup",
      "ibm-build",
    ]);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline --tekton signing: ambiguity, no image, no Task each fail clearly and write nothing", async () => {
  const s = await setUp();
  try {
    const { cli, args } = s;
    seedSigning(cli, "dev");
    const run = [...args, "--no-wait", "--no-start", "--skipWebhook"];
    // A template with two image-producing tasks.
    cli.kube.seed(APIS.tasks, {
      metadata: { name: "ibm-build-ui", namespace: "tools" },
      spec: {
        results: [{ name: "UI_IMAGE_URL" }, { name: "UI_IMAGE_DIGEST" }],
        steps: [{ name: "s", image: "x" }],
      },
    });
    cli.kube.seed(APIS.pipelines, {
      metadata: { name: "two-images", namespace: "tools" },
      spec: {
        params: [{ name: "git-url" }, { name: "git-revision" }],
        tasks: [
          { name: "build", taskRef: { name: "ibm-build" } },
          { name: "build-ui", taskRef: { name: "ibm-build-ui" } },
        ],
      },
    });
    const cases: [string[], number, RegExp][] = [
      [
        ["--pipeline", "two-images"],
        2,
        /Cannot tell which image of pipeline "two-images" to sign: several tasks report one \(build \(IMAGE_URL, IMAGE_DIGEST\), build-ui \(UI_IMAGE_URL, UI_IMAGE_DIGEST\)\); choose the task with --sign-after TASK/,
      ],
      [
        ["--pipeline", "ibm-golang"],
        2,
        /Cannot sign the images of pipeline "ibm-golang": none of its tasks reports the image it pushed .* or pass --no-sign/,
      ],
      [["--no-sign", "--sign-after", "x"], 2, /--sign-after and --no-sign exclude each other/],
    ];
    for (const [extra, status, message] of cases) {
      const r = await cli.run([...run, ...extra]);
      assert.equal(r.status, status, `${extra.join(" ")}\n${r.err}`);
      assert.match(r.err, message);
    }
    assert.equal(cli.kube.list(APIS.pipelines, "dev").length, 0);
    const chosen = await cli.run([...run, "--pipeline", "two-images", "--sign-after", "build-ui"]);
    assert.equal(chosen.status, 0, chosen.err);
    assert.deepEqual(taskNames(cli.kube.get(APIS.pipelines, "dev", "demo-app")), [
      "build",
      "build-ui",
      "image-sign",
    ]);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline --tekton with a signing Secret but no signing Task points at setup-signing", async () => {
  const s = await setUp();
  try {
    seedSigning(s.cli, "tools", false);
    const r = await s.cli.run([...s.args, "--no-wait", "--no-start", "--skipWebhook"]);
    assert.equal(r.status, 2, r.err);
    assert.match(
      r.err,
      /namespace "tools" has no Task toolkit-image-sign; install it with `toolkit image-security setup-signing -t tools`, or pass --no-sign/,
    );
    assert.equal(s.cli.kube.list(APIS.pipelines, "dev").length, 0);
  } finally {
    await dispose(s);
  }
});

Deno.test("pipeline --tekton --dry-run shows the copied signing Secret with its API key redacted", async () => {
  const s = await setUp();
  try {
    seedSigning(s.cli);
    const r = await s.cli.run([...s.args, "--dry-run", "-o", "json"]);
    assert.equal(r.status, 0, r.err);
    assert.doesNotMatch(
      r.out,
      /the-api-key-of-the-pipelines|dGhlLWFwaS1rZXktb2YtdGhlLXBpcGVsaW5lcw/,
    );
    const items = (JSON.parse(r.out) as { items: KubeObject[] }).items;
    const secret = items.find((o) => o.kind === "Secret" && o.metadata.name === "image-signing");
    assert.equal(secret?.metadata.namespace, "dev");
    assert.equal(atob((secret?.data as Record<string, string>).apikey!), "<redacted>");
    const pipeline = items.find((o) => o.kind === "Pipeline");
    assert.deepEqual(taskNames(pipeline), ["ibm-setup", "ibm-build", "image-sign"]);
    assert.equal(s.cli.kube.get(SECRETS, "dev", "image-signing"), undefined);
  } finally {
    await dispose(s);
  }
});
