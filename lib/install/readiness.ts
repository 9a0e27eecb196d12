/**
 * Switching enforcement on only once the webhook can answer. The webhook configuration fails
 * closed (`failurePolicy: Fail`): created before any replica is ready, it would refuse every
 * workload in the cluster until one is. `enable` therefore applies everything else first and
 * waits until the Deployment has an available replica of its current template.
 *
 * @module
 */
import type { KubeClient, KubeObject } from "../kube/mod.ts";
import { installedType } from "./apply.ts";
import { InstallError } from "./install_error.ts";
import { WEBHOOK_NAME } from "./options.ts";
import { pollUntil, type WaitOptions } from "../poll.ts";
import { type FetchFunction, RequestTimeoutError, timedFetch } from "../fetch.ts";

/** The replicas of the webhook's Deployment, as its status reports them. */
export interface WebhookReplicas {
  /** Replicas wanted. */
  readonly desired: number;
  /** Replicas available (ready for `minReadySeconds`). */
  readonly available: number;
  /** Whether the status describes the current template (the controller has seen it). */
  readonly current: boolean;
}

interface DeploymentShape extends KubeObject {
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; availableReplicas?: number };
}

/** Reads the Deployment's replicas, or undefined when there is no Deployment. */
export async function webhookReplicas(
  client: Pick<KubeClient, "read">,
  namespace: string,
): Promise<WebhookReplicas | undefined> {
  const deployment = await client.read(installedType("Deployment"), namespace, WEBHOOK_NAME) as
    | DeploymentShape
    | undefined;
  if (!deployment) return undefined;
  const generation = Number(deployment.metadata.generation ?? 0);
  return {
    desired: deployment.spec?.replicas ?? 1,
    available: deployment.status?.availableReplicas ?? 0,
    current: (deployment.status?.observedGeneration ?? 0) >= generation,
  };
}

/** Options of {@link waitForWebhook}. */
export interface WebhookWaitOptions extends WaitOptions {
  /** Told each time the count of available replicas changes. */
  readonly onProgress?: (replicas: WebhookReplicas) => void;
}

/**
 * Waits until the webhook's Deployment has an available replica of its current template.
 *
 * @throws {InstallError} after the timeout, saying where to look.
 */
export async function waitForWebhook(
  client: Pick<KubeClient, "read">,
  namespace: string,
  options: WebhookWaitOptions = {},
): Promise<WebhookReplicas> {
  let state = "";
  return await pollUntil(
    async () => {
      const replicas = await webhookReplicas(client, namespace);
      if (replicas === undefined) {
        throw new InstallError(
          `Cannot wait for the webhook: there is no Deployment "${namespace}/${WEBHOOK_NAME}"`,
        );
      }
      if (replicas.current && replicas.available >= 1) return replicas;
      const seen = `${replicas.available}/${replicas.desired}`;
      if (seen !== state) options.onProgress?.(replicas);
      state = seen;
      return undefined;
    },
    (timeoutMs) =>
      new InstallError(
        `The webhook is not ready after ${
          Math.round(timeoutMs / 1000)
        } s (${state} replicas available), so enforcement was not switched on: see kubectl -n ${namespace} describe deployment ${WEBHOOK_NAME} and kubectl -n ${namespace} get pods`,
      ),
    options,
    { timeoutMs: 180_000, pollMs: 1000 },
  );
}

/** What a probe of `--webhook-url` found. */
export type WebhookUrlProbe =
  /** The URL answered over TLS with a certificate the CA vouches for. */
  | { readonly ok: true }
  /** It did not: why, in the TLS or network library's words. */
  | { readonly ok: false; readonly why: string; readonly certificate: boolean };

/**
 * Probes `url` as the API server would call it: over TLS, trusting only `caPem` (the
 * configuration's `caBundle`), the host name checked against the certificate, presenting
 * `clientCertificate` when the webhook requires the API server's (`client_auth.ts`). Any HTTP
 * answer means the certificate is right; a refused connection, a certificate the CA did not sign,
 * or no answer within `timeoutMs` is not. Without a client certificate to present, a webhook that
 * asks for one (the `CertificateRequired` alert, sent once the client has checked the server's
 * certificate) counts as right.
 */
export async function probeWebhookUrl(
  url: string,
  caPem: string,
  timeoutMs: number,
  clientCertificate?: { readonly certPem: string; readonly keyPem: string },
  fetcher: FetchFunction = (input, init) => fetch(input, init),
): Promise<WebhookUrlProbe> {
  const client = Deno.createHttpClient({
    caCerts: [caPem],
    ...(clientCertificate
      ? { cert: clientCertificate.certPem, key: clientCertificate.keyPem }
      : {}),
  });
  try {
    const response = await timedFetch(fetcher, timeoutMs, { bound: "request" })(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
      client,
    });
    await response.body?.cancel();
    return { ok: true };
  } catch (error) {
    if (error instanceof RequestTimeoutError) {
      return { ok: false, why: `no answer within ${timeoutMs / 1000} s`, certificate: false };
    }
    const detail = error instanceof Error
      ? (error.cause instanceof Error ? error.cause.message : error.message)
      : String(error);
    if (clientCertificate === undefined && /CertificateRequired/.test(detail)) return { ok: true };
    return describeProbeFailure(detail, url);
  } finally {
    client.close();
  }
}

/** A failed probe in words a user acts on (Deno's messages are rustls' and hyper's). */
function describeProbeFailure(
  message: string,
  url: string,
): Extract<WebhookUrlProbe, { ok: false }> {
  const peer = /invalid peer certificate: (\w+)/.exec(message);
  if (peer) {
    const host = new URL(url).hostname;
    const why = peer[1] === "UnknownIssuer"
      ? "it serves a certificate the trusted CA did not sign"
      : peer[1] === "NotValidForName"
      ? `it serves a certificate that is not valid for ${host}`
      : peer[1] === "Expired"
      ? "it serves an expired certificate"
      : "its certificate is refused";
    return { ok: false, why: `${why} (${peer[1]})`, certificate: true };
  }
  if (/Connection refused/i.test(message)) {
    return { ok: false, why: "nothing listens there (connection refused)", certificate: false };
  }
  const detail = message.replace(/^error sending request for url \([^)]*\): /, "");
  return { ok: false, why: detail, certificate: /certificate|tls|handshake/i.test(detail) };
}

/** Options of {@link waitForWebhookUrl}. */
export interface WebhookUrlWaitOptions extends WaitOptions {
  /** How long one probe may take, in ms. */
  readonly requestTimeoutMs: number;
  /** Told of each failed probe whose reason differs from the last one. */
  readonly onProgress?: (probe: Extract<WebhookUrlProbe, { ok: false }>) => void;
  /** The API server's client certificate, presented when the webhook requires it. */
  readonly clientCertificate?: { readonly certPem: string; readonly keyPem: string };
  /** The fetch of the probes (default: the global one). */
  readonly fetch?: FetchFunction;
}

/**
 * Waits until `url` answers with a certificate `caPem` vouches for (a webhook that reads the
 * certificate files reloads them within seconds; a restarted one serves them at once).
 *
 * @throws {InstallError} after the timeout, saying what the URL answered; `advice` follows.
 */
export async function waitForWebhookUrl(
  url: string,
  caPem: string,
  advice: string,
  options: WebhookUrlWaitOptions,
): Promise<void> {
  let last: Extract<WebhookUrlProbe, { ok: false }> | undefined;
  await pollUntil(
    async () => {
      const probe = await probeWebhookUrl(
        url,
        caPem,
        options.requestTimeoutMs,
        options.clientCertificate,
        options.fetch,
      );
      if (probe.ok) return true;
      if (probe.why !== last?.why) options.onProgress?.(probe);
      last = probe;
      return undefined;
    },
    () =>
      new InstallError(
        `${url} does not answer with the certificate enforcement would trust (${
          last?.why ?? "no answer"
        }), so enforcement was not switched on: ${advice}`,
      ),
    options,
    { timeoutMs: 180_000, pollMs: 1000 },
  );
}
