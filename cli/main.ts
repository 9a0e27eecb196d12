/**
 * The `toolkit` executable.
 *
 * @module
 */
import { runCli } from "./app.ts";
import { processIO } from "./io.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, { io: processIO(), programName: "toolkit" }));
}
