/**
 * The one strict parser of every toolkit command line: from the words the user typed to the
 * command they name and the values of its positionals and flags, by the command's declaration
 * (`defineCommand()`), with no command parsing anything itself. What it accepts is what kubectl
 * (pflag) and skopeo accept:
 *
 * - `--name value`, `--name=value`, `-n value`, `-nvalue`, `-n=value`; a cluster of short
 *   booleans (`-vi`) whose last letter may take a value (`-vn dev`);
 * - booleans as `--flag`, `--flag=true|false`, `--no-flag` (and, as igc's yargs did, a `true` or
 *   `false` word right after the flag);
 * - a flag that takes a value repeated where the declaration allows it (`--param a=1 --param b=2`;
 *   one value each time);
 * - `-` alone is a value (standard input), and every word after `--` is a positional;
 * - flags and positionals in any order.
 *
 * What it refuses, each a {@linkcode CommandLineError} (exit 2) that names the problem and the
 * command whose `--help` tells more:
 *
 * - a flag that needs a value and has none: last on the line (`-n`), or followed by another flag
 *   (`-n --other`; a value that starts with `-` is written `-n=-x`);
 * - an unknown flag, with its dashes and the nearest known one (`--namepsace`: did you mean
 *   `--namespace`?), including a long flag written with one dash (`-namespace`), which pflag
 *   would silently read as `-n amespace`;
 * - a missing required positional, by its name (`<image>`), and a word no positional takes;
 * - an unknown command (did you mean…), and a group without its command.
 *
 * The values it gives are strings (numbers and durations too: `resolveOptions()` in
 * `options.ts` checks and converts them, naming the flag) by each flag's declared name.
 *
 * @module
 */
import { commandName, type CommandSpec } from "./command.ts";
import { COMMON_FLAGS, type FlagSpec, type PositionalSpec } from "./options.ts";
import { UsageError } from "../lib/errors.ts";

/**
 * A mistake in the command line. `command` is the command words it concerns (`["image-security",
 * "sign"]`), whose `--help` the error points to; empty for the program itself.
 */
export class CommandLineError extends UsageError {
  /** The words of the command whose `--help` tells how to call it. */
  readonly command: readonly string[];

  /** Creates the error. */
  constructor(message: string, command: readonly string[]) {
    super(message);
    this.name = "CommandLineError";
    this.command = command;
  }
}

/** What a command line asks for. */
export type ParsedCommandLine =
  /** `--help` (or `-h`) of the program, a group or a command. */
  | { readonly kind: "help"; readonly path: readonly CommandSpec[] }
  /** `--version`. */
  | { readonly kind: "version" }
  /** A command to run with these values (by declared flag and positional names). */
  | {
    readonly kind: "run";
    readonly path: readonly CommandSpec[];
    readonly spec: CommandSpec;
    readonly values: Readonly<Record<string, unknown>>;
  };

/** The words of a command path, for messages (`image-security sign`). */
export function commandWords(path: readonly CommandSpec[]): string[] {
  return path.map(commandName);
}

/** The flags a command accepts: its own and the ones every command has. */
export function flagsOf(spec: CommandSpec): Readonly<Record<string, FlagSpec>> {
  return spec.load ? { ...spec.flags, ...COMMON_FLAGS } : spec.flags ?? {};
}

/** `-n` for a one-letter name, `--name` otherwise. */
export function flagLabel(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

/** `fooBar` → `foo-bar`. */
function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** `foo-bar` → `fooBar`. */
function camel(name: string): string {
  return name.replace(/-([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A name a flag answers to, and the flag. */
interface FlagEntry {
  /** The declared (long) name. */
  readonly name: string;
  readonly spec: FlagSpec;
}

/** The names (without dashes) each flag of a command answers to. */
function flagIndex(flags: Readonly<Record<string, FlagSpec>>): {
  long: Map<string, FlagEntry>;
  short: Map<string, FlagEntry>;
} {
  const long = new Map<string, FlagEntry>();
  const short = new Map<string, FlagEntry>();
  for (const [name, spec] of Object.entries(flags)) {
    const entry = { name, spec };
    const aliases = spec.alias === undefined ? [] : [spec.alias].flat();
    for (const n of [name, ...aliases]) {
      if (n.length === 1) short.set(n, entry);
      else {
        // igc's camelCase flags are also taken in kebab-case and the other way round, as
        // yargs took them.
        for (const spelling of [n, kebabCase(n), camel(n)]) {
          if (!long.has(spelling)) long.set(spelling, entry);
        }
      }
    }
  }
  return { long, short };
}

/**
 * The optimal string alignment distance between `a` and `b` (insertions, deletions,
 * substitutions and swaps of neighbours): `namepsace` is 1 from `namespace`.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = 0; i <= a.length; i++) d[i]![0] = i;
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate nearest to `word` when it is near enough to be what was meant. */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  return bestDistance <= allowed ? best : undefined;
}

/** A word that reads as a number (`-1`, `2.5`), which a number flag may take as its value. */
function isNumberWord(word: string): boolean {
  return /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(word);
}

/** Whether the word after a flag is another flag rather than its value. */
function looksLikeFlag(word: string, spec: FlagSpec): boolean {
  if (word === "-" || !word.startsWith("-")) return false;
  return !(spec.type === "number" && isNumberWord(word));
}

/** The words that name the subcommands of a level, for "did you mean". */
function commandNames(level: readonly CommandSpec[]): string[] {
  return level.flatMap((c) => [commandName(c), ...(c.aliases ?? [])]);
}

function findCommand(level: readonly CommandSpec[], word: string): CommandSpec | undefined {
  return level.find((c) => commandName(c) === word || (c.aliases ?? []).includes(word));
}

/** The usage name of a positional: `<image>`, `[path]`, `<files..>`. */
export function positionalLabel(name: string, spec: PositionalSpec): string {
  const inner = spec.variadic ? `${name}..` : name;
  return spec.required ? `<${inner}>` : `[${inner}]`;
}

function booleanWord(word: string): boolean | undefined {
  if (/^(true|yes|1)$/i.test(word)) return true;
  if (/^(false|no|0)$/i.test(word)) return false;
  return undefined;
}

/**
 * `argv` with the words after a command that rewrites its arguments (`rewriteArgs` of its
 * declaration: yq's cobra spellings) rewritten by it, up to a `--`.
 */
export function rewriteCommandArgs(
  commands: readonly CommandSpec[],
  argv: readonly string[],
): string[] {
  let level: readonly CommandSpec[] = commands;
  for (const [i, word] of argv.entries()) {
    if (word === "--") break;
    if (word.startsWith("-")) continue;
    const spec = findCommand(level, word);
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

/** Parses the words after the program name against the command list. */
export function parseCommandLine(
  commands: readonly CommandSpec[],
  given: readonly string[],
): ParsedCommandLine {
  const argv = rewriteCommandArgs(commands, given);
  const end = argv.indexOf("--");
  const beforeEnd = end === -1 ? argv : argv.slice(0, end);
  const wantsHelp = beforeEnd.some((w) => w === "--help" || w === "-h");
  if (!wantsHelp && argv[0] === "--version" && argv.length === 1) return { kind: "version" };

  // The command words: up to the first word that is neither a flag nor a group's command.
  const path: CommandSpec[] = [];
  let level: readonly CommandSpec[] = commands;
  let index = 0;
  const skipped: string[] = [];
  for (; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === "--") break;
    if (word.startsWith("-") && word !== "-") {
      skipped.push(word);
      continue;
    }
    const spec = findCommand(level, word);
    if (spec === undefined) {
      if (wantsHelp) return { kind: "help", path };
      const before = argv[index - 1];
      const boolean = ["-v", "--verbose", "--quiet", "--debug"].includes(before ?? "");
      if (before !== undefined && skipped.at(-1) === before && !before.includes("=") && !boolean) {
        // `toolkit --kubeconfig k sync`: a flag's value before the command.
        throw new CommandLineError(
          `Flags go after the command: "${before} ${word}" comes before ${
            path.length ? `the command of "${commandWords(path).join(" ")}"` : "any command"
          }`,
          commandWords(path),
        );
      }
      const suggestion = nearest(word, commandNames(level));
      throw new CommandLineError(
        `Unknown command "${word}"${path.length ? ` of "${commandWords(path).join(" ")}"` : ""}.${
          suggestion ? ` Did you mean ${suggestion}?` : ""
        }`,
        commandWords(path),
      );
    }
    path.push(spec);
    if (!spec.subcommands) {
      index++;
      break;
    }
    level = spec.subcommands;
  }
  const leaf = path.at(-1);
  if (wantsHelp) return { kind: "help", path };
  if (leaf === undefined || leaf.subcommands) {
    const words = commandWords(path);
    if (skipped.length > 0) {
      throw new CommandLineError(
        `Unknown flag ${skipped[0]}${
          words.length ? ` of "${words.join(" ")}"` : ""
        }: flags go after the command`,
        words,
      );
    }
    throw new CommandLineError(
      leaf === undefined
        ? "Choose a command"
        : `Choose a command of "${words.join(" ")}": ${
          (leaf.subcommands ?? []).map(commandName).join(", ")
        }`,
      words,
    );
  }
  // Flags typed before the command's name (`toolkit -v sync`) belong to it too.
  const rest = [...skipped, ...argv.slice(index)];
  return { kind: "run", path, spec: leaf, values: parseArguments(leaf, rest, commandWords(path)) };
}

/**
 * The values of one command's arguments (the words after its name), by declared flag and
 * positional names: flags that take a value as strings (arrays when repeated), booleans as
 * booleans, positionals as strings (a variadic one as an array).
 */
export function parseArguments(
  spec: CommandSpec,
  words: readonly string[],
  command: readonly string[],
): Record<string, unknown> {
  const flags = flagsOf(spec);
  const { long, short } = flagIndex(flags);
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const fail = (message: string): never => {
    throw new CommandLineError(message, command);
  };

  const set = (entry: FlagEntry, value: unknown) => {
    const previous = values[entry.name];
    if (entry.spec.type === "boolean" || previous === undefined) values[entry.name] = value;
    else values[entry.name] = [previous, value].flat();
  };

  const label = (entry: FlagEntry, written: string) =>
    written === flagLabel(entry.name) ? written : `${written} (${flagLabel(entry.name)})`;

  /** The value of a flag that takes one: inline (`=x`, `-nx`) or the next word. */
  const takeValue = (entry: FlagEntry, written: string, inline: string | undefined, at: number) => {
    if (inline !== undefined) return { value: inline, next: at };
    const following = words[at + 1];
    const what = entry.spec.describe
      ? `: ${lowerFirst(entry.spec.describe.replace(/\s*\(.*$/, ""))}`
      : "";
    if (following === undefined || following === "--") {
      fail(`Flag ${label(entry, written)} needs a value${what}`);
    }
    if (looksLikeFlag(following!, entry.spec)) {
      fail(
        `Flag ${label(entry, written)} needs a value${what}; "${following}" is a flag ` +
          `(a value that starts with "-" is written ${written}=VALUE)`,
      );
    }
    return { value: following!, next: at + 1 };
  };

  const unknown = (written: string, bare: string): never => {
    const names = [...long.keys()].filter((n) => !flags[n]?.hidden).map((n) => `--${n}`);
    // One letter is near every other: only a long flag gets a suggestion.
    const starting = new Set(
      names.filter((n) => n.startsWith(`--${bare}`)).map((n) => `--${long.get(n.slice(2))!.name}`),
    );
    const suggestion = bare.length < 2
      ? undefined
      : starting.size === 1
      ? [...starting][0]
      : nearest(`--${bare}`, names);
    // `sync --namepsace x`, `sync -n x`: the namespace is sync's argument.
    const arguments_ = Object.keys(spec.positionals ?? {});
    const positional = suggestion !== undefined
      ? undefined
      : bare.length > 1
      ? nearest(bare, arguments_)
      : arguments_.find((n) => n.startsWith(bare));
    if (positional !== undefined) {
      const p = spec.positionals![positional]!;
      return fail(
        `Unknown flag ${written} of "${command.join(" ")}": the ${positional} is an argument, ` +
          `not a flag (${command.join(" ")} ${positionalLabel(positional, p)})`,
      );
    }
    return fail(
      `Unknown flag ${written} of "${command.join(" ")}"${
        suggestion ? `. Did you mean ${suggestion}?` : ""
      }`,
    );
  };

  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      positionals.push(...words.slice(i + 1));
      break;
    }
    if (word === "-" || !word.startsWith("-") || isNumberWord(word) && !short.has(word[1]!)) {
      positionals.push(word);
      continue;
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const written = eq === -1 ? word : word.slice(0, eq);
      const inline = eq === -1 ? undefined : word.slice(eq + 1);
      const bare = written.slice(2);
      let entry = long.get(bare);
      let negated = false;
      if (entry === undefined && bare.startsWith("no-")) {
        const positive = long.get(bare.slice(3));
        if (positive?.spec.type === "boolean") {
          entry = positive;
          negated = true;
        }
      }
      if (entry === undefined) unknown(written, bare);
      const flag = entry!;
      if (flag.spec.type === "boolean") {
        if (negated) {
          if (inline !== undefined) fail(`Flag ${written} takes no value`);
          set(flag, false);
          continue;
        }
        if (inline !== undefined) {
          const b = booleanWord(inline);
          if (b === undefined) fail(`Flag ${written} is true or false, not "${inline}"`);
          set(flag, b);
          continue;
        }
        const following = words[i + 1];
        if (following === "true" || following === "false") {
          set(flag, following === "true");
          i++;
        } else set(flag, true);
        continue;
      }
      const { value, next } = takeValue(flag, written, inline, i);
      set(flag, value);
      i = next;
      continue;
    }
    // One dash: short flags, possibly clustered.
    const body = word.slice(1);
    const eq = body.indexOf("=");
    const head = eq === -1 ? body : body.slice(0, eq);
    if (head.length > 1 && long.has(head)) {
      // `-namespace`: pflag would read `-n amespace`; that is never what was meant.
      fail(
        `Unknown flag -${head} of "${command.join(" ")}": long flags take two dashes. ` +
          `Did you mean --${head}?`,
      );
    }
    for (let j = 0; j < body.length; j++) {
      const letter = body[j]!;
      const written = `-${letter}`;
      const entry = short.get(letter);
      if (entry === undefined) unknown(j === 0 ? `-${head}` : written, j === 0 ? head : letter);
      const flag = entry!;
      const after = body.slice(j + 1);
      if (flag.spec.type === "boolean") {
        if (after.startsWith("=")) {
          const b = booleanWord(after.slice(1));
          if (b === undefined) fail(`Flag ${written} is true or false, not "${after.slice(1)}"`);
          set(flag, b);
          break;
        }
        set(flag, true);
        continue;
      }
      const inline = after === "" ? undefined : after.startsWith("=") ? after.slice(1) : after;
      const { value, next } = takeValue(flag, written, inline, i);
      set(flag, value);
      i = next;
      break;
    }
  }

  assignPositionals(spec, positionals, values, fail);
  return values;
}

function assignPositionals(
  spec: CommandSpec,
  words: readonly string[],
  values: Record<string, unknown>,
  fail: (message: string) => never,
): void {
  const declared = Object.entries(spec.positionals ?? {});
  let at = 0;
  for (const [name, p] of declared) {
    if (p.variadic) {
      values[name] = words.slice(at);
      at = words.length;
      if (p.required && (values[name] as string[]).length === 0) {
        fail(`Missing argument ${positionalLabel(name, p)}: ${lowerFirst(p.describe)}`);
      }
      continue;
    }
    const word = words[at];
    if (word === undefined) {
      if (p.required) {
        fail(`Missing argument ${positionalLabel(name, p)}: ${lowerFirst(p.describe)}`);
      }
      continue;
    }
    if (p.choices && !p.choices.includes(word)) {
      fail(
        `Argument ${positionalLabel(name, p)} must be one of ${
          p.choices.join(", ")
        }, not "${word}"`,
      );
    }
    values[name] = word;
    at++;
  }
  if (at < words.length) {
    const usage = declared.length
      ? `takes ${declared.map(([n, p]) => positionalLabel(n, p)).join(" ")}`
      : "takes no arguments";
    fail(`Unexpected argument "${words[at]}": "${commandName(spec)}" ${usage}`);
  }
}

function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}
