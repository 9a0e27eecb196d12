/**
 * The wg-policy PolicyReport CRDs an installation brings (`wgpolicyk8s.io/v1alpha2`, Kyverno's
 * files, see `policy_report_crds.ts`), and whether a cluster already has them from someone else
 * (Kyverno, a policy-reporter install): then they are left alone.
 *
 * @module
 */
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  FIELD_MANAGER,
  fieldManagers,
  type KubeClient,
  type KubeObject,
} from "../kube/mod.ts";
import { parseYaml } from "../yaml.ts";
import { POLICY_REPORT_CRD_FILES } from "./policy_report_crds.ts";

/** The names of the PolicyReport CRDs. */
export const POLICY_REPORT_CRD_NAMES: readonly string[] = [
  "clusterpolicyreports.wgpolicyk8s.io",
  "policyreports.wgpolicyk8s.io",
];

/** The PolicyReport and ClusterPolicyReport CRDs, as Kyverno ships them. */
export function policyReportCrdManifests(): KubeObject[] {
  return Object.keys(POLICY_REPORT_CRD_FILES).sort().map((name) =>
    parseYaml(POLICY_REPORT_CRD_FILES[name]!) as KubeObject
  );
}

/** Whether a CRD as read is someone else's: it exists and no toolkit apply wrote it. */
export function isForeignCrd(crd: KubeObject | undefined): boolean {
  if (!crd) return false;
  return !fieldManagers(crd).some((m) => m.manager === FIELD_MANAGER);
}

/** Reads the PolicyReport CRD and tells whether someone else installed it. */
export async function policyReportCrdsForeign(client: Pick<KubeClient, "read">): Promise<boolean> {
  return isForeignCrd(
    await client.read(CUSTOM_RESOURCE_DEFINITIONS, undefined, "policyreports.wgpolicyk8s.io"),
  );
}
