/**
 * `toolkit yq w <file> [path] [value]` (igc's only yq command, with all of yq v3's): writes the
 * value at the path, in every document chosen with `-d` and at every place the path matches,
 * creating the keys and items it lacks, and prints the file (or with `-i` writes it back).
 * Everything else in the file stays byte for byte. `-` reads standard input.
 *
 * The value is the text typed (`[]` and `{}` are empty collections), the first document of
 * `-f`'s file, or, without one, what is there with a new `--tag` or `--style`; `--anchorName`
 * puts an anchor on it and `--makeAlias` makes it an alias. `-s` runs a script of updates and
 * deletes instead. A path that matches nothing is said on stderr; `-v` lists what was written.
 *
 * @module
 */
import { UsageError } from "../../lib/errors.ts";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_WRITE } from "./write_command.ts";
import {
  type ChangeOutcome,
  deletePath,
  documentValue,
  pathToChange,
  writeValue,
} from "./change.ts";
import type { TypedValue } from "./create.ts";
import { type DocumentChoice, parseDocumentChoice } from "./documents.ts";
import { checkInPlace, readSource, type YamlSource } from "./files.ts";
import { checkIndent, emitResult } from "./output.ts";
import { checkTagAndAnchor } from "./scalar.ts";
import { parseScript, type ScriptChange } from "./script.ts";
import type { CliIO } from "../io.ts";

/** The flags that say how a value is written, as `w` and `new` have them. */
interface ValueFlags {
  readonly path?: string | undefined;
  readonly value?: string | undefined;
  readonly tag?: string | undefined;
  readonly style?: TypedValue["style"];
  readonly anchorName?: string | undefined;
  readonly makeAlias: boolean;
  readonly script?: string | undefined;
  readonly from?: string | undefined;
}

/** The changes a command line asks for: a script's, or one write. */
export async function changesOf(io: CliIO, flags: ValueFlags): Promise<ScriptChange[]> {
  checkTagAndAnchor(flags.tag, flags.anchorName);
  if (flags.script !== undefined) {
    if (flags.path !== undefined || flags.value !== undefined || flags.from !== undefined) {
      throw new UsageError("Give either --script or a path (and value), not both");
    }
    return parseScript(await readSource(io, flags.script));
  }
  if (flags.path === undefined) throw new UsageError("Give the path (or --script)");
  const segments = pathToChange(flags.path, "write");
  const how = { tag: flags.tag, style: flags.style, anchor: flags.anchorName };
  let value: TypedValue;
  if (flags.from !== undefined) {
    if (flags.value !== undefined) throw new UsageError("Give either a value or -f/--from");
    const from = await readSource(io, flags.from);
    const tree = documentValue(from);
    if (tree === undefined) throw new UsageError(`"${from.name}" has no document to write`);
    value = { tree };
  } else if (flags.value === undefined) {
    if (flags.makeAlias) throw new UsageError("--makeAlias needs the anchor's name as the value");
    if (flags.tag === undefined && flags.style === undefined) {
      throw new UsageError(
        "Give the value (or --tag or --style alone, to change the type or style of what is there)",
      );
    }
    value = how;
  } else {
    value = { ...how, text: flags.value, alias: flags.makeAlias };
  }
  return [{ command: "update", path: flags.path, segments, value }];
}

/** Makes `changes` in order on `source`'s documents `choice`; the outcome of all of them. */
export function applyChanges(
  source: YamlSource,
  changes: readonly ScriptChange[],
  choice: DocumentChoice,
  report: (change: ScriptChange, outcome: ChangeOutcome) => void,
  indent = 2,
): string {
  let text = source.text;
  for (const change of changes) {
    const current = { ...source, text };
    const outcome = change.command === "update"
      ? writeValue(current, change.segments, change.value, choice, indent)
      : deletePath(current, change.segments, choice);
    report(change, outcome);
    text = outcome.text;
  }
  return text;
}

/** Says on stderr what each change matched: nothing (unless --quiet), or with -v the paths. */
export function reporter(
  io: CliIO,
  name: string,
  options: { readonly verbose: boolean; readonly quiet: boolean },
): (change: ScriptChange, outcome: ChangeOutcome) => void {
  return (change, outcome) => {
    const verb = change.command === "update" ? "written" : "deleted";
    if (outcome.places === 0) {
      if (!options.quiet) {
        io.stderr.write(
          `warning: path "${change.path}" matches nothing in "${name}"; nothing was ${verb}\n`,
        );
      }
      return;
    }
    if (options.verbose) {
      for (const path of outcome.paths) io.stderr.write(`${verb}: ${path}\n`);
    }
  };
}

/** Runs `yq w`. */
export async function run(options: OptionsOf<typeof YQ_WRITE>, ctx: CommandContext): Promise<void> {
  checkInPlace(options.file, options.inplace);
  const choice = parseDocumentChoice(options.doc);
  checkIndent(options.indent);
  const changes = await changesOf(ctx.io, options);
  const source = await readSource(ctx.io, options.file);
  const report = reporter(ctx.io, source.name, options);
  const text = applyChanges(source, changes, choice, report, options.indent);
  const written = await emitResult(ctx.io, source, text, options);
  if (options.verbose && options.inplace) {
    ctx.io.stderr.write(written ? `Wrote "${source.name}"\n` : `"${source.name}" is unchanged\n`);
  }
}
