/**
 * The shape of a toolkit command: a declarative description (name, aliases, positionals,
 * flags, help) that is cheap to load, and a `load` that imports the implementation only when
 * the command runs, so `toolkit --version` and `--help` stay fast.
 *
 * @module
 */
import type { CliIO } from "./io.ts";

/** A flag of a command. */
export interface FlagSpec {
  /** The value type. */
  type: "string" | "boolean" | "number" | "array";
  /** Help text. */
  describe: string;
  /** Other names (`-n` for `--namespace`). */
  alias?: string | string[];
  /** The value when the flag is not given. */
  default?: string | boolean | number | string[];
  /** The only values accepted. */
  choices?: readonly string[];
  /** The flag must be given. */
  demandOption?: boolean;
  /** An environment variable read when the flag is not given. */
  env?: string;
  /** Kept out of `--help` (compatibility spellings). */
  hidden?: boolean;
}

/** A positional argument. */
export interface PositionalSpec {
  /** The value type. */
  type: "string" | "number";
  /** Help text. */
  describe: string;
  /** The value when the argument is not given. */
  default?: string;
  /** Takes every remaining argument. */
  variadic?: boolean;
}

/** The parsed arguments of a command: flags and positionals by name (camelCase and as written). */
export type CommandArgs = Readonly<Record<string, unknown>>;

/** What a command's implementation receives besides its arguments. */
export interface CommandContext {
  /** Streams and environment. */
  readonly io: CliIO;
  /** How the user invoked toolkit: `toolkit` or `kubectl toolkit`. */
  readonly programName: string;
}

/** The implementation of a command. Returns the exit status (0 when nothing is returned). */
export type CommandRun = (args: CommandArgs, ctx: CommandContext) => Promise<number | void>;

/** A command of the CLI. */
export interface CommandSpec {
  /** The usage line without the program name, e.g. `sync [namespace]`. */
  readonly usage: string;
  /** Other names of the command. */
  readonly aliases?: readonly string[];
  /** One line of help. */
  readonly describe: string;
  /** Positional arguments, by the names used in `usage`. */
  readonly positionals?: Readonly<Record<string, PositionalSpec>>;
  /** Flags by their long name. */
  readonly flags?: Readonly<Record<string, FlagSpec>>;
  /** Examples shown in help: [command line, what it does]. */
  readonly examples?: readonly (readonly [string, string])[];
  /** Subcommands (for groups such as `image-security`). */
  readonly subcommands?: readonly CommandSpec[];
  /** Loads the implementation. Absent for groups. */
  readonly load?: () => Promise<CommandRun>;
}

/** The name of a command: the first word of its usage. */
export function commandName(spec: CommandSpec): string {
  return spec.usage.split(" ")[0] ?? spec.usage;
}
