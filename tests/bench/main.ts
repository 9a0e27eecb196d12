/**
 * `deno task bench`: runs every benchmark of the project and prints its figures. Each
 * benchmark is a module under `tests/bench/` (or a `*_bench.ts` beside the code) run in its
 * own process so that memory figures are its own.
 *
 * @module
 */

const root = new URL("../../", import.meta.url).pathname;

async function findBenchFiles(dir: string, out: string[]): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && !["node_modules", ".git", "dist"].includes(entry.name)) {
      await findBenchFiles(path, out);
    } else if (entry.isFile && entry.name.endsWith("_bench.ts")) {
      out.push(path);
    }
  }
}

const denoBench: string[] = [];
for (const dir of ["lib", "webhook", "cli"]) await findBenchFiles(`${root}${dir}`, denoBench);
const scripts: string[] = [];
for await (const entry of Deno.readDir(`${root}tests/bench`)) {
  if (
    entry.isFile && entry.name.endsWith(".ts") && entry.name !== "main.ts" &&
    !entry.name.startsWith("_")
  ) {
    scripts.push(`${root}tests/bench/${entry.name}`);
  }
}

let failed = 0;
async function run(args: string[]): Promise<void> {
  const status = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "inherit",
    stderr: "inherit",
  })
    .spawn().status;
  if (!status.success) failed++;
}

if (denoBench.length > 0) await run(["bench", "-A", ...denoBench.sort()]);
for (const script of scripts.sort()) await run(["run", "-A", script]);
if (denoBench.length + scripts.length === 0) {
  // deno-lint-ignore no-console
  console.log("no benchmarks yet");
}
Deno.exit(failed === 0 ? 0 : 1);
