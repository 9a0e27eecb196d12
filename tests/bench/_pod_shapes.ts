/**
 * The objects `pod_create_bench.ts` creates, and the digest-pinning patch each gets (not a
 * benchmark itself: `main.ts` skips `_` files).
 *
 * - a small Pod: one container, a name, nothing else (a review of about 2 KB once the API server
 *   has added its defaults and the service account volume);
 * - a realistic Pod: what a Deployment's ReplicaSet creates for an ordinary service, with the
 *   labels and annotations a Helm chart and a service mesh put on it, three containers and an
 *   init container with their env, ports, resources and a mount; with the defaults and
 *   the `managedFields` the API server adds, a review of 5–10 KB;
 * - a Deployment of ten containers (ten images).
 *
 * Each shape's names start with its own letter (`p-`, `r-`, `d-`), which is all the reference
 * webhooks read to pick the patch to answer.
 *
 * @module
 */

/** A JSON patch operation. */
export interface PatchOperation {
  readonly op: "replace";
  readonly path: string;
  readonly value: string;
}

/** The images a realistic Pod runs: its init container's, then its containers'. */
export interface RealisticImages {
  readonly init: string;
  readonly containers: readonly [string, string, string];
}

/** The patch that pins the image at each of `paths` to the matching `pinned` reference. */
export function pinPatch(paths: readonly string[], pinned: readonly string[]): PatchOperation[] {
  return paths.map((path, i) => ({ op: "replace", path, value: pinned[i]! }));
}

/** A Pod of one container. */
export function smallPod(name: string, namespace: string, image: string): unknown {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: { containers: [{ name: "app", image }] },
  };
}

/** Where a realistic Pod's images are, in the order of {@linkcode RealisticImages}. */
export const REALISTIC_IMAGE_PATHS = [
  "/spec/initContainers/0/image",
  "/spec/containers/0/image",
  "/spec/containers/1/image",
  "/spec/containers/2/image",
] as const;

const sha = (seed: string) => seed.repeat(64).slice(0, 64);

function env(prefix: string, count: number): { name: string; value: string }[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}_SETTING_${i}`,
    value: `${prefix.toLowerCase()}-${i}.payments.svc:8443`,
  }));
}

function container(name: string, image: string, port: number, settings: number) {
  return {
    name,
    image,
    ports: [{ name: "http", containerPort: port }],
    env: [
      ...env(name.toUpperCase().replaceAll("-", "_"), settings),
      { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ],
    resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } },
    volumeMounts: [{ name: "config", mountPath: "/etc/checkout", readOnly: true }],
  };
}

/** A Pod as a ReplicaSet of an ordinary service creates it. */
export function realisticPod(name: string, namespace: string, images: RealisticImages): unknown {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      labels: {
        "app.kubernetes.io/name": "checkout",
        "app.kubernetes.io/instance": "checkout-prod",
        "app.kubernetes.io/version": "4.12.3",
        "app.kubernetes.io/component": "api",
        "app.kubernetes.io/part-of": "shop",
        "app.kubernetes.io/managed-by": "Helm",
        "helm.sh/chart": "checkout-4.12.3",
        "pod-template-hash": "7d9f8c6b5d",
        team: "payments",
      },
      annotations: {
        "checksum/config": sha("3f"),
        "checksum/secret": sha("a9"),
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9090",
        "prometheus.io/path": "/metrics",
        "kubectl.kubernetes.io/default-container": "checkout",
        "cluster-autoscaler.kubernetes.io/safe-to-evict": "true",
        "deployment.kubernetes.io/revision": "42",
      },
    },
    spec: {
      serviceAccountName: "default",
      terminationGracePeriodSeconds: 45,
      securityContext: { fsGroup: 65532, seccompProfile: { type: "RuntimeDefault" } },
      initContainers: [{
        name: "migrate",
        image: images.init,
        args: ["migrate", "--timeout=120s"],
        env: env("MIGRATE", 1),
      }],
      containers: [
        container("checkout", images.containers[0], 8080, 3),
        container("envoy-proxy", images.containers[1], 15000, 1),
        container("log-shipper", images.containers[2], 2020, 1),
      ],
      volumes: [{ name: "config", configMap: { name: "checkout-config" } }],
    },
  };
}

/** Where a Deployment's images are. */
export function deploymentImagePaths(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `/spec/template/spec/containers/${i}/image`);
}

/** A Deployment of one container per image. */
export function deployment(name: string, namespace: string, images: readonly string[]): unknown {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
      },
    },
  };
}
