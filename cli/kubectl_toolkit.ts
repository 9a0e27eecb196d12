/**
 * The kubectl plugin `kubectl-toolkit`: the same CLI, whose help and messages say
 * `kubectl toolkit`. kubectl finds it on the PATH and passes the arguments after `toolkit`.
 *
 * @module
 */
import { runCli } from "./app.ts";
import { processIO } from "./io.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, { io: processIO(), programName: "kubectl toolkit" }));
}
