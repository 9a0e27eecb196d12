/**
 * Installation benchmark (issue 5), run by `deno task bench`: how long `toolkit image-security`
 * takes against a real kube-apiserver (with kube-controller-manager), each command a separate
 * `deno run -A cli/main.ts` process (a compiled binary skips module loading: upper bounds).
 *
 * - `enable --dry-run -o yaml`: every manifest, with a new CA and certificate, no cluster;
 * - `enable --no-wait` on an empty cluster (CRDs created and established, 16 objects);
 * - `enable --no-wait` again (every object unchanged);
 * - `status`, `rotate-certs`;
 * - `disable --purge` (waits for the namespace controller) and `disable` alone;
 * - `helm template` of the chart, for comparison, when helm is provisioned.
 *
 * Each figure is the median of five runs. Target: a first `enable` under 3 s, a second under
 * 2 s.
 *
 * @module
 */
import { findTool, startCluster } from "../env/mod.ts";
import { median } from "./_stats.ts";

// deno-lint-ignore no-console
const print = console.log;

const ROOT = new URL("../../", import.meta.url).pathname;
const RUNS = 5;

async function timed(command: string, args: string[]): Promise<number> {
  const start = performance.now();
  const out = await new Deno.Command(command, {
    args,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const ms = performance.now() - start;
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return ms;
}

await using cluster = await startCluster();
const kube = ["--kubeconfig", cluster.kubeconfigPath];
const toolkit = (...args: string[]) =>
  timed(Deno.execPath(), ["run", "-A", `${ROOT}cli/main.ts`, ...args]);

const figures: [string, number[]][] = [];
const record = (name: string) => {
  const list: number[] = [];
  figures.push([name, list]);
  return list;
};
const dryRun = record("enable --dry-run -o yaml");
const first = record("enable --no-wait (empty cluster)");
const second = record("enable --no-wait (nothing to change)");
const status = record("status");
const rotate = record("rotate-certs");
const purge = record("disable --purge (waits for the namespace)");
const disable = record("disable");

await toolkit("--version"); // warm-up: Deno's code cache
for (let i = 0; i < RUNS; i++) {
  dryRun.push(await toolkit("image-security", "enable", "--dry-run", "-o", "yaml"));
  // --no-wait: nothing runs the webhook's pods here; waiting would time pod start-up.
  first.push(await toolkit("image-security", "enable", "--no-wait", ...kube));
  second.push(await toolkit("image-security", "enable", "--no-wait", ...kube));
  status.push(await toolkit("image-security", "status", ...kube));
  rotate.push(await toolkit("image-security", "rotate-certs", ...kube));
  if (i % 2 === 0) {
    purge.push(await toolkit("image-security", "disable", "--purge", ...kube));
  } else {
    disable.push(await toolkit("image-security", "disable", ...kube));
    purge.push(await toolkit("image-security", "disable", "--purge", ...kube));
  }
}
const helm = findTool("helm");
if (helm) {
  const template = record("helm template (for comparison)");
  for (let i = 0; i < RUNS; i++) {
    template.push(
      await timed(helm, [
        "template",
        "toolkit",
        `${ROOT}deploy/chart/toolkit`,
        "-n",
        "toolkit-system",
      ]),
    );
  }
}

print("\nimage-security install commands (median of runs, ms, real kube-apiserver)");
for (const [name, values] of figures) {
  print(
    `  ${name.padEnd(44)} ${median(values).toFixed(0).padStart(6)} ms  (${values.length} runs)`,
  );
}
