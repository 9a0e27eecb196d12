/**
 * Where the cluster's web console is, for `console` (which opens it) and `pipeline` (which links
 * to the PipelineRun in it):
 *
 * - OpenShift: `consoleURL` of ConfigMap `openshift-config-managed/console-public` (what
 *   `oc whoami --show-console` reads), else the `console` Route of `openshift-console`.
 * - IBM Cloud Kubernetes Service: the cluster's dashboard, from `REGION` and `CLUSTER_ID` of
 *   ConfigMap `tools/ibmcloud-config` (or the id in `kube-system/cluster-info`), with the URL
 *   igc built.
 * - Any other Kubernetes: the Kubernetes Dashboard through the API server proxy, when its
 *   Service is installed.
 *
 * @module
 */
import { ToolkitError } from "../../lib/errors.ts";
import {
  CONFIG_MAPS,
  KubeApiError,
  type KubeClient,
  ROUTES,
  SERVICES,
} from "../../lib/kube/mod.ts";
import { routeUrl } from "./app_urls.ts";

/** No console could be found for the cluster. */
export class ConsoleNotFoundError extends ToolkitError {
  /** Creates the error with what was looked at. */
  constructor(detail: string) {
    super(`Cannot find the console of this cluster: ${detail}`);
    this.name = "ConsoleNotFoundError";
  }
}

/** Where Kubernetes Dashboard Services are looked for: [namespace, service]. */
export const DASHBOARD_SERVICES: ReadonlyArray<readonly [string, string]> = [
  ["kubernetes-dashboard", "kubernetes-dashboard-kong-proxy"],
  ["kubernetes-dashboard", "kubernetes-dashboard"],
  ["kube-system", "kubernetes-dashboard"],
];

/** Treats a refused read (403 and the like) as "not there"; other failures go on. */
function absent(error: unknown): undefined {
  if (error instanceof KubeApiError) return undefined;
  throw error;
}

async function openShiftConsole(client: KubeClient): Promise<string | undefined> {
  const config = await client.read(CONFIG_MAPS, "openshift-config-managed", "console-public")
    .catch(absent);
  const url = (config?.data as Record<string, string> | undefined)?.consoleURL;
  if (url) return url;
  if (await client.serves(ROUTES)) {
    const route = await client.read(ROUTES, "openshift-console", "console").catch(absent);
    if (route) return routeUrl(route);
  }
  return undefined;
}

function clusterIdFromInfo(data: Record<string, string> | undefined): string | undefined {
  const json = data?.["cluster-config.json"];
  if (!json) return undefined;
  try {
    const parsed = JSON.parse(json) as Record<string, unknown>;
    const id = parsed.cluster_id ?? parsed.id;
    return typeof id === "string" && id !== "" ? id : undefined;
  } catch {
    return undefined;
  }
}

async function iksConsole(client: KubeClient): Promise<string | undefined> {
  const [config, info] = await Promise.all([
    client.read(CONFIG_MAPS, "tools", "ibmcloud-config").catch(absent),
    client.read(CONFIG_MAPS, "kube-system", "cluster-info").catch(absent),
  ]);
  const data = config?.data as Record<string, string> | undefined;
  const region = data?.REGION;
  const id = data?.CLUSTER_ID || clusterIdFromInfo(info?.data as Record<string, string>);
  if (!region || !id) return undefined;
  return `https://${region}.containers.cloud.ibm.com/kubeproxy/clusters/${id}/service/#/overview?namespace=default`;
}

async function kubernetesDashboard(client: KubeClient): Promise<string | undefined> {
  for (const [namespace, name] of DASHBOARD_SERVICES) {
    const service = await client.read(SERVICES, namespace, name).catch(absent);
    if (!service) continue;
    const ports = (service.spec as { ports?: Array<{ port?: number; name?: string }> })?.ports ??
      [];
    const https = ports.some((p) => p.port === 443 || p.name === "https");
    return `${client.context.cluster.server}/api/v1/namespaces/${namespace}/services/${
      https ? "https:" : ""
    }${name}:/proxy/`;
  }
  return undefined;
}

/** The console URL of the cluster, or throws {@linkcode ConsoleNotFoundError}. */
export async function findConsoleUrl(client: KubeClient): Promise<string> {
  if (await client.isOpenShift()) {
    const url = await openShiftConsole(client);
    if (url) return url;
    throw new ConsoleNotFoundError(
      "no consoleURL in ConfigMap openshift-config-managed/console-public and no Route openshift-console/console",
    );
  }
  const url = (await iksConsole(client)) ?? (await kubernetesDashboard(client));
  if (url) return url;
  throw new ConsoleNotFoundError(
    "it is not OpenShift, has no IBM Cloud cluster config (tools/ibmcloud-config with REGION and CLUSTER_ID) and no Kubernetes Dashboard Service",
  );
}
