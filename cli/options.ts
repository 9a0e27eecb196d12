/**
 * From what the parser produced to a command's typed options: environment variables of flags
 * that were not given, then defaults; every value checked against its declaration (a flag given
 * twice where one is expected, a number that is not one, a value outside the choices, a
 * required positional missing) with a usage error (exit 2) that names the flag. The flags every
 * command has (`-v/--verbose`, `--quiet`, igc's `--debug`) are declared here once.
 *
 * @module
 */
import type { FlagSpec, OptionsOf, OptionsSpec, PositionalSpec } from "./command.ts";
import { UsageError } from "../lib/errors.ts";

/** The flags of every command, added to each by the CLI. */
export const COMMON_FLAGS: Readonly<Record<string, FlagSpec>> = {
  verbose: { type: "boolean", alias: "v", describe: "Tell each step on stderr" },
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
      if (given === undefined) return flag.default ?? false;
      if (typeof given !== "boolean") throw new UsageError(`${label} takes no value`);
      return given;
    case "array": {
      if (given === undefined) return flag.default ?? [];
      const list = (Array.isArray(given) ? given : [given]).map(String);
      for (const v of list) checkChoice(label, flag, v);
      return list;
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
      throw new UsageError(`Missing required flag --${name}`);
    }
    options[camelCase(name)] = value;
  }
  options.verbose = parsed.verbose === true || parsed.debug === true;
  options.quiet = parsed.quiet === true;
  return options as OptionsOf<S>;
}
