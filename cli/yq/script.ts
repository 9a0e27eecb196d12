/**
 * yq v3's update scripts (`w -s`, `new -s`): a YAML file listing changes made in order,
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
 * An update writes its value (any YAML, as written in the script) at its path, creating what
 * is missing; a delete deletes. An empty script changes nothing.
 *
 * @module
 */
import { isMap, isScalar, isSeq, type Node } from "yaml";
import { UsageError } from "../../lib/errors.ts";
import { pathToChange } from "./change.ts";
import type { TypedValue } from "./create.ts";
import { parseSource, type YamlSource } from "./files.ts";
import type { Segment } from "./path.ts";

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
