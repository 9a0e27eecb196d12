/**
 * From what the parser produced to a command's typed options: environment variables of flags
 * that were not given, then defaults; every value checked against its declaration (a flag given
 * twice where one is expected, a number that is not one, a value outside the choices, a
 * required positional missing) with a usage error (exit 2) that names the flag. The flags every
 * command has (`-v/--verbose`, `--quiet`, igc's `--debug`) are declared here once, and so are the
 * types of a declaration (flags, positionals) and of the options object it gives
 * ({@link OptionsOf}).
 *
 * @module
 */
import { UsageError } from "../lib/errors.ts";

/** A flag of a command. */
export interface FlagSpec {
  /**
   * The value type. `duration` is kubectl's: `30s`, `2m`, `1h30m`, a bare number of seconds, `0`
   * for none; its value is in milliseconds.
   */
  readonly type: "string" | "boolean" | "number" | "duration" | "array";
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
  /**
   * For a boolean: undefined when neither `--flag` nor `--no-flag` is given, so that the command
   * decides (`pipeline --sign`: sign when signing is set up).
   */
  readonly undecided?: true;
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
  /** The only values accepted. */
  readonly choices?: readonly string[];
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
  : F["type"] extends "number" | "duration" ? number
  : F["type"] extends "array" ? readonly string[]
  : F extends { readonly choices: readonly (infer C)[] } ? C
  : string;

/** Whether a flag always has a value: booleans and arrays, flags with a default or demanded. */
type FlagAlwaysSet<F extends FlagSpec> = F extends { readonly undecided: true } ? false
  : F["type"] extends "boolean" | "array" ? true
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
      : Positionals[K] extends { readonly choices: readonly (infer C)[] }
        ? Positionals[K] extends { readonly required: true } | { readonly default: string } ? C
        : C | undefined
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

/** The flags of every command, added to each by the CLI. */
export const COMMON_FLAGS: Readonly<Record<string, FlagSpec>> = {
  verbose: {
    type: "boolean",
    alias: "v",
    describe: "Tell each step on stderr, and each server contacted",
  },
  quiet: { type: "boolean", describe: "Print only warnings and errors on stderr" },
  debug: { type: "boolean", hidden: true, describe: "Same as --verbose (igc's spelling)" },
};

/** `foo-bar` → `fooBar`. */
export function camelCase(name: string): string {
  return name.replace(/-([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

function flagLabel(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A duration as kubectl's `--request-timeout` takes it, in milliseconds: Go's durations (`30s`,
 * `1.5m`, `1h30m`, `250ms`), or a bare number of seconds (`5`); `0` is none. Undefined when the
 * text is none of these.
 */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  if (t === "" || !/^((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/.test(t)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of t.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    ms += Number(amount) * DURATION_UNITS[unit!]!;
  }
  return ms;
}

function fromEnvironment(name: string, flag: FlagSpec, text: string): unknown {
  switch (flag.type) {
    case "boolean":
      if (/^(true|1|yes)$/i.test(text)) return true;
      if (/^(false|0|no)$/i.test(text)) return false;
      throw new UsageError(`$${flag.env} (for --${name}) must be true or false, not "${text}"`);
    case "array":
      return [text];
    default:
      return text;
  }
}

function flagValue(name: string, flag: FlagSpec, given: unknown): unknown {
  const label = flagLabel(name);
  switch (flag.type) {
    case "boolean":
      if (given === undefined) return flag.undecided ? undefined : flag.default ?? false;
      if (typeof given !== "boolean") throw new UsageError(`${label} takes no value`);
      return given;
    case "array": {
      if (given === undefined) return flag.default ?? [];
      const list = (Array.isArray(given) ? given : [given]).map(String);
      for (const v of list) checkChoice(label, flag, v);
      return list;
    }
    case "duration": {
      if (given === undefined) {
        return typeof flag.default === "string" ? parseDuration(flag.default) : flag.default;
      }
      if (Array.isArray(given)) throw new UsageError(`${label} was given ${given.length} times`);
      const ms = parseDuration(String(given));
      if (ms === undefined) {
        throw new UsageError(
          `${label} must be a duration such as 30s, 2m or 1h (a number alone is seconds; 0 is none), not "${
            String(given)
          }"`,
        );
      }
      return ms;
    }
    case "number": {
      if (given === undefined) return flag.default;
      if (Array.isArray(given)) throw new UsageError(`${label} was given ${given.length} times`);
      const n = typeof given === "number" ? given : Number(String(given));
      if (!Number.isFinite(n) || String(given).trim() === "") {
        throw new UsageError(`${label} must be a number, not "${String(given)}"`);
      }
      return n;
    }
    default: {
      if (given === undefined) return flag.default;
      if (Array.isArray(given)) {
        throw new UsageError(`${label} was given ${given.length} times; give it once`);
      }
      if (typeof given === "boolean") throw new UsageError(`${label} needs a value`);
      const text = String(given);
      checkChoice(label, flag, text);
      return text;
    }
  }
}

function checkChoice(label: string, flag: FlagSpec, value: string): void {
  if (flag.choices && !flag.choices.includes(value)) {
    throw new UsageError(
      `${label} must be one of ${flag.choices.join(", ")}, not "${value}"`,
    );
  }
}

function positionalValue(name: string, spec: PositionalSpec, given: unknown): unknown {
  if (spec.variadic) {
    const list = given === undefined ? [] : (Array.isArray(given) ? given : [given]).map(String);
    if (spec.required && list.length === 0) throw new UsageError(`Give at least one ${name}`);
    return list;
  }
  if (given === undefined || (given === "" && !spec.allowEmpty)) {
    if (spec.default !== undefined) return spec.default;
    if (spec.required) throw new UsageError(`Give the ${name}`);
    return undefined;
  }
  if (Array.isArray(given)) throw new UsageError(`Give one ${name}`);
  if (spec.choices && !spec.choices.includes(String(given))) {
    throw new UsageError(`${name} must be one of ${spec.choices.join(", ")}, not "${given}"`);
  }
  return String(given);
}

/**
 * Resolves the parsed arguments of a command into its typed options: positionals and flags by
 * their camelCase names, each checked against `spec`, plus `verbose` and `quiet`.
 */
export function resolveOptions<S extends OptionsSpec>(
  spec: S,
  parsed: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): OptionsOf<S> {
  const options: Record<string, unknown> = {};
  for (const [name, positional] of Object.entries(spec.positionals ?? {})) {
    options[name] = positionalValue(name, positional, parsed[name]);
  }
  for (const [name, flag] of Object.entries(spec.flags ?? {})) {
    let given = parsed[name] ?? parsed[camelCase(name)];
    if (
      given === undefined && flag.type === "boolean" && flag.trueWhen &&
      env[flag.trueWhen.env] === flag.trueWhen.value
    ) {
      given = true;
    }
    if (given === undefined && flag.env) {
      const text = env[flag.env];
      if (text !== undefined && text !== "") given = fromEnvironment(name, flag, text);
    }
    const value = flagValue(name, flag, given);
    if (flag.demandOption && (value === undefined || value === "")) {
      throw new UsageError(`Missing required flag --${name}: ${flag.describe}`);
    }
    options[camelCase(name)] = value;
  }
  const { verbose, quiet } = verbosity(parsed);
  options.verbose = verbose;
  options.quiet = quiet;
  return options as OptionsOf<S>;
}

/**
 * How much a command says, from its parsed flags: `-v`/`--debug` make it verbose, `--quiet`
 * quiet.
 *
 * @throws {UsageError} when both are given.
 */
export function verbosity(
  parsed: Readonly<Record<string, unknown>>,
): { verbose: boolean; quiet: boolean } {
  const verbose = parsed.verbose === true || parsed.debug === true;
  const quiet = parsed.quiet === true;
  if (verbose && quiet) {
    const flag = parsed.verbose === true ? "-v/--verbose" : "--debug";
    throw new UsageError(`Cannot use ${flag} with --quiet: choose one`);
  }
  return { verbose, quiet };
}
