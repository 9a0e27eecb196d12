/**
 * `toolkit credentials`: the URLs and credentials of the tools in the tools namespace (`-n`,
 * default `tools`, or `$CLUSTER_NAMESPACE`), printed as JSON (default) or YAML (`-o yaml`,
 * `--yaml`): `{"sonarqube": {"url": …, "user": …, "password": …}, "dashboard": {"url": …}}`.
 *
 * It reads the ConfigMaps and Secrets labelled `grouping=garage-cloud-native-toolkit` (as igc
 * did) or `group=catalyst-tools` (what igc's `tool-config` wrote). Each data key `<TOOL>_<FIELD>`
 * is split at its last `_`; `URL`, `USER` (or `USERNAME`) and `PASSWORD` are kept. ConfigMaps win
 * over Secrets. The cloud-provider config and API key are left out, and the dashboard shows its
 * URL only.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { CREDENTIALS } from "./credentials_command.ts";
import { decodeBase64Text } from "../../lib/mod.ts";
import { CONFIG_MAPS, type KubeObject, SECRETS } from "../../lib/kube/mod.ts";
import { checkNamespaceName, requireNamespace } from "./common.ts";
import { formatData } from "../output.ts";

/** The label selectors whose objects hold tool credentials. */
export const CREDENTIAL_SELECTORS: readonly string[] = [
  "grouping=garage-cloud-native-toolkit",
  "group=catalyst-tools",
];

/** ConfigMaps that are not tool configuration (cloud-provider settings). */
export const EXCLUDED_CONFIG_MAPS: readonly string[] = ["ibmcloud-config", "cloud-config"];
/** Secrets that are not tool credentials (cloud API keys, the Jenkins API token). */
export const EXCLUDED_SECRETS: readonly string[] = [
  "ibmcloud-apikey",
  "cloud-access",
  "jenkins-access",
];

/** The credentials of one tool. */
export interface ToolCredentials {
  /** The tool's URL. */
  url?: string;
  /** The user name. */
  user?: string;
  /** The password or token. */
  password?: string;
}

const FIELDS: Readonly<Record<string, keyof ToolCredentials>> = {
  url: "url",
  user: "user",
  username: "user",
  password: "password",
};

function decodeBase64(value: string): string {
  try {
    return decodeBase64Text(value);
  } catch {
    return value;
  }
}

/**
 * Adds the `<TOOL>_<FIELD>` keys of `data` to `into`. A Map, and fields looked up as own
 * properties only: a key such as `__PROTO___USERNAME` or `X_CONSTRUCTOR` in a ConfigMap is a tool
 * named `__proto__` or an unknown field, never a change to `Object.prototype`.
 */
function addFields(into: Map<string, ToolCredentials>, data: Record<string, string>): void {
  for (const [key, value] of Object.entries(data)) {
    const i = key.lastIndexOf("_");
    if (i <= 0 || i === key.length - 1) continue;
    const tool = key.slice(0, i).toLowerCase();
    const name = key.slice(i + 1).toLowerCase();
    const field = Object.hasOwn(FIELDS, name) ? FIELDS[name] : undefined;
    if (!field || /api_?key/i.test(key)) continue;
    let entry = into.get(tool);
    if (entry === undefined) into.set(tool, entry = {});
    entry[field] = value;
  }
}

/**
 * The credentials object from the labelled Secrets and ConfigMaps (already filtered by label):
 * excluded names dropped, ConfigMaps over Secrets, tools in alphabetical order.
 */
export function collectCredentials(
  secrets: readonly KubeObject[],
  configMaps: readonly KubeObject[],
): Record<string, ToolCredentials> {
  const found = new Map<string, ToolCredentials>();
  for (const secret of secrets) {
    if (EXCLUDED_SECRETS.includes(secret.metadata.name)) continue;
    const data = (secret.data ?? {}) as Record<string, string>;
    addFields(
      found,
      Object.fromEntries(Object.entries(data).map(([k, v]) => [k, decodeBase64(v)])),
    );
  }
  for (const cm of configMaps) {
    if (EXCLUDED_CONFIG_MAPS.includes(cm.metadata.name)) continue;
    addFields(found, (cm.data ?? {}) as Record<string, string>);
  }
  const dashboard = found.get("dashboard");
  if (dashboard) found.set("dashboard", dashboard.url ? { url: dashboard.url } : {});
  const ordered: [string, ToolCredentials][] = [];
  for (const tool of [...found.keys()].sort()) {
    const c = found.get(tool)!;
    if (c.url === undefined && c.user === undefined && c.password === undefined) continue;
    ordered.push([tool, {
      ...(c.url !== undefined ? { url: c.url } : {}),
      ...(c.user !== undefined ? { user: c.user } : {}),
      ...(c.password !== undefined ? { password: c.password } : {}),
    }]);
  }
  // Own properties, whatever the names (fromEntries defines them; assignment of "__proto__" would not).
  return Object.fromEntries(ordered);
}

function unique(lists: readonly KubeObject[][]): KubeObject[] {
  const byName = new Map<string, KubeObject>();
  for (const list of lists) for (const o of list) byName.set(o.metadata.name, o);
  return [...byName.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/** Runs `credentials`. */
export async function run(
  options: OptionsOf<typeof CREDENTIALS>,
  ctx: CommandContext,
): Promise<void> {
  const format = options.yaml ? "yaml" : options.output;
  using client = await ctx.kube(options);
  // No declared default for -n, so that $CLUSTER_NAMESPACE can fill it in.
  const namespace = checkNamespaceName(options.namespace || "tools");
  // The first request sets up the connection; the lists then share it.
  await requireNamespace(client, namespace);
  const lists = await Promise.all([
    ...CREDENTIAL_SELECTORS.map((labelSelector) =>
      client.list(SECRETS, namespace, { labelSelector })
    ),
    ...CREDENTIAL_SELECTORS.map((labelSelector) =>
      client.list(CONFIG_MAPS, namespace, { labelSelector })
    ),
  ]);
  const n = CREDENTIAL_SELECTORS.length;
  const secrets = unique(lists.slice(0, n));
  const configMaps = unique(lists.slice(n));
  ctx.io.stdout.write(formatData(collectCredentials(secrets, configMaps), format));
}
