/**
 * `toolkit console`: opens the cluster's web console in the browser, or prints its URL
 * (`--print`, or when there is no browser).
 *
 * - OpenShift: `consoleURL` of ConfigMap `openshift-config-managed/console-public` (what
 *   `oc whoami --show-console` reads), else the `console` Route of `openshift-console`.
 * - IBM Cloud Kubernetes Service: the cluster's dashboard, from `REGION` and `CLUSTER_ID` of
 *   ConfigMap `tools/ibmcloud-config` (or the id in `kube-system/cluster-info`), with the URL
 *   igc built.
 * - Any other Kubernetes: the Kubernetes Dashboard through the API server proxy, when its
 *   Service is installed.
 *
 * igc needed `oc` or the `ibmcloud` CLI for this and worked on IKS only; this reads the cluster.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { CONSOLE } from "./console_command.ts";
import { findConsoleUrl } from "./console_url.ts";
import { openUrl } from "./browser.ts";

/** Runs `console`. */
export async function run(
  options: OptionsOf<typeof CONSOLE>,
  ctx: CommandContext,
): Promise<void> {
  using client = await ctx.kube(options);
  const url = await findConsoleUrl(client);
  await openUrl(ctx, url, { print: options.print, label: "console" });
}
