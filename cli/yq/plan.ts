/**
 * The changes a yq command line asks for, made in order: one write (`w`, `new`), one delete
 * (`d`), or a script of updates and deletes (`-s`, yq v3's format:
 *
 * ```yaml
 * - command: update
 *   path: b.c
 *   value:
 *     things: frog # with its comment
 * - command: delete
 *   path: b.d
 * ```
 *
 * where an update writes its value, any YAML as written in the script, creating what is
 * missing, and an empty script changes nothing), each saying on stderr what it matched.
 *
 * @module
 */
import { isMap, isScalar, isSeq, type Node } from "yaml";
import { UsageError } from "../../lib/errors.ts";
import type { CliIO } from "../io.ts";
import {
  type ChangeOutcome,
  deletePath,
  documentValue,
  pathToChange,
  writeValue,
} from "./change.ts";
import type { TypedValue } from "./create.ts";
import type { DocumentChoice } from "./documents.ts";
import { parseSource, readSource, type YamlSource } from "./files.ts";
import type { Segment } from "./path.ts";
import { checkTagAndAnchor } from "./scalar.ts";

/** One change of a script. */
export type ScriptChange =
  | {
    readonly command: "update";
    readonly path: string;
    readonly segments: readonly Segment[];
    readonly value: TypedValue;
  }
  | { readonly command: "delete"; readonly path: string; readonly segments: readonly Segment[] };

/**
 * The changes a script lists.
 *
 * @throws {UsageError} naming the entry that is not a change.
 */
export function parseScript(source: YamlSource): ScriptChange[] {
  const [doc] = parseSource(source);
  const root = doc?.contents as Node | null | undefined;
  if (!doc || root === null || root === undefined || (isScalar(root) && root.value === null)) {
    return [];
  }
  const bad = (at: number, what: string) =>
    new UsageError(`Cannot run the script "${source.name}": entry ${at + 1} ${what}`);
  if (!isSeq(root)) {
    throw new UsageError(
      `Cannot run the script "${source.name}": it must be a list of {command, path, value}`,
    );
  }
  return root.items.map((item, at) => {
    if (!isMap(item)) throw bad(at, "is not a mapping of command, path and value");
    const field = (name: string) => item.items.find((p) => isScalar(p.key) && p.key.value === name);
    const command = field("command")?.value;
    const path = field("path")?.value;
    const name = isScalar(command) ? String(command.value) : "";
    if (name !== "update" && name !== "delete") {
      throw bad(at, `has command "${name}"; it must be update or delete`);
    }
    if (!isScalar(path) || path.value === null) throw bad(at, "has no path");
    const text = String(path.value);
    const segments = pathToChange(text, name === "update" ? "write" : "delete");
    if (name === "delete") return { command: "delete", path: text, segments };
    const value = (field("value")?.value as Node | null | undefined) ?? null;
    const node = value ?? parseSource({ name: source.name, path: undefined, text: "~\n" })[0]!
      .contents as Node;
    return { command: "update", path: text, segments, value: { tree: { node, doc } } };
  });
}

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
