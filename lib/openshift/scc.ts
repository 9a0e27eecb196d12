/**
 * OpenShift SecurityContextConstraints: granting one to a ServiceAccount by adding it to the SCC's
 * `users` (what `oc adm policy add-scc-to-user <scc> -z <sa>` does), read-change-replace because
 * the list is shared.
 *
 * @module
 */
import {
  type ApplyResult,
  type KubeClient,
  SECURITY_CONTEXT_CONSTRAINTS,
  updateObject,
} from "../kube/mod.ts";

/**
 * Grants SCC `scc` to ServiceAccount `namespace/name`; undefined when the cluster has no such SCC
 * (or no SCCs at all: not OpenShift).
 */
export async function grantScc(
  client: KubeClient,
  scc: string,
  namespace: string,
  name: string,
): Promise<ApplyResult | undefined> {
  if (!(await client.serves(SECURITY_CONTEXT_CONSTRAINTS))) return undefined;
  const user = `system:serviceaccount:${namespace}:${name}`;
  return await updateObject(client, SECURITY_CONTEXT_CONSTRAINTS, undefined, scc, (live) => {
    const users = Array.isArray(live?.users) ? (live.users as string[]) : [];
    return live && !users.includes(user) ? { ...live, users: [...users, user] } : undefined;
  });
}
