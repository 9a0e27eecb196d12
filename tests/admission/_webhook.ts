/**
 * Helpers of the admission end-to-end tests: the webhook started from `webhook/main.ts` as a
 * real process on a free port with a certificate from its own CA, and registered with the API
 * server by a MutatingWebhookConfiguration (URL and caBundle), as a cluster administrator would.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type CertFiles,
  freePort,
  issueCert,
  kubectlOk,
  LOOPBACK_SANS,
  makeCA,
  type ManagedProcess,
  startProcess,
  type TestCluster,
  waitFor,
  webhookReady,
} from "../env/mod.ts";

export { kubectlOk };

const ENTRY = new URL("../../webhook/main.ts", import.meta.url).pathname;

/** The webhook's name in the MutatingWebhookConfiguration. */
export const WEBHOOK_NAME = "images.toolkit.dev";

/** The webhook's own namespace in the tests. */
export const CONTROLLER_NAMESPACE = "toolkit-system";

/** A running webhook process. */
export interface TestWebhook extends AsyncDisposable {
  readonly process: ManagedProcess;
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** The CA that signed the serving certificate now in use. */
  ca: Trust;
  /**
   * Writes a new certificate and key into the serving files and returns the CA that signed it: a
   * new CA, or with `keepCa` the one in use (a renewal, as cert-manager does it).
   */
  rotateCertificate(options?: { keepCa?: boolean }): Promise<CertFiles>;
  /** The log lines (JSON) so far. */
  logLines(): Promise<Record<string, unknown>[]>;
  /** Everything the process wrote so far, stdout and stderr (JSON lines or not). */
  logText(): Promise<string>;
  /** Whether /readyz answers ok, trusting `ca`. */
  isReady(ca?: Trust): Promise<boolean>;
  /**
   * Sends the webhook an AdmissionReview (a dry run) of the Pod `name` of `image` in `namespace`
   * directly, not through the API server, trusting `trust` (default `ca`); resolves with its
   * answer, throws when there is none.
   */
  reviewPod(
    name: string,
    namespace: string,
    image: string,
    trust?: readonly Trust[],
  ): Promise<ReviewAnswer>;
  stop(): Promise<void>;
}

/** The webhook's answer to one AdmissionReview. */
export interface ReviewAnswer {
  readonly allowed: boolean;
  /** The denial message ("" when admitted). */
  readonly message: string;
}

/** The webhook's runtime flags in the release (tools/compile.ts, the Dockerfile). */
export const RELEASE_RUNTIME_FLAGS: readonly string[] = ["--v8-flags=--max-semi-space-size=4"];

/** How {@linkcode startWebhook} starts the webhook. */
export interface StartOptions {
  /** Wait until `/readyz` answers ok (default true); else return once the process runs. */
  readonly waitUntilReady?: boolean;
  /** Flags of the Deno runtime before the entry point (`--v8-flags=…`, as the release compiles). */
  readonly runtimeFlags?: readonly string[];
}

/** A CA the client trusts. */
export type Trust = Pick<CertFiles, "certPem">;

/**
 * Serving files made elsewhere (by `toolkit image-security enable --tls-dir`): the webhook reads
 * and reloads them where they are.
 */
export interface ServingFiles {
  /** The port to listen on. */
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  /** The CA that signed the certificate. */
  readonly caPem: string;
}

/**
 * Starts the webhook with `args` (kubeconfig, registries, …) added to the serving flags, with a
 * certificate from its own CA on a free port, or with `serving`.
 */
export async function startWebhook(
  args: string[],
  serving?: ServingFiles,
  options: StartOptions = {},
): Promise<TestWebhook> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-webhook-e2e-" });
  let ca: Trust;
  let signingCa: CertFiles | undefined;
  const certFile = serving?.certFile ?? `${dir}/tls.crt`;
  const keyFile = serving?.keyFile ?? `${dir}/tls.key`;
  if (serving) {
    ca = { certPem: serving.caPem };
  } else {
    const own = await makeCA(dir, "webhook-ca-1");
    const cert = await issueCert(dir, own, {
      name: "serving-1",
      cn: "webhook",
      sans: LOOPBACK_SANS,
    });
    ca = own;
    signingCa = own;
    await Deno.writeTextFile(certFile, cert.certPem);
    await Deno.writeTextFile(keyFile, cert.keyPem);
  }
  const port = serving?.port ?? freePort();
  const logFile = `${dir}/webhook.log`;
  // The webhook writes its log straight into the file (through a shell that execs it, so the
  // process id is the webhook's): the tests read the log while the webhook runs.
  const command = [
    Deno.execPath(),
    "run",
    "--allow-net",
    "--allow-read",
    "--allow-env",
    "--allow-sys",
    "--unstable-net",
    ...(options.runtimeFlags ?? []),
    ENTRY,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--tls-cert-file",
    certFile,
    "--tls-key-file",
    keyFile,
    "--tls-reload-interval",
    "300ms",
    ...args,
  ];
  const quoted = command.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const process = await startProcess("/bin/sh", ["-c", `exec ${quoted} >>'${logFile}' 2>&1`], {
    logFile: `${dir}/harness.log`,
  });
  let rotation = 1;
  const isReady = (trust: Trust = ca) => webhookReady(port, trust.certPem);
  const stop = async () => {
    await process.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  const webhook: TestWebhook = {
    process,
    port,
    url: `https://127.0.0.1:${port}/admit`,
    dir,
    ca,
    async rotateCertificate(options = {}) {
      rotation++;
      if (options.keepCa && signingCa === undefined) {
        throw new Error("the serving files were made elsewhere: their CA cannot sign");
      }
      const next = options.keepCa && signingCa
        ? signingCa
        : await makeCA(dir, `webhook-ca-${rotation}`);
      const cert = await issueCert(dir, next, {
        name: `serving-${rotation}`,
        cn: "webhook",
        sans: LOOPBACK_SANS,
      });
      // Key first, then certificate: a reader may briefly see a mismatched pair.
      await Deno.writeTextFile(keyFile, cert.keyPem);
      await Deno.writeTextFile(certFile, cert.certPem);
      ca = next;
      signingCa = next;
      webhook.ca = next;
      return next;
    },
    logText: () => Deno.readTextFile(logFile).catch(() => ""),
    async logLines() {
      const text = await webhook.logText();
      return text.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    },
    isReady,
    async reviewPod(name, namespace, image, trust = [ca]) {
      const client = Deno.createHttpClient({ caCerts: trust.map((t) => t.certPem) });
      try {
        const response = await fetch(`https://127.0.0.1:${port}/admit`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(podReview(name, namespace, image)),
          client,
        });
        const body = await response.json() as {
          response?: { allowed?: boolean; status?: { message?: string } };
        };
        if (!response.ok || body.response === undefined) {
          throw new Error(`the webhook answered ${response.status}: ${JSON.stringify(body)}`);
        }
        return {
          allowed: body.response.allowed === true,
          message: body.response.status?.message ?? "",
        };
      } finally {
        client.close();
      }
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
  if (options.waitUntilReady === false) return webhook;
  try {
    await waitFor("the webhook", () => isReady(), { process, timeoutMs: 60_000 });
  } catch (error) {
    await stop();
    throw error;
  }
  return webhook;
}

/** The MutatingWebhookConfiguration for a webhook at `url` whose certificate `ca` signed. */
export function webhookConfiguration(url: string, ca: Trust): string {
  return JSON.stringify({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: "toolkit-image-security" },
    webhooks: [{
      name: WEBHOOK_NAME,
      admissionReviewVersions: ["v1"],
      sideEffects: "NoneOnDryRun",
      failurePolicy: "Fail",
      timeoutSeconds: 10,
      reinvocationPolicy: "IfNeeded",
      clientConfig: { url, caBundle: btoa(ca.certPem) },
      namespaceSelector: {
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [CONTROLLER_NAMESPACE] },
          { key: "toolkit.dev/image-security", operator: "NotIn", values: ["exempt"] },
        ],
      },
      rules: [
        {
          operations: ["CREATE", "UPDATE"],
          apiGroups: [""],
          apiVersions: ["v1"],
          resources: ["pods", "pods/ephemeralcontainers", "replicationcontrollers"],
        },
        {
          operations: ["CREATE", "UPDATE"],
          apiGroups: ["apps"],
          apiVersions: ["v1"],
          resources: ["deployments", "replicasets", "statefulsets", "daemonsets"],
        },
        {
          operations: ["CREATE", "UPDATE"],
          apiGroups: ["batch"],
          apiVersions: ["v1"],
          resources: ["jobs", "cronjobs"],
        },
      ],
    }],
  });
}

/** Creates namespaces with their `default` ServiceAccount (there may be no controller-manager). */
export async function createNamespaces(cluster: TestCluster, names: string[]): Promise<void> {
  for (const name of names) {
    await kubectlOk(cluster, ["create", "namespace", name]);
    const sa = await cluster.kubectl(["create", "serviceaccount", "default", "-n", name]);
    if (sa.code !== 0 && !/AlreadyExists|already exists/.test(sa.stderr)) {
      throw new Error(sa.stderr);
    }
  }
}

/**
 * The images of a pod spec: containers (`app`, `app1`, …), init containers (`init0`, …) and image
 * volumes (`data`, `data1`, …, `volumes[].image.reference`).
 */
export interface PodImages {
  containers?: string[];
  init?: string[];
  volumes?: string[];
}

/** A pod spec naming `images`. */
function podSpec(images: PodImages, pullSecrets?: string[]): Record<string, unknown> {
  return {
    ...(images.init
      ? { initContainers: images.init.map((image, i) => ({ name: `init${i}`, image })) }
      : {}),
    containers: (images.containers ?? []).map((image, i) => ({
      name: i === 0 ? "app" : `app${i}`,
      image,
    })),
    ...(images.volumes
      ? {
        volumes: images.volumes.map((reference, i) => ({
          name: i === 0 ? "data" : `data${i}`,
          image: { reference, pullPolicy: "IfNotPresent" },
        })),
      }
      : {}),
    ...(pullSecrets ? { imagePullSecrets: pullSecrets.map((n) => ({ name: n })) } : {}),
  };
}

/** A Pod manifest. */
export function podManifest(
  name: string,
  namespace: string,
  images: PodImages,
  extra: { pullSecrets?: string[]; ownerReferences?: unknown[] } = {},
): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      ...(extra.ownerReferences ? { ownerReferences: extra.ownerReferences } : {}),
    },
    spec: podSpec(images, extra.pullSecrets),
  });
}

/**
 * Creates the Pod `name` of `image` in `namespace` with a server-side dry run: what admission
 * answers, nothing stored.
 */
export function dryRunPod(
  cluster: Pick<TestCluster, "kubectl">,
  name: string,
  namespace: string,
  image: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return cluster.kubectl(["create", "--dry-run=server", "-f", "-"], {
    stdin: podManifest(name, namespace, { containers: [image] }),
  });
}

/**
 * Creates the Pod `name` of `image` in `namespace` and asserts that admission let it in with its
 * image pinned to `digest` (the image's repository, `@digest`).
 */
export async function assertAdmittedPinned(
  cluster: Pick<TestCluster, "kubectl">,
  name: string,
  namespace: string,
  image: string,
  digest: string,
): Promise<void> {
  const r = await cluster.kubectl(["create", "-f", "-"], {
    stdin: podManifest(name, namespace, { containers: [image] }),
  });
  assert.equal(r.code, 0, r.stderr);
  const pinned = await kubectlOk(cluster, [
    "get",
    "pod",
    name,
    "-n",
    namespace,
    "-o",
    "jsonpath={.spec.containers[0].image}",
  ]);
  assert.equal(pinned, `${image.slice(0, image.lastIndexOf(":"))}@${digest}`);
}

/** Asserts that admission denies the Pod `name` of `image` in `namespace` (a dry run) with `message`. */
export async function assertDenied(
  cluster: Pick<TestCluster, "kubectl">,
  name: string,
  namespace: string,
  image: string,
  message: RegExp,
): Promise<void> {
  const r = await dryRunPod(cluster, name, namespace, image);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, message);
}

/** An AdmissionReview (a dry run) of creating the Pod `name` of `image` in `namespace`. */
export function podReview(name: string, namespace: string, image: string): unknown {
  const pod = { resource: "pods", group: "", version: "v1" };
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: crypto.randomUUID(),
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: pod,
      requestKind: { group: "", version: "v1", kind: "Pod" },
      requestResource: pod,
      name,
      namespace,
      operation: "CREATE",
      userInfo: { username: "toolkit-e2e" },
      object: JSON.parse(podManifest(name, namespace, { containers: [image] })),
      dryRun: true,
    },
  };
}

/** A Deployment manifest of one container `app` running `image`, or of the pod spec `images`. */
export function deploymentManifest(
  name: string,
  namespace: string,
  image: string | PodImages,
  replicas = 1,
): string {
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: podSpec(typeof image === "string" ? { containers: [image] } : image),
      },
    },
  });
}

/** A Secret holding armoured public keys under `key`, as Portieris expects. */
export function keySecretManifest(name: string, namespace: string, armored: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace },
    stringData: { key: armored },
  });
}

/** Polls `check` until it is true (policy and configuration changes reach watchers in seconds). */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  await waitFor(what, check, { timeoutMs });
}
