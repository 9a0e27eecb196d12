/**
 * `deno task compile [--target TRIPLE]`: builds the standalone executables into `dist/`:
 * `toolkit`, `kubectl-toolkit` (the kubectl plugin) and `toolkit-webhook`. `deno compile`
 * downloads the Deno runtime for the target from Deno's download server, so this needs a
 * machine that reaches it (the release workflow does).
 *
 * @module
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args,
  options: { target: { type: "string" }, out: { type: "string", default: "dist" } },
});
const suffix = values.target?.includes("windows") ? ".exe" : "";

/** The executables, their entry points and permissions. */
export const EXECUTABLES = [
  { name: "toolkit", entry: "cli/main.ts", permissions: ["--allow-all"] },
  { name: "kubectl-toolkit", entry: "cli/kubectl_toolkit.ts", permissions: ["--allow-all"] },
  {
    name: "toolkit-webhook",
    entry: "webhook/main.ts",
    // A smaller young generation keeps memory near 100 MB under load.
    permissions: [
      "--v8-flags=--max-semi-space-size=4",
      "--allow-net",
      "--allow-read",
      "--allow-env",
      "--allow-sys",
    ],
  },
] as const;

if (import.meta.main) {
  await Deno.mkdir(values.out!, { recursive: true });
  for (const exe of EXECUTABLES) {
    const args = [
      "compile",
      ...exe.permissions,
      "--no-check",
      ...(values.target ? ["--target", values.target] : []),
      "--output",
      `${values.out}/${exe.name}${suffix}`,
      exe.entry,
    ];
    // deno-lint-ignore no-console
    console.error(`deno ${args.join(" ")}`);
    const status = await new Deno.Command(Deno.execPath(), { args }).spawn().status;
    if (!status.success) Deno.exit(status.code || 1);
  }
}
