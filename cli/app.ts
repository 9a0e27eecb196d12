/**
 * The toolkit command line: parses arguments with yargs from the declarative command list,
 * runs the chosen command, and turns errors into exit statuses (2 for usage errors, 1 for
 * failures). Shared by `toolkit` and the kubectl plugin `kubectl-toolkit`.
 *
 * @module
 */
import yargs from "yargs";
import type { Argv } from "yargs";
import { type CommandContext, commandName, type CommandSpec } from "./command.ts";
import { COMMON_FLAGS } from "./options.ts";
import { COMMANDS } from "./commands.ts";
import { type CliIO, paint } from "./io.ts";
import { completions, completionScript } from "./completion.ts";
import { describeError, UsageError } from "../lib/errors.ts";
import { VERSION } from "../lib/version.ts";

interface Chosen {
  spec: CommandSpec;
  args: Readonly<Record<string, unknown>>;
}

function addCommands(
  y: Argv,
  specs: readonly CommandSpec[],
  choose: (c: Chosen) => void,
): Argv {
  for (const spec of specs) {
    y = y.command(
      [spec.usage, ...(spec.aliases ?? [])],
      spec.describe,
      (sub: Argv) => buildCommand(sub, spec, choose),
      (args: Record<string, unknown>) => choose({ spec, args }),
    );
  }
  return y;
}

function buildCommand(y: Argv, spec: CommandSpec, choose: (c: Chosen) => void): Argv {
  for (const [name, p] of Object.entries(spec.positionals ?? {})) {
    y = y.positional(name, {
      type: p.type,
      describe: p.describe,
      ...(p.default !== undefined ? { default: p.default } : {}),
    });
  }
  const flags = spec.load ? { ...spec.flags, ...COMMON_FLAGS } : spec.flags ?? {};
  for (const [name, f] of Object.entries(flags)) {
    // A flag read from the environment gets its default after the environment (in
    // resolveOptions), so that yargs' default never hides the variable.
    const describe = f.env
      ? `${f.describe} [env: ${f.env}]${
        f.default !== undefined ? ` [default: ${JSON.stringify(f.default)}]` : ""
      }`
      : f.describe;
    y = y.option(name, {
      // Numbers are parsed by resolveOptions, which names what was given when it is not one
      // (yargs would turn it into NaN first).
      type: f.type === "number" ? "string" : f.type,
      describe,
      ...(f.alias !== undefined ? { alias: f.alias } : {}),
      ...(f.default !== undefined && !f.env ? { default: f.default } : {}),
      ...(f.choices !== undefined ? { choices: [...f.choices] } : {}),
      ...(f.hidden ? { hidden: true } : {}),
      ...(f.demandOption ? { demandOption: true } : {}),
    });
  }
  for (const [example, what] of spec.examples ?? []) y = y.example(example, what);
  if (spec.subcommands) {
    y = addCommands(y, spec.subcommands, choose).demandCommand(
      1,
      `Choose a command of "${commandName(spec)}"`,
    );
  }
  return y;
}

/**
 * The mark that a lone `-` (standard input) and every argument after `--` carry through yargs,
 * which would otherwise read `-` as an empty value and bind nothing after `--` (so that
 * `yq w f key -- -x` could not write `-x`). No command-line argument can hold it.
 */
const LITERAL = "\u0000";

/** The arguments with `-` and those after `--` marked as positional values (`--` dropped). */
export function markLiterals(argv: readonly string[]): string[] {
  const out: string[] = [];
  let literal = false;
  for (const arg of argv) {
    if (!literal && arg === "--") literal = true;
    else out.push(literal || arg === "-" ? LITERAL + arg : arg);
  }
  return out;
}

function unmark(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll(LITERAL, "");
  return Array.isArray(value) ? value.map(unmark) : value;
}

/** The first word of `argv` that names no command where it stands (`yq x` → `x`). */
export function unknownCommandWord(
  commands: readonly CommandSpec[],
  argv: readonly string[],
): string | undefined {
  let level: readonly CommandSpec[] | undefined = commands;
  for (const word of argv) {
    if (word.startsWith("-")) continue;
    if (level === undefined) return undefined;
    const spec: CommandSpec | undefined = level.find((c) =>
      commandName(c) === word || (c.aliases ?? []).includes(word)
    );
    if (spec === undefined) return word;
    level = spec.subcommands;
  }
  return undefined;
}

/**
 * `argv` with the words after a command that rewrites its arguments (`rewriteArgs` of its
 * declaration) rewritten by it, up to a `--`.
 */
export function rewriteCommandArgs(
  commands: readonly CommandSpec[],
  argv: readonly string[],
): string[] {
  let level: readonly CommandSpec[] = commands;
  for (const [i, word] of argv.entries()) {
    if (word === "--") break;
    if (word.startsWith("-")) continue;
    const spec = level.find((c) => commandName(c) === word || (c.aliases ?? []).includes(word));
    if (spec === undefined) break;
    if (spec.rewriteArgs) {
      const end = argv.indexOf("--", i + 1);
      const args = end === -1 ? argv.slice(i + 1) : argv.slice(i + 1, end);
      return [
        ...argv.slice(0, i + 1),
        ...spec.rewriteArgs(args),
        ...(end === -1 ? [] : argv.slice(end)),
      ];
    }
    if (!spec.subcommands) break;
    level = spec.subcommands;
  }
  return [...argv];
}

/** Writes an error the way every command reports one, and returns its exit status. */
export function reportError(io: CliIO, programName: string, error: unknown): number {
  const usage = error instanceof UsageError;
  io.stderr.write(`${paint(io, "31", "error:")} ${describeError(error)}\n`);
  if (usage) io.stderr.write(`Run '${programName} --help' for usage.\n`);
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
  if (argv[0] === "completion") {
    const shell = argv[1] ?? "bash";
    if (argv.length > 2 || (shell !== "bash" && shell !== "zsh")) {
      return reportError(io, programName, new UsageError("Usage: completion [bash|zsh]"));
    }
    io.stdout.write(completionScript(shell, programName));
    return 0;
  }

  let chosen: Chosen | undefined;
  const parser = addCommands(
    yargs()
      .scriptName(programName)
      .usage(`${programName} <command> [args]`)
      .parserConfiguration({ "parse-positional-numbers": false, "dot-notation": false })
      .command(
        "completion [shell]",
        "Print a bash or zsh completion script",
        (y: Argv) =>
          y.positional("shell", { type: "string", choices: ["bash", "zsh"], default: "bash" }),
      )
      .version(VERSION)
      .help()
      .alias("help", "h")
      .strict()
      .recommendCommands()
      .exitProcess(false)
      .wrap(100)
      .fail((message: string | undefined, error: Error | undefined) => {
        if (error) throw error;
        let text = (message ?? "Invalid arguments").replaceAll(LITERAL, "");
        if (text.startsWith("Did you mean")) {
          text = `Unknown command "${unknownCommandWord(commands, argv) ?? argv[0]}". ${text}`;
        }
        throw new UsageError(text);
      }),
    commands,
    (c) => (chosen = c),
  );

  if (argv.length === 0) {
    io.stderr.write(`${await parser.getHelp()}\n\n`);
    return reportError(io, programName, new UsageError("Choose a command"));
  }

  let output = "";
  try {
    await parser.parseAsync(
      markLiterals(rewriteCommandArgs(commands, argv)),
      {},
      (_err: unknown, _args: unknown, text: string) => {
        output = text;
      },
    );
  } catch (error) {
    return reportError(io, programName, error);
  }
  if (output) {
    io.stdout.write(`${output}\n`);
    return 0;
  }
  if (!chosen) {
    return reportError(io, programName, new UsageError(`Unknown command "${argv[0]}"`));
  }
  try {
    const run = await chosen.spec.load!();
    const args = Object.fromEntries(Object.entries(chosen.args).map(([k, v]) => [k, unmark(v)]));
    const status = await run(args, ctx);
    return status ?? 0;
  } catch (error) {
    return reportError(io, programName, error);
  }
}
