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
 * `--replace` or a yes on a terminal (`cli/replace.ts`); then it warns of each key Secret or trust
 * root a policy names that the import did not make and the cluster does not have (the user
 * supplies it: until then the policy's images are denied).
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
  importedObjects,
  importReport,
  type ImportResult,
} from "../../lib/import/mod.ts";

/** The most bytes read from one input (a file or stdin). */
export const MAX_IMPORT_INPUT_BYTES = 16 * 1024 * 1024;

type ImportOptions = OptionsOf<typeof IMPORT>;
type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Which documents (by index in the stream) an input held. */
interface ImportInput {
  readonly file: string;
  /** The first document's index, and one past the last's. */
  readonly documents: readonly [number, number];
}

/** Reads every input's documents, `kind: List` expanded and empty documents dropped. */
async function readDocuments(
  files: readonly string[],
  ctx: CommandContext,
): Promise<{ documents: unknown[]; inputs: ImportInput[] }> {
  if (files.filter((f) => f === "-").length > 1) {
    throw new UsageError("Standard input (-) can be read only once");
  }
  const documents: unknown[] = [];
  const inputs: ImportInput[] = [];
  for (const file of files) {
    const first = documents.length;
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
    inputs.push({ file, documents: [first, documents.length] });
  }
  return { documents, inputs };
}

function describeInputs(inputs: readonly ImportInput[]): string {
  return inputs.map(({ file, documents: [first, end] }) => {
    const name = file === "-" ? "stdin" : file;
    if (end === first) return `${name}: no documents\n`;
    return `${name}: document${end - first === 1 ? ` ${first}` : `s ${first}-${end - 1}`}\n`;
  }).join("");
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
  const objects = importedObjects(result.rules) as unknown as KubeObject[];
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
  for (const ref of referencesOf(objects, options.controllerNamespace)) {
    const type = ref.kind === "Secret" ? SECRETS : CONFIG_MAPS;
    if (await client.read(type, ref.namespace, ref.name) !== undefined) continue;
    ctx.io.stderr.write(
      `Warning: ${ref.kind} "${ref.namespace}/${ref.name}" that ${ref.policy} names does not exist: the images it covers are denied until it does (${
        ref.kind === "Secret" && !ref.trustRoot
          ? "toolkit image-security key-secret"
          : "toolkit image-security trust-root"
      } ${ref.name} -n ${ref.namespace} …)\n`,
    );
  }
  return results;
}

/** A Secret or ConfigMap a policy names that the import does not make. */
interface Reference {
  readonly kind: "Secret" | "ConfigMap";
  readonly namespace: string;
  readonly name: string;
  readonly trustRoot: boolean;
  /** `ClusterImagePolicy "name"`, for messages. */
  readonly policy: string;
}

/**
 * The key Secrets and trust roots the policies among `objects` name and `objects` do not hold,
 * each once, in the namespace the webhook reads it from.
 */
function referencesOf(objects: readonly KubeObject[], controllerNamespace: string): Reference[] {
  const made = new Set(objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`));
  const found = new Map<string, Reference>();
  for (const policy of objects) {
    if (policy.kind !== "ClusterImagePolicy" && policy.kind !== "ImagePolicy") continue;
    const home = policy.metadata.namespace ?? controllerNamespace;
    const spec = (policy as { spec?: { repositories?: unknown[] } }).spec;
    for (const repository of spec?.repositories ?? []) {
      const requirements = (repository as {
        policy?: { simple?: { requirements?: Record<string, unknown>[] } };
      }).policy?.simple?.requirements ?? [];
      for (const requirement of requirements) {
        const add = (
          kind: "Secret" | "ConfigMap",
          name: unknown,
          namespace: unknown,
          trustRoot: boolean,
        ) => {
          if (typeof name !== "string") return;
          const ns = typeof namespace === "string" && namespace !== "" ? namespace : home;
          const key = `${kind} ${ns}/${name}`;
          if (made.has(key) || found.has(key)) return;
          found.set(key, { kind, namespace: ns, name, trustRoot, policy: label(policy) });
        };
        add("Secret", requirement.keySecret, requirement.keySecretNamespace, false);
        const refs = [
          requirement.trustRootRef,
          (requirement.keyless as { trustRootRef?: unknown } | undefined)?.trustRootRef,
        ];
        for (const ref of refs) {
          if (typeof ref !== "object" || ref === null) continue;
          const r = ref as { kind?: string; name?: unknown; namespace?: unknown };
          add(r.kind === "Secret" ? "Secret" : "ConfigMap", r.name, r.namespace, true);
        }
      }
    }
  }
  return [...found.values()];
}

/** Runs `import`. */
export async function run(options: ImportOptions, ctx: CommandContext): Promise<number> {
  const { documents, inputs } = await readDocuments(options.files, ctx);
  const result = await importDocuments(documents, {
    controllerNamespace: options.controllerNamespace,
    readFile: (path) => readUserFile(ctx.io.cwd, path, "file"),
  });
  const report = importReport(result);
  if (inputs.length > 1) ctx.io.stderr.write(describeInputs(inputs));
  ctx.io.stderr.write(formatImportReport(report));
  if (options.report) {
    await writeFileSafely(
      resolvePath(ctx.io.cwd, options.report),
      `${JSON.stringify({ inputs, ...report }, null, 2)}\n`,
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
