/**
 * Where the decision reads the cluster's state from: policies, exempt namespaces, Secrets (key,
 * pull and store Secrets) and ServiceAccounts. Two implementations: the API server through
 * watches ({@linkcode createKubePolicySource}) and YAML manifests ({@linkcode filePolicySource}).
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import type { PolicySet } from "../policy/mod.ts";
import { decodeBase64 } from "../base64.ts";
import { formatBytes } from "../read_budget.ts";
import { PolicySourceError } from "./errors.ts";

/** The parts of a Secret the decision reads. */
export interface SecretData {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
  };
  readonly type?: string;
  /** Base64 values, as the API returns them. */
  readonly data?: Readonly<Record<string, string>>;
}

/** The parts of a ConfigMap the decision reads (trust roots of `sigstoreSigned`). */
export interface ConfigMapData {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
  };
  /** Text values. */
  readonly data?: Readonly<Record<string, string>>;
  /** Base64 values. */
  readonly binaryData?: Readonly<Record<string, string>>;
}

/** The parts of a ServiceAccount the decision reads. */
export interface ServiceAccountData {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly imagePullSecrets?: readonly { readonly name?: string }[];
}

/** How a Secret is read. */
export interface SecretReadOptions {
  /** The most bytes the Secret may take (see {@linkcode PolicySource.secret}). */
  readonly maxBytes?: number;
}

/** An object read from the cluster was larger than the reader allows: it is not used. */
export class ObjectTooLargeError extends PolicySourceError {
  /** The limit in bytes. */
  readonly limit: number;
  /** Creates the error for `what` (`Secret "team/pull"`) over `limit` bytes. */
  constructor(what: string, limit: number, options?: ErrorOptions) {
    super(`Cannot read ${what}: it is larger than ${formatBytes(limit)}`, options);
    this.name = "ObjectTooLargeError";
    this.limit = limit;
  }
}

/** The bytes of a Secret's data: its keys and base64 values (not its name or metadata). */
export function secretDataBytes(secret: SecretData): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(secret.data ?? {})) {
    bytes += key.length + (typeof value === "string" ? value.length : 0);
  }
  return bytes;
}

/** The cluster state the admission decision needs. */
export interface PolicySource {
  /** True once everything has been loaded (the watches have synced). */
  ready(): boolean;
  /** The current policies. */
  policies(): PolicySet;
  /** Namespaces that carry the exemption label. */
  exemptNamespaces(): ReadonlySet<string>;
  /**
   * The mode a namespace's label sets ({@linkcode ENFORCEMENT_LABEL}: `enforce` or `warn`), which
   * takes the place of the webhook's `--mode` there; undefined when the namespace has none.
   */
  namespaceMode?(namespace: string): "enforce" | "warn" | undefined;
  /**
   * A number that changes whenever anything this source answers may have changed: a policy, a
   * watched Secret or ConfigMap, an exempt namespace, an object read afresh, new files. The
   * verifier remembers admitted verdicts for a second under one generation and forgets them all
   * at the next (`verdict_memo.ts`); a source without it gets no such memo.
   */
  generation?(): number;
  /**
   * Why the policies that govern `namespace` cannot be applied (one of them is invalid), or
   * undefined. Every image of such a namespace is denied with this reason: a broken policy never
   * lets a namespace fall back to more permissive ones.
   */
  policyProblem?(namespace: string): string | undefined;
  /**
   * A Secret, or undefined when it does not exist. With `maxBytes`, a Secret larger than that
   * (the API server's answer, counted as it is read, before it is parsed) is refused with
   * {@linkcode ObjectTooLargeError}, read or found in a cache alike; a source that holds its
   * objects already (files) may ignore it.
   *
   * @throws {PolicySourceError} when it cannot be read.
   */
  secret(
    namespace: string,
    name: string,
    options?: SecretReadOptions,
  ): Promise<SecretData | undefined>;
  /**
   * A ConfigMap (a trust root of `sigstoreSigned`), or undefined when it does not exist.
   *
   * @throws {PolicySourceError} when it cannot be read.
   */
  configMap(namespace: string, name: string): Promise<ConfigMapData | undefined>;
  /**
   * A ServiceAccount, or undefined when it does not exist.
   *
   * @throws {PolicySourceError} when it cannot be read.
   */
  serviceAccount(namespace: string, name: string): Promise<ServiceAccountData | undefined>;
}

/** Decodes one base64 data entry of a Secret as UTF-8; undefined when absent or not base64. */
export function secretText(secret: SecretData, key: string): string | undefined {
  const value = secret.data?.[key];
  if (typeof value !== "string") return undefined;
  try {
    return new TextDecoder().decode(decodeBase64(value));
  } catch {
    return undefined;
  }
}

/** One data entry of a ConfigMap as UTF-8 (`data`, else base64 `binaryData`); undefined if absent. */
export function configMapText(configMap: ConfigMapData, key: string): string | undefined {
  const text = configMap.data?.[key];
  if (typeof text === "string") return text;
  const binary = configMap.binaryData?.[key];
  if (typeof binary !== "string") return undefined;
  try {
    return new TextDecoder().decode(decodeBase64(binary));
  } catch {
    return undefined;
  }
}

/**
 * The namespace label that sets a namespace's mode, in place of the webhook's `--mode`:
 * `toolkit.dev/enforcement=enforce` or `=warn` (`toolkit image-security rollout` sets it). Any
 * other value is ignored. A policy's own `mode: warn` still warns in an enforced namespace.
 */
export const ENFORCEMENT_LABEL = "toolkit.dev/enforcement";

/** The mode an {@linkcode ENFORCEMENT_LABEL} value sets, if it is one. */
export function enforcementLabelMode(
  labels: Readonly<Record<string, string>> | undefined,
): "enforce" | "warn" | undefined {
  const value = labels?.[ENFORCEMENT_LABEL];
  return value === "enforce" || value === "warn" ? value : undefined;
}

/** The namespace label that exempts a namespace: `key=value`. */
export interface ExemptLabel {
  readonly key: string;
  readonly value: string;
}

/** The default exemption label: `toolkit.dev/image-security=exempt`. */
export const DEFAULT_EXEMPT_LABEL: ExemptLabel = {
  key: "toolkit.dev/image-security",
  value: "exempt",
};

const LABEL_KEY =
  /^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/**
 * Parses `key=value` into a label, or returns undefined for `""` (no label exempts).
 *
 * @throws {UsageError} when the text is not a valid `key=value` label.
 */
export function parseExemptLabel(text: string): ExemptLabel | undefined {
  if (text === "") return undefined;
  const eq = text.indexOf("=");
  const key = eq < 0 ? text : text.slice(0, eq);
  const value = eq < 0 ? "" : text.slice(eq + 1);
  if (
    eq < 0 || !LABEL_KEY.test(key) || key.length > 316 || !LABEL_VALUE.test(value) ||
    value.length > 63
  ) {
    throw new UsageError(
      `Cannot use exemption label "${text}": expected KEY=VALUE with a valid label key and value`,
    );
  }
  return { key, value };
}
