/**
 * `toolkit yq r|w|d|merge|new`: read, write, delete and merge at paths of YAML files, keeping what
 * is not changed (comments, key order, quoting, anchors, `---` boundaries). `w`, `d` and `merge`
 * print the result, or with `-i` replace the file (only when something changed).
 *
 * @module
 */
import { type Document, isCollection, isScalar, type Scalar } from "yaml";
import type { CommandContext, OptionsOf } from "../command.ts";
import type { YQ_DELETE, YQ_MERGE, YQ_NEW, YQ_READ, YQ_WRITE } from "../commands.ts";
import { UsageError } from "../../lib/errors.ts";
import { deleteAt, documentOf, makeValue, mergeInto, readAt, writeAt, type YqTag } from "./edit.ts";
import { formatYaml, pickDocuments, readYaml, writeInPlace, type YamlStream } from "./files.ts";
import { parsePath } from "./path.ts";

async function finish(
  ctx: CommandContext,
  stream: YamlStream,
  inplace: boolean,
  changed: boolean,
): Promise<void> {
  await finishText(ctx, stream, inplace, changed ? formatYaml(stream) : stream.text);
}

/** Runs `yq r`: prints what the path reaches (the whole document without a path). */
export async function runRead(
  options: OptionsOf<typeof YQ_READ>,
  ctx: CommandContext,
): Promise<number> {
  const stream = await readYaml(ctx.io, options.file);
  const path = options.path ? parsePath(options.path) : [];
  let found = 0;
  for (const doc of pickDocuments(stream, options.doc)) {
    for (const node of readAt(doc.contents, path)) {
      found++;
      if (isScalar(node)) {
        ctx.io.stdout.write(`${node.value === null ? "null" : String(node.value)}\n`);
      } else if (isCollection(node)) {
        ctx.io.stdout.write(
          documentOf(node).toString({ flowCollectionPadding: false, lineWidth: 0 }),
        );
      } else if (node !== undefined && node !== null) ctx.io.stdout.write(`${String(node)}\n`);
    }
  }
  return found > 0 || !options.path ? 0 : 1;
}

/** Runs `yq w`: sets the value at the path, making what is missing on the way. */
export async function runWrite(
  options: OptionsOf<typeof YQ_WRITE>,
  ctx: CommandContext,
): Promise<number> {
  const stream = await readYaml(ctx.io, options.file);
  const path = parsePath(options.path);
  const tag = options.tag as YqTag | undefined;
  if (stream.documents.length === 0) {
    throw new UsageError(`"${options.file}" holds no YAML document to write into`);
  }
  const docs = pickDocuments(stream, options.doc);
  // Existing scalars are replaced in the text itself, so everything else stays byte for byte.
  const spliced = spliceScalars(stream, docs, path, options.value, tag);
  if (spliced !== undefined) {
    await finishText(ctx, stream, options.inplace, spliced);
    return 0;
  }
  for (const doc of docs) {
    doc.contents = writeAt(
      doc.contents,
      path,
      (existing) => makeValue(options.value, tag, existing),
    ) as typeof doc.contents;
  }
  await finish(ctx, stream, options.inplace, true);
  return 0;
}

/**
 * The stream's text with each scalar the path reaches replaced by the new value, when the path
 * reaches only existing scalars (else undefined: the documents are written back instead).
 */
function spliceScalars(
  stream: YamlStream,
  docs: readonly Document[],
  path: ReturnType<typeof parsePath>,
  value: string,
  tag: YqTag | undefined,
): string | undefined {
  const nodes = docs.flatMap((doc) => readAt(doc.contents, path));
  if (nodes.length === 0 || !nodes.every((n) => isScalar(n) && n.range)) return undefined;
  // Every document must have the path: else the missing one needs creating.
  if (docs.some((doc) => readAt(doc.contents, path).length === 0)) return undefined;
  let text = stream.text;
  const edits = (nodes as Scalar[]).map((node) => {
    const replacement = documentOf(makeValue(value, tag, node)).toString({ lineWidth: 0 })
      .replace(/\n$/, "");
    if (replacement.includes("\n")) return undefined;
    return { start: node.range![0], end: node.range![1], replacement };
  });
  if (edits.some((e) => e === undefined)) return undefined;
  for (const e of edits.sort((a, b) => b!.start - a!.start)) {
    text = text.slice(0, e!.start) + e!.replacement + text.slice(e!.end);
  }
  return text;
}

async function finishText(
  ctx: CommandContext,
  stream: YamlStream,
  inplace: boolean,
  text: string,
): Promise<void> {
  if (inplace) {
    const written = await writeInPlace(stream, text);
    ctx.io.stderr.write(written ? `Updated ${stream.source}\n` : `${stream.source} unchanged\n`);
  } else ctx.io.stdout.write(text);
}

/** Runs `yq d`: deletes what the path reaches. */
export async function runDelete(
  options: OptionsOf<typeof YQ_DELETE>,
  ctx: CommandContext,
): Promise<number> {
  const stream = await readYaml(ctx.io, options.file);
  const path = parsePath(options.path);
  let deleted = 0;
  for (const doc of pickDocuments(stream, options.doc)) deleted += deleteAt(doc.contents, path);
  await finish(ctx, stream, options.inplace, deleted > 0);
  return 0;
}

/** Runs `yq merge`: merges the other files into the first. */
export async function runMerge(
  options: OptionsOf<typeof YQ_MERGE>,
  ctx: CommandContext,
): Promise<number> {
  const stream = await readYaml(ctx.io, options.file);
  const [target] = pickDocuments(stream, options.doc);
  if (!target) throw new UsageError(`"${options.file}" holds no YAML document to merge into`);
  for (const other of options.others) {
    const from = await readYaml(ctx.io, other);
    for (const doc of from.documents) {
      target.contents = mergeInto(target.contents, doc.contents, {
        overwrite: options.overwrite,
        append: options.append,
      }) as typeof target.contents;
    }
  }
  await finish(ctx, stream, options.inplace, true);
  return 0;
}

/** Runs `yq new`: prints a new document with the value at the path. */
export function runNew(options: OptionsOf<typeof YQ_NEW>, ctx: CommandContext): Promise<number> {
  const root = writeAt(
    undefined,
    parsePath(options.path),
    (existing) => makeValue(options.value, options.tag as YqTag | undefined, existing),
  );
  ctx.io.stdout.write(documentOf(root).toString({ flowCollectionPadding: false, lineWidth: 0 }));
  return Promise.resolve(0);
}
