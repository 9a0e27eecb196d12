/**
 * Registry credentials of a workload: the Secrets named by its pod spec's `imagePullSecrets`,
 * then those of its ServiceAccount, parsed as `.dockerconfigjson` or `.dockercfg` and matched
 * to registries by Kubernetes' host rules (so `https://index.docker.io/v1/` serves `docker.io`).
 *
 * @module
 */
import {
  createKeyring,
  type CredentialEntry,
  credentialsFromSecret,
  type CredentialStore,
} from "../registry/mod.ts";
import { formatBytes } from "../read_budget.ts";
import { PolicySourceError } from "./errors.ts";
import {
  ObjectTooLargeError,
  type PolicySource,
  type SecretData,
  secretDataBytes,
} from "./source.ts";

/** The credentials to pull a workload's images with. */
export interface PullCredentials {
  /** Identifies the credentials (Secret names and versions, never their content). */
  readonly id: string;
  /** The credentials, by registry. */
  readonly store: CredentialStore;
  /** The Secrets used, `namespace/name`, in order. */
  readonly secrets: readonly string[];
  /** Named Secrets that are missing or unusable, with why (kubelet ignores them too). */
  readonly skipped: readonly string[];
}

/** No credentials: anonymous access. */
export const ANONYMOUS: PullCredentials = {
  id: "",
  store: { lookup: () => [] },
  secrets: [],
  skipped: [],
};

/**
 * The most image pull Secrets read for one review: the workload's `imagePullSecrets` and its
 * ServiceAccount's, without repeats. Real Pods name one or two (one per private registry, the
 * ServiceAccount's own); Kubernetes sets no bound of its own.
 */
export const MAX_PULL_SECRETS = 16;

/**
 * The most bytes of image pull Secrets read for one review: their data (keys and base64 values)
 * added up, and each Secret's answer from the API server (a `.dockerconfigjson` is a few KB).
 */
export const MAX_PULL_SECRET_BYTES = 256 * 1024;

/** A workload's pull Secrets are over a bound: the review is denied, naming the bound. */
export class PullSecretLimitError extends PolicySourceError {
  /** Creates the error; the message names the bound. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PullSecretLimitError";
  }
}

/** How many pull Secrets, and how many bytes of them, one review reads. */
export interface PullSecretBounds {
  /** @default {@linkcode MAX_PULL_SECRETS} */
  readonly maxSecrets?: number;
  /** @default {@linkcode MAX_PULL_SECRET_BYTES} */
  readonly maxBytes?: number;
}

/**
 * Collects the pull credentials of a workload in `namespace`: `imagePullSecrets` first, then
 * the ServiceAccount's (a missing ServiceAccount adds none).
 *
 * What it reads is bounded before it is read: more than {@linkcode MAX_PULL_SECRETS} distinct
 * names, and nothing is read; the Secrets are read one after the other, each refused past
 * {@linkcode MAX_PULL_SECRET_BYTES} as its answer arrives (see {@linkcode PolicySource.secret}),
 * and their data added up: once the sum passes the bound, no more is read. Either way the review
 * is denied with {@linkcode PullSecretLimitError}, whose message names the bound.
 *
 * @throws {PolicySourceError} when a Secret or the ServiceAccount cannot be read, or the bounds
 * are passed ({@linkcode PullSecretLimitError}).
 */
export async function pullCredentials(
  source: PolicySource,
  namespace: string,
  imagePullSecrets: readonly string[],
  serviceAccountName: string,
  bounds: PullSecretBounds = {},
): Promise<PullCredentials> {
  const maxSecrets = bounds.maxSecrets ?? MAX_PULL_SECRETS;
  const maxBytes = bounds.maxBytes ?? MAX_PULL_SECRET_BYTES;
  const names = new Set<string>();
  const tooMany = (who: string) =>
    new PullSecretLimitError(
      `Cannot read the image pull Secrets of namespace "${namespace}": ${who} ${names.size} ` +
        `image pull Secrets; at most ${maxSecrets} are read per request`,
    );
  for (const name of imagePullSecrets) if (name !== "") names.add(name);
  if (names.size > maxSecrets) throw tooMany("the Pod names");
  const account = await source.serviceAccount(namespace, serviceAccountName);
  for (const ref of account?.imagePullSecrets ?? []) {
    if (typeof ref.name === "string" && ref.name !== "") names.add(ref.name);
  }
  if (names.size > maxSecrets) {
    throw tooMany(`the Pod and its ServiceAccount "${serviceAccountName}" name`);
  }
  if (names.size === 0) return ANONYMOUS;
  const entries: CredentialEntry[] = [];
  const used: string[] = [];
  const ids: string[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  // One after the other: what the next one may add is known before it is read.
  for (const name of names) {
    const where = `${namespace}/${name}`;
    let secret: SecretData | undefined;
    try {
      secret = await source.secret(namespace, name, { maxBytes });
    } catch (error) {
      if (!(error instanceof ObjectTooLargeError)) throw error;
      throw new PullSecretLimitError(
        `Cannot read the image pull Secret "${where}": it is larger than ${
          formatBytes(maxBytes)
        }; at most ${formatBytes(maxBytes)} of image pull Secrets are read per request`,
        { cause: error },
      );
    }
    if (secret === undefined) {
      skipped.push(`${where}: does not exist`);
      continue;
    }
    bytes += secretDataBytes(secret);
    if (bytes > maxBytes) {
      throw new PullSecretLimitError(
        `Cannot read the image pull Secrets of namespace "${namespace}": the image pull Secrets ` +
          `read up to "${name}" add up to ${bytes} bytes; at most ${maxBytes} bytes (${
            formatBytes(maxBytes)
          }) are read per request`,
      );
    }
    try {
      entries.push(...credentialsFromSecret(secret));
      used.push(where);
      ids.push(`${where}@${secret.metadata?.resourceVersion ?? ""}`);
    } catch (error) {
      skipped.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (entries.length === 0) return { ...ANONYMOUS, skipped };
  return { id: ids.join(","), store: createKeyring(entries), secrets: used, skipped };
}
