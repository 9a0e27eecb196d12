/**
 * `toolkit image-security import FILE… | -`: reads the peers' image policies (multi-document
 * YAML or JSON, `kind: List` expanded, as `kubectl get … -o yaml` prints them), converts each rule
 * with the importers of lib/import, and prints the toolkit objects (default) or applies them
 * (`--apply`, server-side apply). The report (per rule: converted or refused, every finding with
 * its field path and reason) goes to stderr, and with `--report FILE` to a JSON file. Documents
 * are numbered in the order read, from 0, across every file.
 *
 * Exit 1 when a rule was refused (then `--apply` applies nothing) unless `--allow-partial`, or
 * when no document was a policy any importer reads; 2 on usage errors (a missing file, `-` twice).
 * `--apply` writes key Secrets and trust roots before the policies that name them, and replaces
 * an object of the same name only when an import of the same source made it, else with
 * `--replace` or a yes on a terminal (`cli/replace.ts`).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { IMPORT } from "./import_command.ts";
import { formatData, printReport } from "../output.ts";
import { requireNamespace } from "../dev/common.ts";
import { confirmReplace } from "../replace.ts";
import { readUserFile, resolvePath } from "./files.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { parseYamlDocuments } from "../../lib/yaml.ts";
import { writeFileSafely } from "../../lib/file_write.ts";
import {
  applyObject,
  type ApplyResult,
  clusterImagePolicies,
  CONFIG_MAPS,
  imagePolicies,
  type KubeObject,
  NAMESPACES,
  type ResourceType,
  SECRETS,
} from "../../lib/kube/mod.ts";
import {
  formatImportReport,
  importDocuments,
  IMPORTED_FROM_ANNOTATION,
  importReport,
  type ImportResult,
} from "../../lib/import/mod.ts";

/** The most bytes read from one input (a file or stdin). */
export const MAX_IMPORT_INPUT_BYTES = 16 * 1024 * 1024;

type ImportOptions = OptionsOf<typeof IMPORT>;
type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads every input's documents, `kind: List` expanded and empty documents dropped. */
async function readDocuments(files: readonly string[], ctx: CommandContext): Promise<unknown[]> {
  if (files.filter((f) => f === "-").length > 1) {
    throw new UsageError("Standard input (-) can be read only once");
  }
  const documents: unknown[] = [];
  for (const file of files) {
    let text: string;
    if (file === "-") {
      text = await ctx.io.readStdin(MAX_IMPORT_INPUT_BYTES);
    } else {
      const bytes = await readUserFile(ctx.io.cwd, file, "file");
      if (bytes.length > MAX_IMPORT_INPUT_BYTES) {
        throw new UsageError(`Cannot read "${file}": more than ${MAX_IMPORT_INPUT_BYTES} bytes`);
      }
      text = new TextDecoder().decode(bytes);
    }
    if (text.length > MAX_IMPORT_INPUT_BYTES) {
      throw new UsageError(
        `Cannot read ${
          file === "-" ? "stdin" : `"${file}"`
        }: more than ${MAX_IMPORT_INPUT_BYTES} bytes`,
      );
    }
    for (const document of parseYamlDocuments(text)) {
      if (document === null || document === undefined) continue;
      if (isObject(document) && document.kind === "List" && Array.isArray(document.items)) {
        documents.push(...document.items);
      } else {
        documents.push(document);
      }
    }
  }
  return documents;
}

/** The resource type of an object an importer made. */
function typeOf(object: KubeObject): ResourceType {
  const apiVersion = object.apiVersion ?? "";
  const group = apiVersion.includes("/") ? apiVersion.split("/")[0]! : "";
  switch (object.kind) {
    case "Secret":
      return SECRETS;
    case "ConfigMap":
      return CONFIG_MAPS;
    case "Namespace":
      return NAMESPACES;
    case "ClusterImagePolicy":
      return clusterImagePolicies(group);
    case "ImagePolicy":
      return imagePolicies(group);
  }
  throw new ToolkitError(`Cannot apply a ${object.kind}: no importer should make one`);
}

/** Key material and trust roots first, then what names them. */
const ORDER = ["Namespace", "Secret", "ConfigMap", "ImagePolicy", "ClusterImagePolicy"];

function objectsOf(result: ImportResult): KubeObject[] {
  const objects = result.rules.filter((r) => !r.refused).flatMap((r) =>
    r.objects
  ) as unknown as KubeObject[];
  return [...objects].sort((a, b) => ORDER.indexOf(a.kind ?? "") - ORDER.indexOf(b.kind ?? ""));
}

function label(object: KubeObject): string {
  const { name, namespace } = object.metadata;
  return `${object.kind} "${namespace ? `${namespace}/` : ""}${name}"`;
}

async function applyAll(
  objects: readonly KubeObject[],
  options: ImportOptions,
  ctx: CommandContext,
): Promise<ApplyResult[]> {
  using client = await ctx.kube(options);
  const namespaces = new Set(
    objects.flatMap((o) => o.metadata.namespace ? [o.metadata.namespace] : []),
  );
  for (const namespace of namespaces) await requireNamespace(client, namespace);
  const results: ApplyResult[] = [];
  for (const object of objects) {
    const type = typeOf(object);
    const existing = await client.read(type, object.metadata.namespace, object.metadata.name);
    const ours = object.metadata.annotations?.[IMPORTED_FROM_ANNOTATION];
    const theirs = existing?.metadata.annotations?.[IMPORTED_FROM_ANNOTATION];
    if (existing !== undefined && object.kind !== "Namespace" && theirs !== ours) {
      await confirmReplace(ctx, {
        what: label(object),
        differs: theirs === undefined
          ? "exists and was not made by an import"
          : `exists, imported from ${theirs}`,
        replace: options.replace ?? false,
      });
    }
    const result = await applyObject(client, type, object, { existing: existing ?? null });
    ctx.io.stderr.write(`${label(object)} ${result.outcome}\n`);
    results.push(result);
  }
  return results;
}

/** Runs `import`. */
export async function run(options: ImportOptions, ctx: CommandContext): Promise<number> {
  const documents = await readDocuments(options.files, ctx);
  const result = await importDocuments(documents, {
    controllerNamespace: options.controllerNamespace,
    readFile: (path) => readUserFile(ctx.io.cwd, path, "file"),
  });
  const report = importReport(result);
  ctx.io.stderr.write(formatImportReport(report));
  if (options.report) {
    await writeFileSafely(
      resolvePath(ctx.io.cwd, options.report),
      `${JSON.stringify(report, null, 2)}\n`,
      {
        name: `--report "${options.report}"`,
        mode: 0o644,
        ifExists: "replace",
      },
    );
  }
  if (report.converted === 0 && report.refused === 0) {
    ctx.io.stderr.write("No document is a policy that toolkit imports: nothing converted\n");
    return 1;
  }
  const partial = report.refused > 0 && !options.allowPartial;
  const objects = objectsOf(result);
  if (!options.apply || options.dryRun) {
    const format = options.output ?? "yaml";
    ctx.io.stdout.write(
      format === "json"
        ? formatData({ apiVersion: "v1", kind: "List", items: objects }, "json")
        : objects.map((o) => formatData(o, "yaml")).join("---\n"),
    );
    return partial ? 1 : 0;
  }
  if (partial) {
    ctx.io.stderr.write(
      `${report.refused} rule${
        report.refused === 1 ? " was" : "s were"
      } refused: nothing applied (--allow-partial applies the rest)\n`,
    );
    return 1;
  }
  const results = await applyAll(objects, options, ctx);
  printReport(ctx.io, options.output, { results }, {
    converted: report.converted,
    refused: report.refused,
  });
  return 0;
}
