/**
 * `toolkit yq r [file] [path]`: prints what the path matches in the documents chosen with `-d`
 * (the first by default; `-` or no file reads standard input), as `output.ts` says. A path that
 * matches nothing prints nothing and exits 0, as yq does (`-D` prints a default, `-e` makes it
 * exit 1, `-v` says so on stderr).
 *
 * @module
 */
import { type Document, isAlias, type Node } from "yaml";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_READ } from "./read_command.ts";
import { chosenIndices, parseDocumentChoice } from "./documents.ts";
import { parseSource, readSource, type YamlSource } from "./files.ts";
import { locate } from "./locate.ts";
import { checkIndent, type Match, printMatches, type PrintOptions } from "./output.ts";
import { parsePath } from "./path.ts";

/** What `path` matches in the chosen documents of `source`. */
export function matchesIn(source: YamlSource, path: string, doc: string): Match[] {
  const segments = parsePath(path);
  const choice = parseDocumentChoice(doc);
  const docs = parseSource(source);
  const indices = docs.length === 0 ? [] : chosenIndices(choice, docs.length, source.name);
  const matches: Match[] = [];
  for (const index of indices) {
    const doc = docs[index]!;
    for (const found of locate(doc, segments, "read").found) {
      const node = isAlias(found.node)
        ? (found.node.resolve(doc as Document) as Node | undefined) ?? null
        : found.node;
      matches.push({
        text: source.text,
        doc,
        node,
        elements: found.elements,
        whole: segments.length === 0,
        index,
      });
    }
  }
  return matches;
}

/** The print options of `r` and `compare` from their flags. */
export function printOptions(
  options:
    & Omit<PrintOptions, "length" | "collect" | "unwrapScalar">
    & Partial<Pick<PrintOptions, "length" | "collect" | "unwrapScalar">>,
): PrintOptions {
  checkIndent(options.indent);
  return {
    printMode: options.printMode,
    length: options.length ?? false,
    collect: options.collect ?? false,
    unwrapScalar: options.unwrapScalar ?? true,
    stripComments: options.stripComments,
    explodeAnchors: options.explodeAnchors,
    tojson: options.tojson,
    prettyPrint: options.prettyPrint,
    indent: options.indent,
    colors: options.colors,
    defaultValue: options.defaultValue,
  };
}

/** Runs `yq r`. */
export async function run(options: OptionsOf<typeof YQ_READ>, ctx: CommandContext): Promise<void> {
  if (options.file === "") throw new UsageError("Give a file (- for standard input)");
  parsePath(options.path ?? "");
  parseDocumentChoice(options.doc);
  const print = printOptions(options);
  const source = await readSource(ctx.io, options.file);
  const matches = matchesIn(source, options.path ?? "", options.doc);
  if (matches.length === 0) {
    const nothing = `path "${options.path ?? ""}" matches nothing in "${source.name}"`;
    if (options.exitStatus) throw new ToolkitError(`No matches found: ${nothing}`);
    if (options.verbose) ctx.io.stderr.write(`${nothing}\n`);
  } else if (options.verbose) {
    ctx.io.stderr.write(`path "${options.path ?? ""}" matches ${matches.length}\n`);
  }
  ctx.io.stdout.write(printMatches(matches, print));
}
