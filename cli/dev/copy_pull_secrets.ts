/**
 * Registry pull secrets, shared by `pull-secret` and `sync`: which secrets of the template
 * namespace are pull secrets (types `kubernetes.io/dockerconfigjson` and
 * `kubernetes.io/dockercfg`, and the `*icr-io*` names IBM Cloud clusters have), their names in
 * the target (a leading `default-` dropped), copying them without touching ones that exist,
 * and adding them to a service account's `imagePullSecrets` once.
 *
 * @module
 */
import {
  applyObject,
  type ApplyResult,
  copyForNamespace,
  type KubeClient,
  type KubeObject,
  SECRETS,
  SERVICE_ACCOUNTS,
  updateObject,
} from "../../lib/kube/mod.ts";
import { type Logger, writeEach, type WriteFailure } from "./common.ts";

/** The Secret types that hold registry credentials. */
export const PULL_SECRET_TYPES: readonly string[] = [
  "kubernetes.io/dockerconfigjson",
  "kubernetes.io/dockercfg",
];

/** True for a registry pull secret: by type, or by an `icr-io` name as igc matched them. */
export function isPullSecret(secret: KubeObject): boolean {
  return PULL_SECRET_TYPES.includes(String(secret.type ?? "")) ||
    secret.metadata.name.includes("icr-io");
}

/** The name of a pull secret in the target namespace: `default-us-icr-io` → `us-icr-io`. */
export function targetPullSecretName(name: string): string {
  return name.startsWith("default-") && name.length > "default-".length
    ? name.slice("default-".length)
    : name;
}

/** A pull secret of the template and its name in the target. */
export interface PullSecretPlan {
  /** The secret in the template namespace. */
  readonly source: KubeObject;
  /** Its name in the target namespace. */
  readonly name: string;
}

/**
 * The pull secrets among `secrets` (of the template namespace), one per target name; a secret
 * already named like the target wins over a `default-` one.
 */
export function planPullSecrets(secrets: readonly KubeObject[]): PullSecretPlan[] {
  const byName = new Map<string, PullSecretPlan>();
  const sorted = secrets.filter(isPullSecret).sort((a, b) =>
    a.metadata.name.localeCompare(b.metadata.name)
  );
  for (const source of sorted) {
    const name = targetPullSecretName(source.metadata.name);
    const current = byName.get(name);
    if (!current || source.metadata.name === name) byName.set(name, { source, name });
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Copies the planned pull secrets into `namespace`, leaving the ones that exist alone. Returns
 * the results and the names now present. Within the same namespace nothing is copied.
 */
export async function copyPullSecrets(
  client: KubeClient,
  log: Logger,
  plans: readonly PullSecretPlan[],
  from: string,
  to: string,
): Promise<{ results: ApplyResult[]; names: string[]; failures: WriteFailure[] }> {
  if (from === to) {
    log.step(`  The target is the template namespace: no pull secret to copy`);
    return { results: [], names: plans.map((p) => p.source.metadata.name), failures: [] };
  }
  const { results, failures } = await writeEach(
    plans,
    8,
    (plan) => ({ type: SECRETS, namespace: to, name: plan.name }),
    (plan) =>
      applyObject(
        client,
        SECRETS,
        copyForNamespace(SECRETS, plan.source, to, plan.name),
        { ifExists: "skip" },
      ),
  );
  for (const r of results) log.result(r);
  for (const f of failures) log.failed(f);
  return { results, names: results.map((r) => r.name), failures };
}

/**
 * Adds `names` to the `imagePullSecrets` of `serviceAccount` in `namespace`, each once and
 * after the ones it has; creates the service account when it does not exist.
 */
export async function addImagePullSecrets(
  client: KubeClient,
  namespace: string,
  serviceAccount: string,
  names: readonly string[],
): Promise<ApplyResult> {
  const result = await updateObject(client, SERVICE_ACCOUNTS, namespace, serviceAccount, (live) => {
    const current = Array.isArray(live?.imagePullSecrets)
      ? (live.imagePullSecrets as Array<{ name?: string }>)
      : [];
    const have = new Set(current.map((s) => s.name));
    const added = [...new Set(names)].filter((n) => !have.has(n)).map((name) => ({ name }));
    if (!live) return { metadata: { name: serviceAccount, namespace }, imagePullSecrets: added };
    return added.length === 0 ? undefined : { ...live, imagePullSecrets: [...current, ...added] };
  });
  return result!; // the change always writes an absent service account
}
