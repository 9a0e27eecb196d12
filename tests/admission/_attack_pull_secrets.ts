/**
 * Attack 6 of issue #33 on the real webhook process: a Pod author names many large image pull
 * Secrets. The namespace holds 100 Secrets of 1 MB each (`kubernetes.io/dockerconfigjson`, as
 * large as the API server stores); the webhook, started with a kubeconfig of the real
 * kube-apiserver, reads pull Secrets from it. Reviews straight to the webhook (as the API server
 * would send them): one Pod naming all 100, then three such Pods at once, then three Pods naming
 * 16 (the most read per review) at once. Every review must be denied naming the bound, and the
 * webhook's peak memory stay under the chart's limit.
 *
 * @module
 */
import { connectCluster, type KubeClient } from "../../lib/kube/mod.ts";
import { type AttackFigures, measureAttack } from "./_attack.ts";
import { type AdmitAnswer, postReview } from "./_hostile.ts";
import { RELEASE_RUNTIME_FLAGS, type TestWebhook } from "./_webhook.ts";
import { startWorld, type World } from "./_world.ts";

/** The tenant's namespace. */
const NAMESPACE = "tenant";

/** How many Secrets, and how large (bytes of `.dockerconfigjson` before base64). */
const SECRETS = 100;
const SECRET_BYTES = 1_000_000;

/** What the attack reports besides the figures: every answer, for the test to assert. */
export interface PullSecretsAttack {
  readonly figures: AttackFigures;
  /** The answers to the Pods naming all 100 Secrets (one, then three at once). */
  readonly hundred: readonly AdmitAnswer[];
  /** The answers to the three Pods naming 16 Secrets each. */
  readonly sixteen: readonly AdmitAnswer[];
}

/** A valid `.dockerconfigjson` of `bytes` bytes. */
function dockerConfig(bytes: number, seed: number): string {
  const head = `{"auths":{"registry-${seed}.example":{"auth":"dXNlcjpwYXNz"}},"pad":"`;
  return `${head}${"x".repeat(bytes - head.length - 2)}"}`;
}

async function createSecrets(client: KubeClient): Promise<void> {
  const names = Array.from({ length: SECRETS }, (_, i) => i);
  // A few at a time: each request carries 1.33 MB of base64.
  for (let start = 0; start < names.length; start += 4) {
    await Promise.all(
      names.slice(start, start + 4).map((i) =>
        client.request("POST", `/api/v1/namespaces/${NAMESPACE}/secrets`, {
          body: {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: `pull-${i}`, namespace: NAMESPACE },
            type: "kubernetes.io/dockerconfigjson",
            data: { ".dockerconfigjson": btoa(dockerConfig(SECRET_BYTES, i)) },
          },
        })
      ),
    );
  }
}

/** The AdmissionReview of a Pod in the tenant's namespace naming `secrets` pull Secrets. */
function reviewBody(uid: string, secrets: number): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      name: uid,
      namespace: NAMESPACE,
      operation: "CREATE",
      userInfo: { username: "tenant" },
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: uid, namespace: NAMESPACE },
        spec: {
          containers: [{ name: "app", image: "127.0.0.1:9/team/app:1" }],
          imagePullSecrets: Array.from({ length: secrets }, (_, i) => ({ name: `pull-${i}` })),
        },
      },
      dryRun: false,
    },
  });
}

/** The cluster and webhook the attack runs on (started by {@linkcode pullSecretsAttack}). */
async function prepare(world: World): Promise<void> {
  await world.namespaces(NAMESPACE);
  // Every image must be pulled by digest from its registry: the pull Secrets are read.
  await world.clusterPolicy([{
    name: "*",
    policy: { simple: { requirements: [{ type: "insecureAcceptAnything" }] } },
  }]);
  using client = await connectCluster({ kubeconfig: world.cluster.kubeconfigPath, env: {} });
  await createSecrets(client);
}

/**
 * Runs the attack on a cluster and webhook of its own and returns what it measured; everything
 * is stopped, even when it fails.
 */
export async function pullSecretsAttack(): Promise<PullSecretsAttack> {
  await using world = await startWorld({ images: false });
  await prepare(world);
  // Not registered with the API server: reviews are posted to it directly.
  const webhook: TestWebhook = await world.startWebhook({ runtimeFlags: RELEASE_RUNTIME_FLAGS });
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  try {
    const attack = (async () => {
      const one = await postReview(webhook, client, reviewBody("hundred-0", SECRETS));
      const three = await Promise.all(
        [1, 2, 3].map((i) => postReview(webhook, client, reviewBody(`hundred-${i}`, SECRETS))),
      );
      const sixteen = await Promise.all(
        [0, 1, 2].map((i) => postReview(webhook, client, reviewBody(`sixteen-${i}`, 16))),
      );
      return { hundred: [one, ...three], sixteen };
    })();
    const { result, figures } = await measureAttack(
      `a Pod naming ${SECRETS} pull Secrets of 1 MB (then 3 at once; 3 naming 16)`,
      webhook,
      attack,
    );
    const denial = result.hundred[0]?.message ?? `status ${result.hundred[0]?.status}`;
    return { ...result, figures: { ...figures, note: `denied with: ${denial}` } };
  } finally {
    client.close();
  }
}
