/**
 * The `toolkit` executable, and where the command context is wired, once: the process's
 * streams, and the real Kubernetes, git host and vault clients, clock and terminal
 * (`context.ts`). `--version` is answered before the argument parser loads, so it costs no
 * more than starting the runtime; every command loads only its own modules.
 *
 * @module
 */
import { VERSION } from "../lib/version.ts";

/** Runs the CLI as `programName` and exits with its status. */
export async function main(programName: string): Promise<never> {
  if (Deno.args.length === 1 && Deno.args[0] === "--version") {
    await Deno.stdout.write(new TextEncoder().encode(`${VERSION}\n`));
    Deno.exit(0);
  }
  const [{ runCli }, { processIO }, { commandContext }] = await Promise.all([
    import("./app.ts"),
    import("./io.ts"),
    import("./context.ts"),
  ]);
  Deno.exit(await runCli(Deno.args, commandContext(processIO(), programName)));
}

if (import.meta.main) await main("toolkit");
