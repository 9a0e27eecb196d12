/**
 * The URLs of the apps of a namespace, read from their Ingresses (`networking.k8s.io/v1`) and
 * OpenShift Routes: what `endpoints` lists, and where `dashboard` and `console` find the URL of a
 * Route or Ingress.
 *
 * @module
 */
import type { KubeObject } from "../../lib/kube/mod.ts";

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
