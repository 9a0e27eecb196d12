/**
 * How a git host reaches the namespace's EventListener: Tekton Triggers serves it as Service
 * `el-tekton` (port `http-listener`); toolkit exposes it with an OpenShift Route `el-tekton`
 * (edge TLS, plain HTTP allowed) or, on Kubernetes, an Ingress (`networking.k8s.io/v1`) for the
 * host the user names. Both are written with server-side apply of the fields toolkit owns, so the
 * host OpenShift's router assigned to a Route is kept on every update (igc replaced the spec and
 * lost it), and the URL for the webhook is read from what the server answers.
 *
 * @module
 */
import {
  applyObject,
  type ApplyResult,
  INGRESSES,
  type KubeClient,
  type KubeObject,
  ROUTES,
} from "../kube/mod.ts";

/** The Service (and Route, and Ingress) of the EventListener `tekton`. */
export const LISTENER_SERVICE = "el-tekton";
/** The Service port of an EventListener. */
export const LISTENER_PORT = "http-listener";

/** How the listener is exposed. */
export interface ListenerExposure {
  /** `Route` on OpenShift, `Ingress` on Kubernetes, `none` when there is no host to use. */
  readonly kind: "Route" | "Ingress" | "none";
  /** The Route or Ingress as written. */
  readonly result?: ApplyResult;
  /** The URL a git host sends events to, when the exposure has a host. */
  readonly url?: string;
}

/** What {@link exposeListener} needs. */
export interface ExposureOptions {
  /** Whether the cluster serves OpenShift Routes. */
  readonly openshift: boolean;
  /** Kubernetes: the Ingress host (`--ingress-host`); without it an existing Ingress is kept. */
  readonly ingressHost?: string | undefined;
  /** Labels of the Route or Ingress. */
  readonly labels?: Readonly<Record<string, string>>;
}

/** The Route of the listener. */
export function listenerRoute(namespace: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: "route.openshift.io/v1",
    kind: "Route",
    metadata: { name: LISTENER_SERVICE, namespace, labels: { app: LISTENER_SERVICE, ...labels } },
    spec: {
      port: { targetPort: LISTENER_PORT },
      tls: { termination: "edge", insecureEdgeTerminationPolicy: "Allow" },
      to: { kind: "Service", name: LISTENER_SERVICE, weight: 100 },
    },
  };
}

/** The Ingress of the listener for `host`. */
export function listenerIngress(
  namespace: string,
  host: string,
  labels: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name: LISTENER_SERVICE, namespace, labels: { app: LISTENER_SERVICE, ...labels } },
    spec: {
      rules: [{
        host,
        http: {
          paths: [{
            path: "/",
            pathType: "Prefix",
            backend: { service: { name: LISTENER_SERVICE, port: { name: LISTENER_PORT } } },
          }],
        },
      }],
    },
  };
}

function routeUrl(route: KubeObject): string | undefined {
  const host = (route.spec as { host?: unknown } | undefined)?.host;
  return typeof host === "string" && host !== "" ? `https://${host}` : undefined;
}

function ingressUrl(ingress: KubeObject): string | undefined {
  const spec = ingress.spec as
    | { rules?: { host?: string }[]; tls?: { hosts?: string[] }[] }
    | undefined;
  const host = spec?.rules?.find((r) => r.host)?.host;
  if (!host) return undefined;
  const tls = spec?.tls?.some((t) => t.hosts?.includes(host));
  return `${tls ? "https" : "http"}://${host}`;
}

/** Exposes the EventListener of `namespace` and tells the URL a git host can call. */
export async function exposeListener(
  client: KubeClient,
  namespace: string,
  options: ExposureOptions,
): Promise<ListenerExposure> {
  const labels = { ...options.labels };
  if (options.openshift) {
    const result = await applyObject(client, ROUTES, listenerRoute(namespace, labels));
    const url = routeUrl(result.object);
    return { kind: "Route", result, ...(url ? { url } : {}) };
  }
  if (options.ingressHost) {
    const result = await applyObject(
      client,
      INGRESSES,
      listenerIngress(namespace, options.ingressHost, labels),
    );
    const url = ingressUrl(result.object);
    return { kind: "Ingress", result, ...(url ? { url } : {}) };
  }
  const existing = await client.read(INGRESSES, namespace, LISTENER_SERVICE);
  const url = existing && ingressUrl(existing);
  return existing ? { kind: "Ingress", ...(url ? { url } : {}) } : { kind: "none" };
}
