/**
 * The toolkit command line: parses the arguments against the declarative command list
 * (`parse.ts`, strict: unknown flags, flags without their value and missing arguments are usage
 * errors), prints help (`help.ts`), runs the chosen command, and turns errors into exit statuses:
 * 2 for usage errors (followed by a pointer to that command's `--help`), 1 for failures (no
 * pointer: the command line was right), 130 when the user cancelled (Ctrl-C at a prompt). Shared
 * by `toolkit` and the kubectl plugin `kubectl-toolkit`.
 *
 * @module
 */
import type { CommandContext, CommandSpec } from "./command.ts";
import { COMMANDS } from "./commands.ts";
import { type CliIO, paint } from "./io.ts";
import { completions } from "./completion.ts";
import { renderHelp } from "./help.ts";
import { verbosity } from "./options.ts";
import { CommandLineError, commandWords, parseCommandLine } from "./parse.ts";
import { PromptCancelledError } from "./terminal.ts";
import { networkAdvice } from "./network.ts";
import { describeError, UsageError } from "../lib/errors.ts";
import { FileExistsError } from "../lib/file_write.ts";
import { VERSION } from "../lib/version.ts";

/**
 * Whether `error` is one the user fixes by changing the command line, so exit 2 with the pointer
 * to `--help` (docs/cli.md, "Exit statuses"): a `UsageError`, and a file that exists where
 * `--force` (or another path) is the answer, whichever command wrote it.
 */
export function isUsageError(error: unknown): boolean {
  return error instanceof UsageError || error instanceof FileExistsError;
}

/** The exit status of a command the user cancelled (128 + SIGINT), as shells report Ctrl-C. */
export const CANCELLED_STATUS = 130;

/**
 * Writes an error the way every command reports one, and returns its exit status. A usage error
 * is followed by a pointer to the `--help` of `command` (the words of the command it concerns;
 * the program's own help when empty).
 */
export function reportError(
  io: CliIO,
  programName: string,
  error: unknown,
  command: readonly string[] = [],
): number {
  if (error instanceof PromptCancelledError) {
    io.stderr.write(`${paint(io, "33", "cancelled")}\n`);
    return CANCELLED_STATUS;
  }
  const usage = isUsageError(error);
  const advice = usage ? undefined : networkAdvice(error);
  io.stderr.write(
    `${paint(io, "31", "error:")} ${describeError(error)}${advice ? `\n${advice}` : ""}\n`,
  );
  if (usage) {
    const words = error instanceof CommandLineError ? error.command : command;
    io.stderr.write(`Run '${[programName, ...words].join(" ")} --help' for usage.\n`);
  }
  return usage ? 2 : 1;
}

/**
 * Runs the CLI with the given arguments (without the program name) in `ctx` (its streams, its
 * program name and the clients its commands use; see `context.ts`) and returns the exit status.
 * Nothing here calls `Deno.exit`, so it can be tested in-process.
 */
export async function runCli(
  argv: readonly string[],
  ctx: CommandContext,
  commands: readonly CommandSpec[] = COMMANDS,
): Promise<number> {
  const { io, programName } = ctx;

  if (argv[0] === "__complete") {
    for (const word of completions(commands, argv.slice(1))) io.stdout.write(`${word}\n`);
    return 0;
  }
  if (argv.length === 0) {
    io.stderr.write(`${renderHelp(commands, [], programName, VERSION)}\n`);
    return reportError(io, programName, new UsageError("Choose a command"));
  }

  let parsed;
  try {
    parsed = parseCommandLine(commands, argv);
  } catch (error) {
    return reportError(io, programName, error);
  }
  if (parsed.kind === "version") {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (parsed.kind === "help") {
    io.stdout.write(renderHelp(commands, parsed.path, programName, VERSION));
    return 0;
  }
  const words = commandWords(parsed.path);
  let verbose;
  try {
    ({ verbose } = verbosity(parsed.values));
  } catch (error) {
    return reportError(io, programName, error, words);
  }
  if (verbose) {
    // -v tells something on every command: which toolkit runs what, where (then each step and
    // each request the command makes).
    io.stderr.write(
      `${
        paint(io, "2", `toolkit ${VERSION}: ${[programName, ...words].join(" ")} in ${io.cwd}`)
      }\n`,
    );
  }
  try {
    const run = await parsed.spec.load!();
    const status = await run(parsed.values, ctx);
    return status ?? 0;
  } catch (error) {
    return reportError(io, programName, error, words);
  }
}
