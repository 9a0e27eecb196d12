/**
 * `toolkit endpoints` (aliases `ingress`, `endpoint`, `ingresses`): the URLs of the Ingresses
 * (`networking.k8s.io/v1`, which igc never read) and OpenShift Routes of a namespace (`-n`,
 * else the context's, else `default`).
 *
 * On a terminal it shows a menu: picking an endpoint prints it and opens it in the browser,
 * `Exit` prints the whole list. Otherwise (or with `--print`) it prints the list, one
 * `name - url` per line; `-o json` and `-o yaml` print `[{name, kind, url}]`.
 *
 * @module
 */
import type { CommandContext, OptionsOf } from "../command.ts";
import type { ENDPOINTS } from "../commands.ts";
import type { CliIO } from "../io.ts";
import { INGRESSES, type KubeObject, ROUTES } from "../../lib/kube/mod.ts";
import { connect, namespaceOf, requireNamespace } from "./common.ts";
import { formatData } from "../output.ts";
import { openUrl } from "./browser.ts";
import { askChoice } from "./prompt.ts";

/** One URL of an app. */
export interface Endpoint {
  /** The app's name: label `app.kubernetes.io/name`, else `app`, else the object's name. */
  readonly name: string;
  /** `Ingress` or `Route`. */
  readonly kind: "Ingress" | "Route";
  /** The URL. */
  readonly url: string;
}

function displayName(object: KubeObject): string {
  const labels = object.metadata.labels ?? {};
  return labels["app.kubernetes.io/name"] ?? labels.app ?? object.metadata.name;
}

function simplePath(path: unknown): string {
  return typeof path === "string" && /^\/[\w\-./~%]*$/.test(path) && path !== "/"
    ? path.replace(/\/+$/, "")
    : "";
}

interface IngressSpec {
  tls?: Array<{ hosts?: string[] }>;
  rules?: Array<{ host?: string; http?: { paths?: Array<{ path?: string }> } }>;
}

/** The URLs of an Ingress: one per rule host (https when the host is in `tls`), else its address. */
export function ingressUrls(ingress: KubeObject): string[] {
  const spec = (ingress.spec ?? {}) as IngressSpec;
  const tlsHosts = new Set((spec.tls ?? []).flatMap((t) => t.hosts ?? []));
  const urls: string[] = [];
  for (const rule of spec.rules ?? []) {
    if (!rule.host) continue;
    const scheme = tlsHosts.has(rule.host) ? "https" : "http";
    urls.push(`${scheme}://${rule.host}${simplePath(rule.http?.paths?.[0]?.path)}`);
  }
  if (urls.length === 0) {
    const lb =
      (ingress.status as { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> } })
        ?.loadBalancer?.ingress?.[0];
    const address = lb?.hostname ?? lb?.ip;
    if (address) urls.push(`${(spec.tls ?? []).length > 0 ? "https" : "http"}://${address}`);
  }
  return [...new Set(urls)];
}

/** The URL of a Route: https when it has `tls`. */
export function routeUrl(route: KubeObject): string | undefined {
  const spec = (route.spec ?? {}) as { host?: string; path?: string; tls?: unknown };
  if (!spec.host) return undefined;
  return `${spec.tls ? "https" : "http"}://${spec.host}${simplePath(spec.path)}`;
}

/** The endpoints of Ingresses and Routes, sorted by name. */
export function collectEndpoints(
  ingresses: readonly KubeObject[],
  routes: readonly KubeObject[],
): Endpoint[] {
  const endpoints: Endpoint[] = [];
  for (const ingress of ingresses) {
    for (const url of ingressUrls(ingress)) {
      endpoints.push({ name: displayName(ingress), kind: "Ingress", url });
    }
  }
  for (const route of routes) {
    const url = routeUrl(route);
    if (url) endpoints.push({ name: displayName(route), kind: "Route", url });
  }
  return endpoints.sort((a, b) => a.name.localeCompare(b.name) || a.url.localeCompare(b.url));
}

function printList(io: CliIO, endpoints: readonly Endpoint[]): void {
  for (const e of endpoints) io.stdout.write(`  ${e.name} - ${e.url}\n`);
}

/** Runs `endpoints`. */
export async function run(
  options: OptionsOf<typeof ENDPOINTS>,
  ctx: CommandContext,
): Promise<void> {
  const { io } = ctx;
  using client = await connect(options, ctx);
  const namespace = namespaceOf(options.namespace, client);
  await requireNamespace(client, namespace);
  const [ingresses, routes] = await Promise.all([
    client.list(INGRESSES, namespace),
    client.serves(ROUTES).then((yes) => (yes ? client.list(ROUTES, namespace) : [])),
  ]);
  const endpoints = collectEndpoints(ingresses, routes);
  const output = options.output;
  if (output === "json" || output === "yaml") {
    io.stdout.write(formatData(endpoints, output));
    return;
  }
  if (endpoints.length === 0) {
    if (!options.quiet) io.stderr.write(`No endpoints found in namespace '${namespace}'\n`);
    return;
  }
  if (!io.interactive || options.print) {
    if (!options.quiet) io.stderr.write(`Endpoints in namespace '${namespace}':\n`);
    printList(io, endpoints);
    return;
  }
  const choice = await askChoice(
    `Endpoints in the '${namespace}' namespace. Select one to open it in the browser, or Exit`,
    [
      { value: "exit", label: "Exit" },
      ...endpoints.map((e, i) => ({ value: String(i), label: `${e.name} - ${e.url}` })),
    ],
  );
  if (choice === "exit") {
    printList(io, endpoints);
    return;
  }
  const picked = endpoints[Number(choice)]!;
  io.stdout.write(`${picked.url}\n`);
  await openUrl(io, picked.url, { label: picked.name, printed: true });
}
