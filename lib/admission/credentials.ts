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
import type { PolicySource } from "./source.ts";

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
 * Collects the pull credentials of a workload in `namespace`: `imagePullSecrets` first, then
 * the ServiceAccount's (a missing ServiceAccount adds none).
 *
 * @throws {PolicySourceError} when a Secret or the ServiceAccount cannot be read.
 */
export async function pullCredentials(
  source: PolicySource,
  namespace: string,
  imagePullSecrets: readonly string[],
  serviceAccountName: string,
): Promise<PullCredentials> {
  const names = [...imagePullSecrets];
  const account = await source.serviceAccount(namespace, serviceAccountName);
  for (const ref of account?.imagePullSecrets ?? []) {
    if (typeof ref.name === "string" && ref.name !== "" && !names.includes(ref.name)) {
      names.push(ref.name);
    }
  }
  if (names.length === 0) return ANONYMOUS;
  const secrets = await Promise.all(names.map((name) => source.secret(namespace, name)));
  const entries: CredentialEntry[] = [];
  const used: string[] = [];
  const ids: string[] = [];
  const skipped: string[] = [];
  secrets.forEach((secret, i) => {
    const where = `${namespace}/${names[i]}`;
    if (secret === undefined) {
      skipped.push(`${where}: does not exist`);
      return;
    }
    try {
      entries.push(...credentialsFromSecret(secret));
      used.push(where);
      ids.push(`${where}@${secret.metadata?.resourceVersion ?? ""}`);
    } catch (error) {
      skipped.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  if (entries.length === 0) return { ...ANONYMOUS, skipped };
  return { id: ids.join(","), store: createKeyring(entries), secrets: used, skipped };
}
