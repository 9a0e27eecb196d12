/**
 * Developer CLI benchmark (issue 6), run by `deno task bench`: toolkit next to igc (the
 * Cloud-Native Toolkit CLI, `@ibmgaragecloud/cloud-native-toolkit-cli`, installed with npm into
 * a temporary directory for the run) on the same real kube-apiserver.
 *
 * 1. start-up: `toolkit --version`;
 * 2. `toolkit credentials` against a tools namespace with five tools;
 * 3. `toolkit sync` of a template namespace holding 100 labelled objects (50 ConfigMaps and 50
 *    Secrets) into a new namespace, and the same sync again (nothing to change).
 *
 * Each figure is the median wall time and peak RSS of separate processes (one warm-up run
 * first), RSS from `/usr/bin/time -f %M` (else `VmHWM` polled from /proc). `deno compile` is
 * not available here, so toolkit is measured as `deno run -A cli/main.ts` with the
 * node_modules already installed: a compiled binary would skip module resolution, so these
 * are upper bounds. An empty `deno run` is measured as the floor of any Deno program.
 *
 * Targets: `--version` < 100 ms and < 60 MB; `credentials` < 400 ms; `sync` of 100 objects
 * < 3 s and at least 3× faster than igc.
 *
 * @module
 */
import { startCluster, type TestCluster } from "../env/mod.ts";
import { median } from "./_stats.ts";

// deno-lint-ignore no-console
const print = console.log;

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = `${ROOT}cli/main.ts`;
const DENO = Deno.execPath();
const TIME = "/usr/bin/time";

/** One measured command: median wall time and peak RSS over the runs. */
interface Figure {
  ms: number;
  mb: number;
  runs: number;
  failures: string[];
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

let haveTime = await exists(TIME);

async function ensureTime(): Promise<void> {
  if (haveTime) return;
  const r = await new Deno.Command("apt-get", {
    args: ["install", "-y", "-qq", "time"],
    stdout: "null",
    stderr: "null",
  })
    .output().catch(() => undefined);
  haveTime = r?.success === true && await exists(TIME);
  if (!haveTime) print("note: /usr/bin/time is not installed; peak RSS is polled from /proc");
}

async function pollPeakRss(pid: number, done: Promise<unknown>): Promise<number> {
  let peak = 0;
  let finished = false;
  done.then(() => finished = true, () => finished = true);
  while (!finished) {
    try {
      const status = await Deno.readTextFile(`/proc/${pid}/status`);
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peak = Math.max(peak, kb);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return peak;
}

/** Runs `argv` once; wall ms, peak RSS in KB, and whether it succeeded. */
async function runOnce(
  argv: string[],
  env: Record<string, string>,
): Promise<{ ms: number; kb: number; ok: boolean; err: string }> {
  const rssFile = await Deno.makeTempFile({ prefix: "toolkit-bench-rss-" });
  try {
    const [cmd, ...args] = haveTime ? [TIME, "-f", "%M", "-o", rssFile, ...argv] : argv;
    const start = performance.now();
    const child = new Deno.Command(cmd!, {
      args,
      env,
      stdout: "null",
      stderr: "piped",
      stdin: "null",
    })
      .spawn();
    const output = child.output();
    const polled = haveTime ? Promise.resolve(0) : pollPeakRss(child.pid, output);
    const out = await output;
    const ms = performance.now() - start;
    const kb = haveTime
      ? Number((await Deno.readTextFile(rssFile)).trim().split("\n").at(-1))
      : await polled;
    return {
      ms,
      kb,
      ok: out.success,
      err: new TextDecoder().decode(out.stderr).trim().slice(-300),
    };
  } finally {
    await Deno.remove(rssFile).catch(() => {});
  }
}

async function measure(
  argvFor: (i: number) => string[],
  env: Record<string, string>,
  runs: number,
): Promise<Figure> {
  const failures: string[] = [];
  await runOnce(argvFor(-1), env); // warm-up: Deno's code cache, node's file cache
  const ms: number[] = [];
  const kb: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await runOnce(argvFor(i), env);
    if (!r.ok) failures.push(r.err);
    ms.push(r.ms);
    kb.push(r.kb);
  }
  return { ms: median(ms), mb: median(kb) / 1024, runs, failures };
}

async function installIgc(dir: string): Promise<string | { error: string }> {
  const out = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      dir,
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "@ibmgaragecloud/cloud-native-toolkit-cli",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output().catch((e) => ({ success: false, stderr: new TextEncoder().encode(String(e)) }));
  const bin = `${dir}/node_modules/.bin/igc`;
  if (!out.success || !(await exists(bin))) {
    return {
      error: new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ") ||
        "npm install failed",
    };
  }
  return bin;
}

async function kubectlApply(cluster: TestCluster, objects: unknown[]): Promise<void> {
  const r = await cluster.kubectl(["apply", "-f", "-"], {
    stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  });
  if (r.code !== 0) throw new Error(`kubectl apply failed: ${r.stderr}`);
}

function templateObjects(ns: string, count: number): unknown[] {
  const labels = { group: "catalyst-tools", "app.kubernetes.io/instance": "bench" };
  const objects: unknown[] = [{ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }];
  for (let i = 0; i < count / 2; i++) {
    objects.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `tool-${i}-config`, namespace: ns, labels },
      data: { [`TOOL_${i}_URL`]: `https://tool-${i}.apps.example.com`, note: "x".repeat(200) },
    });
    objects.push({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: `tool-${i}-access`, namespace: ns, labels },
      type: "Opaque",
      stringData: { [`TOOL_${i}_USER`]: "admin", [`TOOL_${i}_PASSWORD`]: `pw-${i}` },
    });
  }
  return objects;
}

function toolsObjects(ns: string): unknown[] {
  const labels = { group: "catalyst-tools", grouping: "garage-cloud-native-toolkit" };
  const objects: unknown[] = [{ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }];
  for (const tool of ["sonarqube", "argocd", "artifactory", "pactbroker", "dashboard"]) {
    const key = tool.toUpperCase();
    objects.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${tool}-config`, namespace: ns, labels },
      data: { [`${key}_URL`]: `https://${tool}.apps.example.com` },
    });
    objects.push({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: `${tool}-access`, namespace: ns, labels },
      type: "Opaque",
      stringData: { [`${key}_USER`]: "admin", [`${key}_PASSWORD`]: "s3cret" },
    });
  }
  return objects;
}

function fmt(figure: Figure | undefined): [string, string] {
  if (!figure) return ["-", "-"];
  const mark = figure.failures.length > 0 ? "!" : "";
  return [`${figure.ms.toFixed(0)}${mark}`, figure.mb.toFixed(0)];
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
}

/** Runs the benchmark and prints its table. */
export async function main(): Promise<void> {
  await ensureTime();
  const work = await Deno.makeTempDir({ prefix: "toolkit-cli-bench-" });
  let cluster: TestCluster | undefined;
  try {
    print(
      "Developer CLI benchmark: toolkit (deno run -A cli/main.ts) next to igc, same kube-apiserver",
    );
    const loadavg = await Deno.readTextFile("/proc/loadavg").catch(() => "?");
    print(
      `deno ${Deno.version.deno}; ${navigator.hardwareConcurrency} CPUs; load average ${
        loadavg.split(" ").slice(0, 3).join(" ")
      }`,
    );
    print("installing igc with npm into a temporary directory …");
    const igc = Deno.env.get("CLI_BENCH_SKIP_IGC")
      ? { error: "skipped ($CLI_BENCH_SKIP_IGC)" }
      : await installIgc(`${work}/igc`);
    if (typeof igc !== "string") {
      print(`igc could not be installed, toolkit figures only: ${igc.error}`);
    }
    cluster = await startCluster();
    await kubectlApply(cluster, toolsObjects("tools"));
    await kubectlApply(cluster, templateObjects("bench-template", 100));
    const kubeconfig = async (name: string) => {
      const path = `${work}/kubeconfig-${name}`;
      await Deno.copyFile(cluster!.kubeconfigPath, path);
      return path;
    };
    const base = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? work,
      NO_COLOR: "1",
    };
    const denoDir = Deno.env.get("DENO_DIR");
    const tkEnv = {
      ...base,
      ...(denoDir ? { DENO_DIR: denoDir } : {}),
      KUBECONFIG: await kubeconfig("tk"),
    };
    const igcEnv = { ...base, KUBECONFIG: await kubeconfig("igc") };
    const toolkit = (...args: string[]) => [DENO, "run", "-A", MAIN, ...args];
    const igcCmd = (...args: string[]) => [igc as string, ...args];
    const hasIgc = typeof igc === "string";
    const emptyScript = `${work}/empty.ts`;
    await Deno.writeTextFile(emptyScript, "");

    const rows: Array<{ name: string; tk?: Figure; igc?: Figure; target: string; ok?: boolean }> =
      [];
    const floor = await measure(() => [DENO, "run", "-A", emptyScript], tkEnv, 7);
    rows.push({ name: "deno run of an empty script (floor)", tk: floor, target: "" });

    const version = await measure(() => toolkit("--version"), tkEnv, 7);
    const igcVersion = hasIgc ? await measure(() => igcCmd("--version"), igcEnv, 5) : undefined;
    rows.push({
      name: "--version",
      tk: version,
      ...(igcVersion ? { igc: igcVersion } : {}),
      target: "< 100 ms, < 60 MB",
      ok: version.ms < 100 && version.mb < 60,
    });

    const creds = await measure(() => toolkit("credentials"), tkEnv, 7);
    const igcCreds = hasIgc ? await measure(() => igcCmd("credentials"), igcEnv, 5) : undefined;
    rows.push({
      name: "credentials",
      tk: creds,
      ...(igcCreds ? { igc: igcCreds } : {}),
      target: "< 400 ms",
      ok: creds.ms < 400,
    });
    const credsNode = await measure(
      () => toolkit("credentials"),
      { ...tkEnv, TOOLKIT_KUBE_CLIENT: "client-node" },
      5,
    );
    rows.push({
      name: "credentials via @kubernetes/client-node",
      tk: credsNode,
      target: "(for comparison)",
    });

    const tkSync = await measure(
      (i) => toolkit("sync", `tk-${i + 1}`, "-t", "bench-template"),
      tkEnv,
      3,
    );
    const igcSync = hasIgc
      ? await measure((i) => igcCmd("sync", `igc-${i + 1}`, "-t", "bench-template"), igcEnv, 3)
      : undefined;
    const ratio = igcSync ? igcSync.ms / tkSync.ms : undefined;
    rows.push({
      name: "sync of 100 objects (new namespace)",
      tk: tkSync,
      ...(igcSync ? { igc: igcSync } : {}),
      target: "< 3 s, ≥ 3× faster",
      ok: tkSync.ms < 3000 && (ratio === undefined || ratio >= 3),
    });
    const tkAgain = await measure(() => toolkit("sync", "tk-1", "-t", "bench-template"), tkEnv, 3);
    const igcAgain = hasIgc
      ? await measure(() => igcCmd("sync", "igc-1", "-t", "bench-template"), igcEnv, 3)
      : undefined;
    rows.push({
      name: "sync again (nothing to change)",
      tk: tkAgain,
      ...(igcAgain ? { igc: igcAgain } : {}),
      target: "",
    });

    const widths = [40, 11, 11, 8, 7, 20, 7];
    print("");
    print(
      pad(["command", "toolkit ms", "toolkit MB", "igc ms", "igc MB", "target", "met"], widths),
    );
    for (const row of rows) {
      print(pad([
        row.name,
        ...fmt(row.tk),
        ...fmt(row.igc),
        row.target,
        row.ok === undefined ? "" : row.ok ? "yes" : "NO",
      ], widths));
    }
    if (ratio !== undefined) print(`\nsync speed-up over igc: ${ratio.toFixed(1)}×`);
    const created = await cluster.kubectl([
      "get",
      "configmaps,secrets",
      "-n",
      "tk-1",
      "-l",
      "group=catalyst-tools",
      "-o",
      "name",
    ]);
    print(
      `objects copied by toolkit sync into tk-1: ${
        created.stdout.trim().split("\n").filter(Boolean).length
      }`,
    );
    if (hasIgc) {
      const byIgc = await cluster.kubectl([
        "get",
        "configmaps,secrets",
        "-n",
        "igc-1",
        "-l",
        "group=catalyst-tools",
        "-o",
        "name",
      ]);
      print(
        `objects copied by igc sync into igc-1: ${
          byIgc.stdout.trim().split("\n").filter(Boolean).length
        }`,
      );
    }
    for (const row of rows) {
      for (const [who, f] of [["toolkit", row.tk], ["igc", row.igc]] as const) {
        if (f && f.failures.length > 0) {
          print(`! ${who} ${row.name} failed ${f.failures.length}×: ${f.failures[0]}`);
        }
      }
    }
    print(
      "\nNotes: medians of separate processes after one warm-up run; toolkit runs as `deno run` " +
        "(no `deno compile` here); the machine is shared, so compare columns rather than absolutes.",
    );
  } finally {
    await cluster?.stop();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
