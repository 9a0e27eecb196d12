/**
 * `--help` of the program, of a group and of a command, written from the declarations alone
 * (`defineCommand()`): the usage line, the description, the commands of a group, the arguments,
 * the flags with the kind of value each takes (`<string>`, `<number>`, `<duration>`, the
 * choices), their defaults and environment variables, and the examples.
 *
 * @module
 */
import { commandName, type CommandSpec } from "./command.ts";
import type { FlagSpec } from "./options.ts";
import { flagsOf, positionalLabel } from "./parse.ts";

/** The width help is wrapped to. */
const WIDTH = 100;
/** The widest left column before the text moves to the next line. */
const MAX_LEFT = 38;

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/ +/)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

/** Rows of two columns: the left one padded, the right one wrapped beside it. */
function table(rows: readonly (readonly [string, string])[], indent = 2): string[] {
  const widest = Math.max(0, ...rows.map(([left]) => left.length).filter((w) => w <= MAX_LEFT));
  const column = indent + widest + 2;
  const out: string[] = [];
  for (const [left, right] of rows) {
    const text = wrap(right, Math.max(30, WIDTH - column));
    const head = " ".repeat(indent) + left;
    if (left.length > widest) {
      out.push(head);
      for (const line of text) out.push(" ".repeat(column) + line);
    } else {
      out.push(head.padEnd(column) + (text[0] ?? ""));
      for (const line of text.slice(1)) out.push(" ".repeat(column) + line);
    }
  }
  return out;
}

/** The kind of value a flag takes, as help writes it: `<string>`, `<number>`, `<json|yaml>`. */
export function valueLabel(flag: FlagSpec): string {
  if (flag.type === "boolean") return "";
  if (flag.choices && flag.choices.join("|").length <= 32) return `<${flag.choices.join("|")}>`;
  return flag.type === "array" ? "<string>" : `<${flag.type}>`;
}

function flagRow(name: string, flag: FlagSpec): [string, string] {
  const aliases = flag.alias === undefined ? [] : [flag.alias].flat();
  const short = aliases.find((a) => a.length === 1);
  const longs = [name, ...aliases.filter((a) => a.length > 1 && a !== name)];
  const names = longs.map((n) => `--${n}`).join(", ");
  const value = valueLabel(flag);
  const left = `${short ? `-${short}, ` : "    "}${names}${value ? ` ${value}` : ""}`;
  const notes: string[] = [];
  if (flag.choices && !value.includes("|")) notes.push(`[choices: ${flag.choices.join(", ")}]`);
  if (flag.type === "array" && !/repeatable/i.test(flag.describe)) notes.push("[repeatable]");
  if (flag.env) notes.push(`[env: ${flag.env}]`);
  if (flag.trueWhen) notes.push(`[default: true when ${flag.trueWhen.env}=${flag.trueWhen.value}]`);
  if (flag.default !== undefined && !(flag.type === "boolean" && flag.default === false)) {
    const shown = Array.isArray(flag.default) ? flag.default.join(", ") : String(flag.default);
    notes.push(
      flag.type === "boolean" ? `[default: true; --no-${name}: false]` : `[default: ${shown}]`,
    );
  }
  if (flag.demandOption) notes.push("[required]");
  return [left, [flag.describe, ...notes].join(" ")];
}

/** Help of the command at the end of `path` (the program itself when `path` is empty). */
export function renderHelp(
  commands: readonly CommandSpec[],
  path: readonly CommandSpec[],
  programName: string,
  version: string,
): string {
  const spec = path.at(-1);
  const prefix = [programName, ...path.slice(0, -1).map(commandName)].join(" ");
  const out: string[] = [];
  if (spec === undefined) {
    out.push(`${programName} <command> [args]`, "", `toolkit ${version}`);
  } else {
    out.push(`${prefix} ${spec.usage}`, "", ...wrap(spec.describe, WIDTH));
    if (spec.aliases?.length) out.push("", `Aliases: ${spec.aliases.join(", ")}`);
  }
  const level = spec === undefined ? commands : spec.subcommands;
  if (level) {
    const where = spec === undefined ? programName : `${prefix} ${commandName(spec)}`;
    out.push("", "Commands:");
    out.push(
      ...table(level.map((c) => [
        `${where} ${c.usage}`,
        `${c.describe}${c.aliases?.length ? ` [aliases: ${c.aliases.join(", ")}]` : ""}`,
      ])),
    );
  }
  const positionals = Object.entries(spec?.positionals ?? {});
  if (positionals.length) {
    out.push("", "Arguments:");
    out.push(...table(positionals.map(([name, p]) => {
      const notes = [
        ...(p.choices ? [`[choices: ${p.choices.join(", ")}]`] : []),
        ...(p.default !== undefined ? [`[default: ${p.default}]`] : []),
        ...(p.required ? ["[required]"] : []),
      ];
      return [positionalLabel(name, p), [p.describe, ...notes].join(" ")];
    })));
  }
  out.push("", "Flags:");
  const flags = spec === undefined ? {} : flagsOf(spec);
  out.push(
    ...table([
      ...Object.entries(flags).filter(([, f]) => !f.hidden).map(([n, f]) => flagRow(n, f)),
      ["-h, --help", "Show this help"],
      ...(spec === undefined ? [["    --version", "Show the version"] as [string, string]] : []),
    ]),
  );
  if (spec?.examples?.length) {
    out.push("", "Examples:");
    out.push(...table(spec.examples.map(([line, what]) => [`${programName} ${line}`, what])));
  }
  if (level) {
    const where = spec === undefined ? programName : `${prefix} ${commandName(spec)}`;
    out.push("", `Run '${where} <command> --help' for the flags of a command.`);
  }
  return `${out.join("\n")}\n`;
}
