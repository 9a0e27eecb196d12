/**
 * The `toolkit` executable. `--version` is answered before the argument parser loads, so it
 * costs no more than starting the runtime; every command loads only its own modules.
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
  const [{ runCli }, { processIO }] = await Promise.all([import("./app.ts"), import("./io.ts")]);
  Deno.exit(await runCli(Deno.args, { io: processIO(), programName }));
}

if (import.meta.main) await main("toolkit");
