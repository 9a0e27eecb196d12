/**
 * Policies from YAML manifests instead of the API server: for the webhook's `--policies FILE`
 * and for `toolkit image-security check -f FILE`. A file holds any number of documents (and
 * `kind: List` objects) of these kinds: `ClusterImagePolicy`, `ImagePolicy` (validated like the
 * CRD, with field paths), `Secret` (key, pull and store Secrets), `ConfigMap` (sigstore trust
 * roots), `ServiceAccount` and `Namespace` (for the exemption label).
 *
 * A Secret, ConfigMap or ServiceAccount written without a namespace is found in every namespace, so one
 * key Secret serves a file's cluster policies and its namespaced ones. An ImagePolicy without
 * a namespace belongs to the default namespace given when loading.
 *
 * @module
 */
import { safeSyntaxError, ToolkitError } from "../errors.ts";
import { parseYamlDocuments } from "../yaml.ts";
import {
  type ImagePolicy,
  loadAttestationConditions,
  PolicySet,
  validatePolicy,
} from "../policy/mod.ts";
import {
  type ConfigMapData,
  enforcementLabelMode,
  type ExemptLabel,
  type PolicySource,
  type SecretData,
  type ServiceAccountData,
} from "./source.ts";
import { encodeBase64 } from "../base64.ts";

/** A policy file that cannot be read or holds something that is not allowed. */
export class PolicyFileError extends ToolkitError {
  /** The file at fault. */
  readonly file: string;
  /** Creates the error for `file`; `detail` says what is wrong. */
  constructor(file: string, detail: string, options?: ErrorOptions) {
    super(`Cannot use policy file "${file}": ${detail}`, options);
    this.name = "PolicyFileError";
    this.file = file;
  }
}

/** The objects read from policy files. */
export interface PolicyDocuments {
  /** Validated policies. */
  readonly policies: readonly ImagePolicy[];
  /** Secrets, with `stringData` folded into `data`. */
  readonly secrets: readonly SecretData[];
  /** ConfigMaps (trust roots of `sigstoreSigned`). */
  readonly configMaps?: readonly ConfigMapData[];
  /** ServiceAccounts. */
  readonly serviceAccounts: readonly ServiceAccountData[];
  /** Namespaces and their labels. */
  readonly namespaces: readonly {
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
  }[];
}

/** How to read policy files. */
export interface PolicyFileOptions {
  /** The API groups policies may use (`toolkit.dev`, `portieris.cloud.ibm.com`). */
  readonly groups: readonly string[];
  /** The namespace of ImagePolicies written without one. @default "default" */
  readonly defaultNamespace?: string;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  }
  return out;
}

/**
 * Reads the objects of one file's text.
 *
 * @throws {PolicyFileError} for YAML that does not parse (the message gives the document, line
 * and column, never the text, which may hold Secret data) or an unsupported kind;
 * {@linkcode InvalidPolicyError} for a policy that does not validate.
 */
export function parsePolicyManifests(
  text: string,
  file: string,
  options: PolicyFileOptions,
): PolicyDocuments {
  const defaultNamespace = options.defaultNamespace ?? "default";
  const policies: ImagePolicy[] = [];
  const secrets: SecretData[] = [];
  const configMaps: ConfigMapData[] = [];
  const serviceAccounts: ServiceAccountData[] = [];
  const namespaces: { name: string; labels: Record<string, string> }[] = [];
  const objects: { object: unknown; where: string }[] = [];
  let values: unknown[];
  try {
    values = parseYamlDocuments(text);
  } catch (error) {
    // Never the parser's own message: it quotes the offending line, maybe a Secret's value.
    const safe = safeSyntaxError(error, "YAML");
    throw new PolicyFileError(file, safe.message, { cause: safe });
  }
  values.forEach((value, i) => {
    if (value === null || value === undefined) return;
    if (isObject(value) && value.kind === "List" && Array.isArray(value.items)) {
      value.items.forEach((item: unknown, j: number) =>
        objects.push({ object: item, where: `document ${i + 1} item ${j + 1}` })
      );
    } else {
      objects.push({ object: value, where: `document ${i + 1}` });
    }
  });
  for (const { object, where } of objects) {
    if (!isObject(object)) throw new PolicyFileError(file, `${where} is not an object`);
    const metadata = isObject(object.metadata) ? object.metadata : {};
    const name = typeof metadata.name === "string" ? metadata.name : "";
    const namespace = typeof metadata.namespace === "string" ? metadata.namespace : undefined;
    switch (object.kind) {
      case "ClusterImagePolicy":
      case "ImagePolicy": {
        const withNamespace = object.kind === "ImagePolicy" && namespace === undefined
          ? { ...object, metadata: { ...metadata, namespace: defaultNamespace } }
          : object;
        policies.push(validatePolicy(withNamespace, options.groups));
        break;
      }
      case "Secret": {
        if (object.apiVersion !== "v1" || name === "") {
          throw new PolicyFileError(file, `${where}: a Secret needs apiVersion v1 and a name`);
        }
        const data = stringRecord(object.data);
        for (const [k, v] of Object.entries(stringRecord(object.stringData))) {
          data[k] = encodeBase64(v);
        }
        secrets.push({
          metadata: { name, ...(namespace ? { namespace } : {}), resourceVersion: "file" },
          ...(typeof object.type === "string" ? { type: object.type } : {}),
          data,
        });
        break;
      }
      case "ConfigMap": {
        if (object.apiVersion !== "v1" || name === "") {
          throw new PolicyFileError(file, `${where}: a ConfigMap needs apiVersion v1 and a name`);
        }
        configMaps.push({
          metadata: { name, ...(namespace ? { namespace } : {}), resourceVersion: "file" },
          data: stringRecord(object.data),
          binaryData: stringRecord(object.binaryData),
        });
        break;
      }
      case "ServiceAccount": {
        if (name === "") throw new PolicyFileError(file, `${where}: a ServiceAccount needs a name`);
        const pull = Array.isArray(object.imagePullSecrets)
          ? object.imagePullSecrets.filter(isObject).map((r) => ({
            name: typeof r.name === "string" ? r.name : "",
          }))
          : [];
        serviceAccounts.push({
          metadata: { name, ...(namespace ? { namespace } : {}) },
          imagePullSecrets: pull,
        });
        break;
      }
      case "Namespace":
        if (name === "") throw new PolicyFileError(file, `${where}: a Namespace needs a name`);
        namespaces.push({ name, labels: stringRecord(metadata.labels) });
        break;
      default:
        throw new PolicyFileError(
          file,
          `${where} has kind "${
            String(object.kind)
          }"; only ClusterImagePolicy, ImagePolicy, Secret, ConfigMap, ServiceAccount and Namespace are read`,
        );
    }
  }
  return { policies, secrets, configMaps, serviceAccounts, namespaces };
}

/**
 * Reads policy files.
 *
 * @throws {PolicyFileError} when a file cannot be read or parsed;
 * {@linkcode InvalidPolicyError} for a policy that does not validate.
 */
export async function loadPolicyFiles(
  paths: readonly string[],
  options: PolicyFileOptions,
): Promise<PolicyDocuments> {
  const parts: PolicyDocuments[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      const detail = error instanceof Deno.errors.NotFound ? "no such file" : String(error);
      throw new PolicyFileError(path, detail, { cause: error });
    }
    // CEL conditions are compiled as the policies are validated: the evaluator first.
    if (text.includes("conditions")) await loadAttestationConditions();
    parts.push(parsePolicyManifests(text, path, options));
  }
  return {
    policies: parts.flatMap((p) => p.policies),
    secrets: parts.flatMap((p) => p.secrets),
    configMaps: parts.flatMap((p) => p.configMaps ?? []),
    serviceAccounts: parts.flatMap((p) => p.serviceAccounts),
    namespaces: parts.flatMap((p) => p.namespaces),
  };
}

/** A {@linkcode PolicySource} over documents read from files; `replace` swaps them. */
export interface FilePolicySource extends PolicySource {
  /** Replaces the documents (after the file changed). */
  replace(documents: PolicyDocuments): void;
}

function find<T extends { metadata?: { name?: string; namespace?: string } }>(
  items: readonly T[],
  namespace: string,
  name: string,
): T | undefined {
  return items.find((s) => s.metadata?.name === name && s.metadata.namespace === namespace) ??
    items.find((s) => s.metadata?.name === name && s.metadata.namespace === undefined);
}

/** Creates a source over documents. */
export function filePolicySource(
  documents: PolicyDocuments,
  options: { readonly exemptLabel?: ExemptLabel | undefined } = {},
): FilePolicySource {
  let docs = documents;
  let set = new PolicySet(docs.policies);
  let exempt = exemptOf(docs);
  let modes = modesOf(docs);
  let generation = 0;

  function modesOf(d: PolicyDocuments): ReadonlyMap<string, "enforce" | "warn"> {
    const out = new Map<string, "enforce" | "warn">();
    for (const n of d.namespaces) {
      const mode = enforcementLabelMode(n.labels);
      if (mode !== undefined) out.set(n.name, mode);
    }
    return out;
  }

  function exemptOf(d: PolicyDocuments): ReadonlySet<string> {
    const label = options.exemptLabel;
    if (label === undefined) return new Set();
    return new Set(
      d.namespaces.filter((n) => n.labels[label.key] === label.value).map((n) => n.name),
    );
  }

  return {
    ready: () => true,
    policies: () => set,
    exemptNamespaces: () => exempt,
    namespaceMode: (namespace) => modes.get(namespace),
    generation: () => generation,
    secret: (namespace, name) => Promise.resolve(find(docs.secrets, namespace, name)),
    configMap: (namespace, name) => Promise.resolve(find(docs.configMaps ?? [], namespace, name)),
    serviceAccount: (namespace, name) =>
      Promise.resolve(find(docs.serviceAccounts, namespace, name)),
    replace(next) {
      docs = next;
      set = new PolicySet(next.policies);
      exempt = exemptOf(next);
      modes = modesOf(next);
      generation++;
    },
  };
}
