/**
 * `toolkit dashboard`: opens the Developer Dashboard of the tools namespace (`-n`, default
 * `tools`) in the browser, or prints its URL (`--print`, or when there is no browser). The URL
 * comes from the dashboard's Route (OpenShift) or Ingress (`dashboard`, `developer-dashboard`
 * or igc's `catalyst-dashboard`), else from the `DASHBOARD_URL` of ConfigMap `dashboard-config`.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { DASHBOARD } from "./dashboard_command.ts";
import { ToolkitError } from "../../lib/errors.ts";
import { CONFIG_MAPS, INGRESSES, type KubeClient, ROUTES } from "../../lib/kube/mod.ts";
import { namespaceOf } from "./common.ts";
import { ingressUrls, routeUrl } from "./app_urls.ts";
import { openUrl } from "./browser.ts";

/** The names the dashboard's Route or Ingress may have. */
export const DASHBOARD_NAMES: readonly string[] = [
  "dashboard",
  "developer-dashboard",
  "catalyst-dashboard",
];

/** The dashboard is not installed in the namespace (or not where toolkit looks). */
export class DashboardNotFoundError extends ToolkitError {
  /** Creates the error for the namespace. */
  constructor(namespace: string) {
    super(
      `Cannot find the Developer Dashboard in namespace "${namespace}": no Route or Ingress named ${
        DASHBOARD_NAMES.join(", ")
      }, and no ConfigMap dashboard-config with DASHBOARD_URL`,
    );
    this.name = "DashboardNotFoundError";
  }
}

/** The dashboard's URL in `namespace`, or undefined when there is none. */
export async function findDashboardUrl(
  client: KubeClient,
  namespace: string,
): Promise<string | undefined> {
  const routes = (await client.serves(ROUTES))
    ? await Promise.all(DASHBOARD_NAMES.map((n) => client.read(ROUTES, namespace, n)))
    : [];
  for (const route of routes) {
    const url = route && routeUrl(route);
    if (url) return url;
  }
  const [ingresses, config] = await Promise.all([
    Promise.all(DASHBOARD_NAMES.map((n) => client.read(INGRESSES, namespace, n))),
    client.read(CONFIG_MAPS, namespace, "dashboard-config"),
  ]);
  for (const ingress of ingresses) {
    const url = ingress && ingressUrls(ingress)[0];
    if (url) return url;
  }
  const fromConfig = (config?.data as Record<string, string> | undefined)?.DASHBOARD_URL;
  return fromConfig || undefined;
}

/** Runs `dashboard`. */
export async function run(
  options: OptionsOf<typeof DASHBOARD>,
  ctx: CommandContext,
): Promise<void> {
  using client = await ctx.kube(options);
  const namespace = namespaceOf(options.namespace, client);
  const url = await findDashboardUrl(client, namespace);
  if (!url) throw new DashboardNotFoundError(namespace);
  await openUrl(ctx, url, { print: options.print, label: "Developer Dashboard" });
}
