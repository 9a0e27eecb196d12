/**
 * Waiting for deletions to finish. Deleting a Namespace or a CRD only starts its termination:
 * the API server and the namespace controller remove what is inside, and until then nothing new
 * can be created there. `disable --purge` waits until its namespace and CRDs are gone, and
 * `enable` waits for a namespace still terminating, so `disable --purge && enable` works.
 *
 * @module
 */
import type { KubeClient } from "../kube/client.ts";
import { installedType } from "./apply.ts";
import { InstallError } from "./install_error.ts";

/** Options of {@link waitUntilDeleted}. */
export interface WaitOptions {
  /** How long to wait, in ms (default 120 s). */
  readonly timeoutMs?: number;
  /** How often to look, in ms (default 500). */
  readonly pollMs?: number;
  /** Sleeps `ms` (injected by tests; default a timer). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The current time in ms (default `Date.now`). */
  readonly now?: () => number;
}

/** Whether `kind` `namespace/name` exists and is being deleted. */
export async function isTerminating(
  client: Pick<KubeClient, "read">,
  kind: string,
  namespace: string | undefined,
  name: string,
): Promise<boolean> {
  const object = await client.read(installedType(kind), namespace, name);
  return typeof object?.metadata.deletionTimestamp === "string";
}

/**
 * Waits until `kind` `namespace/name` no longer exists.
 *
 * @throws {InstallError} when it still exists after the timeout (a finalizer holds it).
 */
export async function waitUntilDeleted(
  client: Pick<KubeClient, "read">,
  kind: string,
  namespace: string | undefined,
  name: string,
  options: WaitOptions = {},
): Promise<void> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = now() + timeoutMs;
  const type = installedType(kind);
  while (await client.read(type, namespace, name)) {
    if (now() >= deadline) {
      const where = namespace ? `${namespace}/${name}` : name;
      throw new InstallError(
        `${kind} "${where}" is still being deleted after ${
          Math.round(timeoutMs / 1000)
        } s: a finalizer holds it (kubectl get ${type.plural} ${
          namespace ? `-n ${namespace} ` : ""
        }${name} -o yaml shows which)`,
      );
    }
    await sleep(options.pollMs ?? 500);
  }
}
