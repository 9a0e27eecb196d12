/**
 * Hostile AdmissionReviews sent straight to a running webhook over HTTPS, shared by the
 * hostile-load end-to-end test and the measurement script `tests/bench/hostile_load.ts`: a
 * signed-image policy over a registry, Pods with many distinct images or huge invalid image
 * strings, `/healthz` probed while a review is answered, and the process's memory.
 *
 * @module
 */
import type { TestRegistry } from "../env/mod.ts";
import type { TestWebhook } from "./_webhook.ts";

/** A `--policies` file: images of `registry` must be signed with `armoredKey`. */
export function signedPolicyFile(registry: Pick<TestRegistry, "host">, armoredKey: string): string {
  return `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "${registry.host}/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
${signerSecretDocument(armoredKey)}`;
}

/** A YAML document (after `---`) of the key Secret `toolkit-system/signer` holding `armoredKey`. */
export function signerSecretDocument(armoredKey: string): string {
  const key = armoredKey.trimEnd().split("\n").map((l) => `    ${l}`).join("\n");
  return `---
apiVersion: v1
kind: Secret
metadata: { name: signer, namespace: toolkit-system }
stringData:
  key: |
${key}
`;
}

/** The body of an AdmissionReview creating a Pod with one container per image. */
export function podReviewBody(uid: string, images: readonly string[]): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      name: "hostile",
      namespace: "dev",
      operation: "CREATE",
      userInfo: { username: "attacker" },
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "hostile", namespace: "dev" },
        spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
      },
      dryRun: false,
    },
  });
}

/** `count` distinct tags of one repository of `registry` (none of them pushed). */
export function distinctTags(registry: Pick<TestRegistry, "host">, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${registry.host}/hostile/app:t${i}`);
}

/** An invalid image string of `bytes` bytes, distinct per `seed` (upper case is not allowed). */
export function hugeInvalidImage(seed: number, bytes: number): string {
  const head = `registry.example/${seed}/`;
  return head + "A".repeat(bytes - head.length);
}

/** The answer of `POST /admit`. */
export interface AdmitAnswer {
  readonly status: number;
  readonly uid?: string;
  readonly allowed?: boolean;
  readonly message?: string;
  /** When it arrived, `performance.now()`. */
  readonly at: number;
}

/** Posts a review body to the webhook and reads the answer. */
export async function postReview(
  webhook: Pick<TestWebhook, "url">,
  client: Deno.HttpClient,
  body: string,
): Promise<AdmitAnswer> {
  const response = await fetch(webhook.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    client,
  });
  const text = await response.text();
  const at = performance.now();
  if (response.status !== 200) return { status: response.status, message: text, at };
  const review = JSON.parse(text) as {
    response: { uid: string; allowed: boolean; status?: { message?: string } };
  };
  return {
    status: 200,
    uid: review.response.uid,
    allowed: review.response.allowed,
    ...(review.response.status?.message ? { message: review.response.status.message } : {}),
    at,
  };
}

/** One `/healthz` answer while something else ran. */
export interface ProbeAnswer {
  readonly ok: boolean;
  /** When it was sent and when it was answered, `performance.now()`. */
  readonly sent: number;
  readonly answered: number;
}

/**
 * Probes `GET /healthz` one request after another (on its own connection) until `done`
 * settles; returns every answer.
 */
export async function probeHealthWhile(
  webhook: Pick<TestWebhook, "port" | "ca">,
  done: Promise<unknown>,
): Promise<ProbeAnswer[]> {
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  let finished = false;
  const settled = done.then(() => (finished = true), () => (finished = true));
  const answers: ProbeAnswer[] = [];
  try {
    while (!finished) {
      const sent = performance.now();
      const response = await fetch(`https://127.0.0.1:${webhook.port}/healthz`, { client });
      const ok = (await response.text()) === "ok\n";
      answers.push({ ok, sent, answered: performance.now() });
      await Promise.race([settled, new Promise((r) => setTimeout(r, 50))]);
    }
  } finally {
    client.close();
  }
  return answers;
}

/** The resident memory of process `pid` now and at its peak, in bytes (Linux). */
export function processMemory(pid: number): { rss: number; peak: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}
