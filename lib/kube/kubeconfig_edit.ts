/**
 * Setting the namespace of a kubeconfig context (what `kubectl config set-context --namespace`
 * does) without disturbing the file: the `yaml` package's Document API finds the context, and
 * only the bytes of its `namespace` value are replaced (or one `namespace:` line is added), so
 * comments, key order, quoting, indentation and every other entry stay exactly as they were.
 * The file is replaced atomically, through a symbolic link, and keeps its permissions.
 *
 * @module
 */
import { isMap, isScalar, isSeq, Scalar, type YAMLMap } from "yaml";
import { parseYamlDocument } from "../yaml.ts";
import { ToolkitError } from "../errors.ts";
import { type FileSnapshot, readFileForUpdate, writeFileSafely } from "../file_write.ts";

/** A kubeconfig file that cannot be edited (unreadable, not YAML, no such context). */
export class KubeconfigEditError extends ToolkitError {
  /** Creates the error for the file and context. */
  constructor(file: string, context: string, detail: string, options?: ErrorOptions) {
    super(`Cannot set the namespace of context "${context}" in "${file}": ${detail}`, options);
    this.name = "KubeconfigEditError";
  }
}

const YAML_SPECIAL = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

function formatScalar(value: string, style: Scalar["type"]): string {
  if (style === Scalar.QUOTE_SINGLE) return `'${value.replaceAll("'", "''")}'`;
  if (style === Scalar.QUOTE_DOUBLE) return JSON.stringify(value);
  const plain = /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(value) && !YAML_SPECIAL.test(value);
  return plain ? value : JSON.stringify(value);
}

function findContext(text: string, contextName: string): YAMLMap | undefined {
  const doc = parseYamlDocument(text);
  const contexts = doc.get("contexts", true);
  if (!isSeq(contexts)) return undefined;
  for (const item of contexts.items) {
    if (isMap(item) && item.get("name") === contextName) {
      const ctx = item.get("context", true);
      return isMap(ctx) ? ctx : undefined;
    }
  }
  return undefined;
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return text.slice(start, offset).replace(/[^ \t].*$/, "").replace(/-/g, " ");
}

/**
 * Returns `text` with the namespace of `contextName` set to `namespace`, and whether anything
 * changed. Throws {@linkcode KubeconfigEditError} when the context is not in the text.
 */
export function setContextNamespaceInText(
  text: string,
  contextName: string,
  namespace: string,
  file = "kubeconfig",
): { text: string; changed: boolean } {
  let ctx: YAMLMap | undefined;
  try {
    ctx = findContext(text, contextName);
  } catch (error) {
    throw new KubeconfigEditError(file, contextName, "it is not valid YAML", { cause: error });
  }
  if (!ctx || !ctx.range) {
    throw new KubeconfigEditError(file, contextName, "the file has no such context");
  }
  const pair = ctx.items.find((p) => isScalar(p.key) && p.key.value === "namespace");
  const quoteKeys = ctx.items.some((p) => isScalar(p.key) && p.key.type === Scalar.QUOTE_DOUBLE);
  let edited: string;
  if (pair) {
    const value = pair.value;
    if (isScalar(value) && value.value === namespace) return { text, changed: false };
    if (!isScalar(value) || !value.range || value.value === null || value.value === "") {
      const key = pair.key as Scalar;
      if (!key.range) throw new KubeconfigEditError(file, contextName, "cannot locate namespace");
      const at = key.range[1];
      const end = value && isScalar(value) && value.range ? value.range[1] : at;
      const colon = text.indexOf(":", at);
      const style = quoteKeys ? Scalar.QUOTE_DOUBLE : Scalar.PLAIN;
      edited = `${text.slice(0, colon + 1)} ${formatScalar(namespace, style)}${
        text.slice(Math.max(end, colon + 1))
      }`;
    } else {
      const [start, end] = value.range;
      edited = text.slice(0, start) + formatScalar(namespace, value.type) + text.slice(end);
    }
  } else if (ctx.flow) {
    const close = text.lastIndexOf("}", ctx.range[1] - 1);
    const key = quoteKeys ? '"namespace"' : "namespace";
    const value = formatScalar(namespace, quoteKeys ? Scalar.QUOTE_DOUBLE : Scalar.PLAIN);
    const sep = ctx.items.length > 0 ? ", " : "";
    edited = `${text.slice(0, close).trimEnd()}${sep}${key}: ${value}${
      ctx.items.length > 0 && text[close - 1] === " " ? " " : ""
    }${text.slice(close)}`;
  } else {
    const first = ctx.items[0];
    const firstKey = first && isScalar(first.key) ? first.key : undefined;
    if (!firstKey?.range) {
      throw new KubeconfigEditError(file, contextName, "the context has an unexpected shape");
    }
    const indent = lineIndent(text, firstKey.range[0]);
    let at = ctx.range[2];
    const line = `${indent}namespace: ${formatScalar(namespace, Scalar.PLAIN)}\n`;
    if (at > 0 && text[at - 1] !== "\n") {
      const nl = text.indexOf("\n", at);
      at = nl === -1 ? text.length : nl + 1;
    }
    edited = text[at - 1] === "\n" || at === 0
      ? text.slice(0, at) + line + text.slice(at)
      : `${text.slice(0, at)}\n${line}${text.slice(at)}`;
  }
  let check: YAMLMap | undefined;
  try {
    check = findContext(edited, contextName);
  } catch (error) {
    throw new KubeconfigEditError(file, contextName, "the edit broke the file", { cause: error });
  }
  if (check?.get("namespace") !== namespace) {
    throw new KubeconfigEditError(file, contextName, "the edit did not take");
  }
  return { text: edited, changed: true };
}

/**
 * Sets the namespace of `contextName` in `file`, in place. Returns false when it already was
 * `namespace` (the file is then not written). The file is written through lib/file_write.ts:
 * beside it and renamed, through a symbolic link (`~/.kube/config` in a dotfiles repository)
 * as kubectl does, keeping its mode, and not at all when another program changed it since it
 * was read (a {@linkcode FileChangedError} as cause).
 */
export async function setContextNamespace(
  file: string,
  contextName: string,
  namespace: string,
): Promise<boolean> {
  let text: string;
  let snapshot: FileSnapshot;
  try {
    const read = await readFileForUpdate(file);
    text = new TextDecoder().decode(read.bytes);
    snapshot = read.snapshot;
  } catch (error) {
    throw new KubeconfigEditError(file, contextName, "the file cannot be read", { cause: error });
  }
  const result = setContextNamespaceInText(text, contextName, namespace, file);
  if (!result.changed) return false;
  try {
    await writeFileSafely(file, result.text, { mode: 0o600, expected: snapshot });
  } catch (error) {
    throw new KubeconfigEditError(file, contextName, "the file cannot be written", {
      cause: error,
    });
  }
  return true;
}
