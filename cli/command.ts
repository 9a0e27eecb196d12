/**
 * The shape of a toolkit command. A command declares its options once (positionals and flags,
 * with {@link defineOptions}); from that one declaration come the parser's configuration, the
 * help, the completion words and the TypeScript type of the options object its implementation
 * receives ({@link OptionsOf}). The declaration is cheap to load; the implementation is imported
 * only when the command runs (`load`), so `toolkit --version` and `--help` stay fast.
 *
 * A run goes parse (yargs, from the declaration) → resolve and validate ({@link resolveOptions}
 * in `options.ts`: environment defaults, types, choices, numbers) → the command's own checks and
 * work, on a typed object: no command reads untyped arguments.
 *
 * @module
 */
import type { CliIO } from "./io.ts";
import { resolveOptions } from "./options.ts";

/** A flag of a command. */
export interface FlagSpec {
  /** The value type. */
  readonly type: "string" | "boolean" | "number" | "array";
  /** Help text. */
  readonly describe: string;
  /** Other names (`n` for `--namespace`). */
  readonly alias?: string | readonly string[];
  /** The value when the flag is not given. */
  readonly default?: string | boolean | number | readonly string[];
  /** The only values accepted. */
  readonly choices?: readonly string[];
  /** The flag must be given. */
  readonly demandOption?: boolean;
  /** An environment variable read when the flag is not given. */
  readonly env?: string;
  /**
   * For a boolean: true when not given and this environment variable has this value, as igc's
   * `CLOUDSHELL=true` turns `--throttle` on; the command line still wins (`--no-throttle`).
   */
  readonly trueWhen?: { readonly env: string; readonly value: string };
  /** Kept out of `--help` (compatibility spellings). */
  readonly hidden?: boolean;
}

/** A positional argument. */
export interface PositionalSpec {
  /** The value type. */
  readonly type: "string";
  /** Help text. */
  readonly describe: string;
  /** The value when the argument is not given. */
  readonly default?: string;
  /** Takes every remaining argument. */
  readonly variadic?: boolean;
  /** The argument must be given (`<name>` in the usage line). */
  readonly required?: boolean;
  /** An empty string is a value, not a missing argument (`yq w f key ''`). */
  readonly allowEmpty?: boolean;
}

/** What a command accepts: its positionals (in order) and flags (by long name). */
export interface OptionsSpec {
  /** Positional arguments, by the names used in the usage line. */
  readonly positionals?: Readonly<Record<string, PositionalSpec>>;
  /** Flags by their long name. */
  readonly flags?: Readonly<Record<string, FlagSpec>>;
}

/** `foo-bar` → `fooBar` (the property name of a flag in the options object). */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The value type of a flag. */
type FlagValue<F extends FlagSpec> = F["type"] extends "boolean" ? boolean
  : F["type"] extends "number" ? number
  : F["type"] extends "array" ? readonly string[]
  : F extends { readonly choices: readonly (infer C)[] } ? C
  : string;

/** Whether a flag always has a value: booleans and arrays, flags with a default or demanded. */
type FlagAlwaysSet<F extends FlagSpec> = F["type"] extends "boolean" | "array" ? true
  : F extends { readonly default: string | number | boolean | readonly string[] } ? true
  : F extends { readonly demandOption: true } ? true
  : false;

type FlagOptions<Flags> = Flags extends Readonly<Record<string, FlagSpec>> ? {
    readonly [K in keyof Flags & string as CamelCase<K>]: FlagAlwaysSet<Flags[K]> extends true
      ? FlagValue<Flags[K]>
      : FlagValue<Flags[K]> | undefined;
  }
  : unknown;

type PositionalOptions<Positionals> = Positionals extends Readonly<Record<string, PositionalSpec>>
  ? {
    readonly [K in keyof Positionals & string]: Positionals[K] extends { readonly variadic: true }
      ? readonly string[]
      : Positionals[K] extends { readonly required: true } | { readonly default: string } ? string
      : string | undefined;
  }
  : unknown;

/** The options every command has: how much it tells on stderr. */
export interface CommonOptions {
  /** `-v/--verbose` (igc's `--debug` too): tell each step. */
  readonly verbose: boolean;
  /** `--quiet`: only errors and warnings. */
  readonly quiet: boolean;
}

/** The typed options object of a command declared with `S`. */
export type OptionsOf<S extends OptionsSpec> =
  & PositionalOptions<S["positionals"]>
  & FlagOptions<S["flags"]>
  & CommonOptions;

/**
 * Declares the options of a command. The literal types are kept (`const`), so that
 * {@link OptionsOf} can type the options object from it.
 */
export function defineOptions<const S extends OptionsSpec>(spec: S): S {
  return spec;
}

/** What a command's implementation receives besides its options. */
export interface CommandContext {
  /** Streams and environment. */
  readonly io: CliIO;
  /** How the user invoked toolkit: `toolkit` or `kubectl toolkit`. */
  readonly programName: string;
}

/** The implementation of a command. Returns the exit status (0 when nothing is returned). */
export type CommandRun<S extends OptionsSpec> = (
  options: OptionsOf<S>,
  ctx: CommandContext,
) => Promise<number | void>;

/**
 * A command ready to run: it takes what the parser produced, resolves and validates it against
 * its declaration, and calls the typed implementation. Made by {@link command}.
 */
export type ParsedRun = (
  parsed: Readonly<Record<string, unknown>>,
  ctx: CommandContext,
) => Promise<number | void>;

/** A command of the CLI. */
export interface CommandSpec extends OptionsSpec {
  /** The usage line without the program name, e.g. `sync [namespace]`. */
  readonly usage: string;
  /** Other names of the command. */
  readonly aliases?: readonly string[];
  /** One line of help. */
  readonly describe: string;
  /** Examples shown in help: [command line, what it does]. */
  readonly examples?: readonly (readonly [string, string])[];
  /** Subcommands (for groups such as `image-security`). */
  readonly subcommands?: readonly CommandSpec[];
  /** Loads the implementation. Absent for groups. */
  readonly load?: () => Promise<ParsedRun>;
}

/** What {@link command} needs besides the options. */
export interface CommandInfo<S extends OptionsSpec> {
  /** The usage line without the program name. */
  readonly usage: string;
  /** Other names of the command. */
  readonly aliases?: readonly string[];
  /** One line of help. */
  readonly describe: string;
  /** Examples shown in help. */
  readonly examples?: readonly (readonly [string, string])[];
  /** Imports the typed implementation. */
  readonly load: () => Promise<CommandRun<NoInfer<S>>>;
}

/**
 * A command from its option declaration and implementation: the implementation is typed by
 * the declaration, and receives options resolved and validated by {@link resolveOptions}.
 */
export function command<const S extends OptionsSpec>(
  options: S,
  info: CommandInfo<S>,
): CommandSpec {
  return {
    usage: info.usage,
    describe: info.describe,
    ...(info.aliases ? { aliases: info.aliases } : {}),
    ...(info.examples ? { examples: info.examples } : {}),
    ...options,
    load: async () => bindOptions(options, await info.load()),
  };
}

/**
 * The implementation `run` of a command declared with `options`, taking parsed arguments (by
 * flag name or its camelCase) and resolving them first, as the CLI does.
 */
export function bindOptions<const S extends OptionsSpec>(
  options: S,
  run: CommandRun<NoInfer<S>>,
): ParsedRun {
  return (parsed, ctx) => run(resolveOptions(options, parsed, ctx.io.env), ctx);
}

/** The name of a command: the first word of its usage. */
export function commandName(spec: CommandSpec): string {
  return spec.usage.split(" ")[0] ?? spec.usage;
}
