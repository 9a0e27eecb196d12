/**
 * `toolkit pipeline --tekton` benchmark (issue #12), run by `deno task bench`: the wall time of one
 * run and how many requests it makes, against the real kube-apiserver (Tekton's CRDs) and the
 * real Gitea, each run a separate `deno run -A cli/main.ts` process (a compiled binary skips module
 * loading: upper bounds). The Kubernetes requests are counted from the API server's audit log (by
 * toolkit's User-Agent), the git-host requests by a counting proxy in front of Gitea. The rollout
 * wait is left out (`--no-wait`: no Tekton controller runs here); the webhook is registered.
 *
 * - a first run in a new namespace (everything created, a PipelineRun started, the hook created);
 * - a second run in the same namespace (`--no-start`: everything unchanged, the hook kept).
 *
 * Median of five. Target: a run under 3 s without the rollout wait.
 *
 * @module
 */
import { GITEA_ADMIN, startCluster, startGitea } from "../env/mod.ts";
import { templateObjects } from "../cli_pipeline/_templates.ts";
import { USER_AGENT } from "../../lib/version.ts";
import { median } from "./_stats.ts";

// deno-lint-ignore no-console
const print = console.log;

const ROOT = new URL("../../", import.meta.url).pathname;
const RUNS = 5;

const dir = await Deno.makeTempDir({ prefix: "toolkit-pipeline-bench-" });
const auditLog = `${dir}/audit.log`;
await Deno.writeTextFile(
  `${dir}/audit-policy.yaml`,
  "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: Metadata\n",
);
await using cluster = await startCluster({
  crds: ["tekton"],
  apiServerFlags: [
    `--audit-policy-file=${dir}/audit-policy.yaml`,
    `--audit-log-path=${auditLog}`,
    "--audit-log-mode=blocking",
  ],
});
await using gitea = await startGitea();
const repo = await gitea.createRepo("bench-app", [
  { path: "package.json", content: '{"name":"bench-app"}\n' },
]);

// A proxy in front of Gitea that counts what toolkit asks of it.
let gitRequests = 0;
const giteaUrl = new URL(gitea.url);
await using proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  gitRequests++;
  const url = new URL(req.url);
  url.host = giteaUrl.host;
  return fetch(url, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    redirect: "manual",
  });
});
const repoUrl = `http://127.0.0.1:${proxy.addr.port}/${repo.fullName}.git#main`;

const kubectl = async (args: string[], stdin?: string) => {
  const r = await cluster.kubectl(args, stdin === undefined ? {} : { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
};
await kubectl(["create", "namespace", "tools"]);
await kubectl(
  ["apply", "-f", "-"],
  JSON.stringify({ apiVersion: "v1", kind: "List", items: templateObjects("tools") }),
);

async function kubeRequests(): Promise<number> {
  const text = await Deno.readTextFile(auditLog).catch(() => "");
  return text.split("\n").filter((line) => line.includes(`"userAgent":"${USER_AGENT}`)).length;
}

async function pipeline(namespace: string, extra: string[]): Promise<[number, number, number]> {
  const kubeBefore = await kubeRequests();
  const gitBefore = gitRequests;
  const start = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}cli/main.ts`,
      "pipeline",
      repoUrl,
      "--tekton",
      "-n",
      namespace,
      "-u",
      GITEA_ADMIN.username,
      "-P",
      gitea.token,
      "--no-wait",
      "--ingress-host",
      "el-tekton.bench.example.com",
      "--listener-url",
      `http://127.0.0.1:9/${namespace}`,
      "--kubeconfig",
      cluster.kubeconfigPath,
      ...extra,
    ],
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const ms = performance.now() - start;
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  // The audit backend writes in blocking mode: every request is in the log once answered.
  return [ms, (await kubeRequests()) - kubeBefore, gitRequests - gitBefore];
}

await new Deno.Command(Deno.execPath(), { args: ["run", "-A", `${ROOT}cli/main.ts`, "--version"] })
  .output(); // warm-up: Deno's code cache
const first: [number, number, number][] = [];
const second: [number, number, number][] = [];
for (let i = 0; i < RUNS; i++) {
  const namespace = `bench-${i}`;
  await kubectl(["create", "namespace", namespace]);
  first.push(await pipeline(namespace, []));
  second.push(await pipeline(namespace, ["--no-start"]));
}

const row = (name: string, runs: [number, number, number][]) =>
  `| ${name.padEnd(46)} | ${`${Math.round(median(runs.map((r) => r[0])))} ms`.padStart(8)} | ${
    String(median(runs.map((r) => r[1]))).padStart(16)
  } | ${String(median(runs.map((r) => r[2]))).padStart(17)} |`;
print(`\npipeline --tekton (median of ${RUNS}; each a new deno process; no rollout wait)\n`);
print(`| ${"Run".padEnd(46)} | ${"Time".padStart(8)} | Kubernetes calls | Git-host requests |`);
print(`| ${"-".repeat(46)} | ${"-".repeat(8)} | ${"-".repeat(16)} | ${"-".repeat(17)} |`);
print(row("first run (everything created, run started)", first));
print(row("second run (--no-start, nothing changes)", second));
await Deno.remove(dir, { recursive: true });
