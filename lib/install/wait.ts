/**
 * Waiting for deletions to finish. Deleting a Namespace or a CRD only starts its termination:
 * the API server and the namespace controller remove what is inside, and until then nothing new
 * can be created there. `disable --purge` waits until its namespace and CRDs are gone, and
 * `enable` waits for a namespace still terminating, so `disable --purge && enable` works.
 *
 * @module
 */
import type { KubeClient } from "../kube/mod.ts";
import { installedType } from "./apply.ts";
import { InstallError } from "./install_error.ts";
import { pollUntil, type WaitOptions } from "../poll.ts";

export type { WaitOptions } from "../poll.ts";

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
 * Waits until `kind` `namespace/name` no longer exists (by default up to 120 s, looking every
 * 500 ms).
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
  const type = installedType(kind);
  await pollUntil(
    async () => (await client.read(type, namespace, name)) ? undefined : true,
    (timeoutMs) =>
      new InstallError(
        `${kind} "${namespace ? `${namespace}/${name}` : name}" is still being deleted after ${
          Math.round(timeoutMs / 1000)
        } s: a finalizer holds it (kubectl get ${type.plural} ${
          namespace ? `-n ${namespace} ` : ""
        }${name} -o yaml shows which)`,
      ),
    options,
    { timeoutMs: 120_000, pollMs: 500 },
  );
}
