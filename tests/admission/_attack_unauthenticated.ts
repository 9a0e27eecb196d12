/**
 * The webhook with `--client-ca` (issue #33, "Who may call"), and the attack it answers: clients
 * without a certificate from the client CA, each trying to send an 8 MiB AdmissionReview. They
 * are refused at the TLS handshake, so no byte of theirs reaches the HTTP reader and none is
 * answered; the figures (`AttackFigures`) are the ones `deno task bench` prints, `/healthz` and
 * `/metrics` read on the probe listener (`--probe-port`), which asks for no certificate.
 *
 * The client CA and the API server's certificate are made by `lib/install` (what
 * `toolkit image-security enable --client-auth` installs), the serving certificate by openssl.
 *
 * @module
 */
import {
  freePort,
  issueCert,
  LOOPBACK_SANS,
  makeCA,
  type ManagedProcess,
  waitFor,
  webhookReady,
} from "../env/mod.ts";
import {
  type ClientCa,
  type ClientCertificate,
  generateClientCa,
  issueClientCertificate,
} from "../../lib/install/mod.ts";
import { type AttackFigures, CHART_MEMORY_LIMIT, measureAttack } from "./_attack.ts";
import type { TestWebhook, Trust } from "./_webhook.ts";
import { startWorld, type World, type WorldWebhookOptions } from "./_world.ts";

export { CHART_MEMORY_LIMIT };

/** A webhook that requires client certificates, with what its clients need. */
export interface AuthenticatedWebhook extends AsyncDisposable {
  readonly webhook: TestWebhook;
  /** The probe listener's port (`/healthz`, `/readyz`, `/metrics`; no client certificate). */
  readonly probePort: number;
  /** The CA of the serving certificate. */
  readonly serving: Trust;
  /** The client CA's certificate file (the webhook's `--client-ca`). */
  readonly clientCaFile: string;
  /** A certificate from the client CA (what kube-apiserver presents). */
  readonly apiServer: ClientCertificate;
  /** A client certificate from another CA. */
  readonly stranger: ClientCertificate;
  /** The directory of these files. */
  readonly dir: string;
}

/**
 * Starts the webhook of `world` (as `webhookOptions` say) with `--client-ca` and `--probe-port`, on
 * `port` (default: a free one), and waits until the probe listener says it is ready; not
 * registered with the API server.
 */
export async function startAuthenticatedWebhook(
  world: World,
  webhookOptions: Omit<WorldWebhookOptions, "probe" | "serving" | "waitUntilReady">,
  options: {
    readonly port?: number;
    readonly dir?: string;
    /** The client CA (default: a new one). */
    readonly clientCa?: Required<ClientCa>;
  } = {},
): Promise<AuthenticatedWebhook> {
  const dir = options.dir ?? await Deno.makeTempDir({ prefix: "toolkit-client-ca-" });
  const ownDir = options.dir === undefined;
  const servingCa = await makeCA(dir, "serving-ca");
  const pair = await issueCert(dir, servingCa, {
    name: "serving",
    cn: "webhook",
    sans: LOOPBACK_SANS,
  });
  const clientCa = options.clientCa ?? await generateClientCa();
  const clientCaFile = `${dir}/client-ca.crt`;
  await Deno.writeTextFile(clientCaFile, clientCa.caCertPem);
  const apiServer = await issueClientCertificate(clientCa);
  const stranger = await issueClientCertificate(await generateClientCa());
  const port = options.port ?? freePort();
  const probePort = freePort();
  const webhook = await world.startWebhook({
    ...webhookOptions,
    args: [
      ...webhookOptions.args ?? [],
      "--client-ca",
      clientCaFile,
      "--probe-port",
      String(probePort),
    ],
    serving: { port, certFile: pair.certFile, keyFile: pair.keyFile, caPem: servingCa.certPem },
    waitUntilReady: false,
  });
  try {
    await waitFor(
      "the webhook's probe listener",
      () => webhookReady(probePort, servingCa.certPem),
      {
        process: webhook.process,
        timeoutMs: 60_000,
      },
    );
  } catch (error) {
    await webhook.stop();
    if (ownDir) await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
  return {
    webhook,
    probePort,
    serving: servingCa,
    clientCaFile,
    apiServer,
    stranger,
    dir,
    async [Symbol.asyncDispose]() {
      await webhook.stop();
      if (ownDir) await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** What one connection without an accepted certificate got. */
export interface RefusedAttempt {
  /** Bytes of the request the client's TLS layer took before the connection failed. */
  readonly bytesWritten: number;
  /** Bytes the webhook sent back as an answer (0: no HTTP answer at all). */
  readonly bytesAnswered: number;
  /** How it ended, in the TLS library's words. */
  readonly ending: string;
}

const CHUNK = 64 * 1024;

/**
 * Opens a TLS connection to `port` presenting `certificate` (or none) and tries to send
 * `POST /admit` with a `bodyBytes` body, then reads: what came back, if anything.
 */
export async function sendWithoutAcceptedCertificate(
  port: number,
  serving: Trust,
  bodyBytes: number,
  certificate?: { readonly certPem: string; readonly keyPem: string },
): Promise<RefusedAttempt> {
  let bytesWritten = 0;
  let bytesAnswered = 0;
  let conn: Deno.TlsConn | undefined;
  let ending = "closed by the webhook";
  try {
    conn = await Deno.connectTls({
      hostname: "127.0.0.1",
      port,
      caCerts: [serving.certPem],
      ...(certificate ? { cert: certificate.certPem, key: certificate.keyPem } : {}),
    });
    await conn.handshake();
    const head = new TextEncoder().encode(
      `POST /admit HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`,
    );
    bytesWritten += await conn.write(head);
    const chunk = new Uint8Array(CHUNK).fill(0x20);
    while (bytesWritten < head.length + bodyBytes) {
      const size = Math.min(CHUNK, head.length + bodyBytes - bytesWritten);
      bytesWritten += await conn.write(chunk.subarray(0, size));
    }
    const buffer = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      bytesAnswered += n;
    }
  } catch (error) {
    ending = (error as Error).message;
  } finally {
    try {
      conn?.close();
    } catch {
      // closed already
    }
  }
  return { bytesWritten, bytesAnswered, ending };
}

/** The figures and what each connection got. */
export interface UnauthenticatedAttackResult {
  readonly figures: AttackFigures;
  readonly attempts: readonly RefusedAttempt[];
}

/**
 * Starts a webhook with `--client-ca` and has `connections` clients without a certificate (half
 * of them with one from another CA) each try to send an 8 MiB AdmissionReview at once.
 */
export async function runUnauthenticatedAttack(
  connections = 128,
  bodyBytes = 8 * 1024 * 1024,
): Promise<UnauthenticatedAttackResult> {
  await using world = await startWorld({ cluster: false, images: false });
  const policies = await world.file(
    "policies.yaml",
    `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - { name: "registry.invalid/*", policy: {} }
`,
  );
  await using env = await startAuthenticatedWebhook(world, { policies });
  const attack = Promise.all(
    Array.from({ length: connections }, (_, i) =>
      sendWithoutAcceptedCertificate(
        env.webhook.port,
        env.serving,
        bodyBytes,
        i % 2 === 0 ? undefined : env.stranger,
      )),
  );
  const target: Pick<TestWebhook, "port" | "ca" | "process"> = {
    port: env.probePort,
    ca: env.serving,
    process: env.webhook.process as ManagedProcess,
  };
  const { result: attempts, figures } = await measureAttack(
    `${connections} connections without a client certificate × ${
      Math.round(bodyBytes / (1024 * 1024))
    } MiB bodies`,
    target,
    attack,
  );
  const answered = attempts.filter((a) => a.bytesAnswered > 0).length;
  return {
    attempts,
    figures: {
      ...figures,
      note: `${answered} of ${connections} answered (refused at the TLS handshake)`,
    },
  };
}

/**
 * The attack as `deno task bench` prints it: 128 connections without an accepted client
 * certificate, each trying to send an 8 MiB body, against a webhook started with `--client-ca`.
 */
export async function unauthenticatedAttack(): Promise<AttackFigures> {
  return (await runUnauthenticatedAttack()).figures;
}
