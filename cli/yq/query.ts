/**
 * What a path matches in a YAML source, for the commands that read (`r`, `compare`,
 * `validate`), and the print options of `r` and `compare` from their flags.
 *
 * @module
 */
import { type Document, isAlias, type Node } from "yaml";
import { chosenIndices, parseDocumentChoice } from "./documents.ts";
import { parseSource, type YamlSource } from "./files.ts";
import { locate } from "./locate.ts";
import { checkIndent, type Match, type PrintOptions } from "./output.ts";
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
