/**
 * The `toolkit-webhook` executable, the composition root: flags → policy source (watches of
 * the API server, or `--policies` files polled for changes) → verifier → evaluator → handler →
 * HTTPS listener that reloads its certificate (and, with `--client-ca`, refuses clients without
 * a certificate from that CA), plus the probe listener of `--probe-port` (`/healthz`, `/readyz`,
 * `/metrics` only, no client certificate asked for). Logs are JSON lines on stdout.
 *
 * @module
 */
import { parseWebhookArgs, WEBHOOK_USAGE, type WebhookConfig } from "./config.ts";
import { createRoutes } from "./handler.ts";
import { BodyPool } from "./body_pool.ts";
import { createJsonLog, fileWriter, type JsonLog, LOG_STRING_LIMIT } from "./log.ts";
import { WebhookMetrics } from "./metrics.ts";
import { TrustExpiries } from "./trust_expiries.ts";
import { monitorEventLoop } from "./event_loop_monitor.ts";
import { TurnScheduler } from "../lib/turns.ts";
import { type ServerEvent, startTlsServer, type TlsServer } from "./server.ts";
import { probeRoutes } from "./probe_routes.ts";
import { describeError, UsageError } from "../lib/errors.ts";
import { MAX_REFERENCE_LENGTH } from "../lib/image/mod.ts";
import { PORTIERIS_API_GROUP } from "../lib/policy/mod.ts";
import { QUOTE_LIMIT } from "../lib/quote.ts";
import { loadRegistriesD } from "../lib/lookaside/mod.ts";
import type { FetchFunction } from "../lib/registry/mod.ts";
import {
  connectKube,
  createAdmissionEvaluator,
  createEventRecorder,
  createImageVerifier,
  createKubePolicySource,
  DeadlineScheduler,
  DEFAULT_IMAGE_READ_BYTES,
  DEFAULT_READ_POOL_BYTES,
  type EventRecorder,
  filePolicySource,
  loadPolicyFiles,
  type PolicySource,
  type VerifierOptions,
} from "../lib/admission/mod.ts";
import type { KubeClient } from "../lib/kube/mod.ts";
import { MemoryPool } from "../lib/read_budget.ts";
import { type RunningReports, startReports } from "./reports.ts";

/** The largest request body the probe listener reads (its routes are GETs). */
const PROBE_MAX_BODY_BYTES = 1024;

/**
 * The most connections the probe listener holds at once: kubelet probes and a Prometheus or two
 * need a handful; its own bound, so that nobody who reaches it takes the webhook port's places.
 */
const PROBE_MAX_CONNECTIONS = 64;

/** A running webhook. */
export interface RunningWebhook {
  /** The HTTPS server. */
  readonly server: TlsServer;
  /** The probe listener (`--probe-port`), when there is one. */
  readonly probeServer: TlsServer | undefined;
  /** Stops serving, watching and polling. */
  stop(): Promise<void>;
}

interface SourceHandle {
  readonly source: PolicySource;
  readonly events?: EventRecorder;
  /** The API server's client (not with `--policies` files). */
  readonly client?: KubeClient;
  stop(): Promise<void>;
}

async function fileSource(config: WebhookConfig, log: JsonLog): Promise<SourceHandle> {
  const options = { groups: [config.policyGroup, PORTIERIS_API_GROUP] };
  const read = () => loadPolicyFiles(config.policyFiles, options);
  const source = filePolicySource(await read(), { exemptLabel: config.exemptLabel });
  log.write({
    msg: "policies loaded",
    files: config.policyFiles,
    policies: source.policies().size,
  });
  const stamp = async () =>
    (await Promise.all(config.policyFiles.map(async (f) => {
      const info = await Deno.stat(f).catch(() => undefined);
      return `${f}:${info?.mtime?.getTime() ?? 0}:${info?.size ?? -1}`;
    }))).join("|");
  let last = await stamp();
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const now = await stamp();
      if (now === last) return;
      last = now;
      source.replace(await read());
      log.write({
        msg: "policies reloaded",
        files: config.policyFiles,
        policies: source.policies().size,
      });
    } catch (error) {
      log.write({
        level: "error",
        msg: "policies not reloaded, keeping the previous ones",
        detail: describeError(error),
      });
    } finally {
      busy = false;
    }
  }, 1000);
  return { source, stop: () => Promise.resolve(clearInterval(timer)) };
}

async function kubeSource(
  config: WebhookConfig,
  log: JsonLog,
  turns: TurnScheduler,
  onChange: () => void,
): Promise<SourceHandle> {
  const client = await connectKube({ kubeconfig: config.kubeconfig, env: Deno.env.toObject() });
  const source = createKubePolicySource({
    client,
    // Policy compiles take turns with the reviews' slices, in the one scheduler of the process.
    turns,
    group: config.policyGroup,
    controllerNamespace: config.namespace,
    exemptLabel: config.exemptLabel,
    onEvent: (level, message) => log.write({ level, msg: message }),
    onChange,
  });
  source.start();
  source.whenSynced.then(() =>
    log.write({
      msg: "policies loaded",
      server: client.server,
      policies: source.policies().size,
    })
  );
  const events = config.events
    ? createEventRecorder({
      client,
      instance: config.podName,
      onError: (message) =>
        log.write({ level: "warn", msg: "event not recorded", detail: message }),
    })
    : undefined;
  return {
    source,
    client,
    ...(events ? { events } : {}),
    async stop() {
      await source.stop();
      client.close();
    },
  };
}

async function registryFetch(
  config: WebhookConfig,
): Promise<{ fetch?: FetchFunction; close(): void }> {
  if (config.registryCaFiles.length === 0) return { close() {} };
  const caCerts = await Promise.all(config.registryCaFiles.map((f) => Deno.readTextFile(f)));
  const client = Deno.createHttpClient({ caCerts });
  return {
    fetch: (input, init) => fetch(input, { ...init, client }),
    close: () => client.close(),
  };
}

/** Starts the webhook with `config`; logs go to `log`. */
export async function runWebhook(config: WebhookConfig, log: JsonLog): Promise<RunningWebhook> {
  const metrics = new WebhookMetrics();
  const trustExpiries = new TrustExpiries();
  metrics.trustExpiries = () => trustExpiries.current();
  const deadlines = new DeadlineScheduler();
  const turns = new TurnScheduler();
  const eventLoop = monitorEventLoop();
  let reports: RunningReports | undefined;
  const handle = config.policyFiles.length > 0
    ? await fileSource(config, log)
    : await kubeSource(config, log, turns, () => reports?.policyChanged());
  const registries = await registryFetch(config);
  const verifierOptions: VerifierOptions = {
    // One pool of registry reads for the process: the report audits' verifier takes from it too.
    memory: {
      pool: new MemoryPool(DEFAULT_READ_POOL_BYTES),
      imageReadBytes: DEFAULT_IMAGE_READ_BYTES,
    },
    source: handle.source,
    clusterKeyNamespace: config.namespace,
    insecureRegistries: config.insecureRegistries,
    registriesD: config.registriesD ? await loadRegistriesD(config.registriesD) : undefined,
    flightTimeoutMs: config.budgetMs,
    requestTimeoutMs: Math.min(5000, config.budgetMs),
    keyBounds: { maxRsaBits: config.maxRsaKeyBits, maxRsaBitsSetting: "--max-rsa-key-bits" },
    verdictCache: { ttlMs: config.cacheTtlMs, maxEntries: config.cacheSize },
    digestCache: { ttlMs: config.digestCacheTtlMs, maxEntries: config.cacheSize },
    ...(registries.fetch ? { fetch: registries.fetch } : {}),
    observer: {
      cacheHit: () => metrics.cacheHits++,
      cacheMiss: () => metrics.cacheMisses++,
      registryError: () => metrics.registryErrors++,
      verificationError: (kind) => metrics.verificationError(kind),
      trustRead: trustExpiries.observe,
    },
    turns,
  };
  const verifier = createImageVerifier(verifierOptions);
  if (config.policyReports && handle.client) {
    reports = startReports({
      config: { ...config, policyReports: config.policyReports },
      client: handle.client,
      source: handle.source,
      verifierOptions,
      deadlines,
      turns,
      log,
    });
    const reportMetrics = reports.metrics;
    metrics.more = () => reportMetrics.render();
  }
  const evaluator = createAdmissionEvaluator({
    source: handle.source,
    verifier,
    deadlines,
    turns,
    settings: {
      mode: config.mode,
      noMatch: config.noMatch,
      controllerNamespace: config.namespace,
      budgetMs: config.budgetMs,
      maxImagesPerReview: config.maxImages,
      maxVerificationsInFlight: config.maxVerifications,
    },
  });
  // Request bodies in flight, across connections: their bytes and their parse (`body_pool.ts`).
  const bodyPool = new BodyPool(config.maxRequestBytesInFlight);
  metrics.bounds = () => {
    const evaluated = evaluator.bounds!();
    return {
      caches: [
        ...evaluated.caches,
        ...verifier.caches!(),
        ...(handle.events?.stats ? [handle.events.stats()] : []),
      ],
      limits: {
        images_per_review: evaluated.maxImagesPerReview,
        verifications_in_flight: evaluated.maxVerificationsInFlight,
        request_bytes: config.maxRequestBytes,
        rsa_key_bits: config.maxRsaKeyBits,
        request_bytes_in_flight: config.maxRequestBytesInFlight,
        image_reference_chars: MAX_REFERENCE_LENGTH,
        quoted_input_chars: QUOTE_LIMIT,
        log_string_chars: LOG_STRING_LIMIT,
        image_read_bytes: DEFAULT_IMAGE_READ_BYTES,
      },
      verificationsInFlight: evaluated.verificationsInFlight,
      verificationsWaiting: evaluated.verificationsWaiting,
      readPool: verifier.readPool?.(),
      bodyPool: bodyPool.stats(),
      eventLoop: eventLoop.stalls(),
    };
  };
  const routes = createRoutes({
    evaluator,
    ready: () => handle.source.ready(),
    metrics,
    log,
    events: handle.events,
    guardMs: config.budgetMs + 1000,
    maxBodyBytes: config.maxRequestBytes,
    deadlines,
  });
  /** Logs what a listener reports (`listener`: "webhook" or "probes"). */
  const onEvent = (listener: string) => (event: ServerEvent) => {
    if (event.type === "reloaded" && listener === "webhook") metrics.tlsReloads++;
    if ((event.type === "reloaded" || event.type === "listening") && listener === "webhook") {
      metrics.servingCertificateExpiry = Date.parse(event.certificateNotAfter) / 1000;
    }
    log.write({
      level: event.type === "reload-failed" || event.type === "accept-failed" ? "error" : "info",
      msg: event.type === "listening"
        ? "listening"
        : event.type === "reloaded"
        ? `${event.files} reloaded`
        : event.type === "accept-failed"
        ? "connection not accepted"
        : "certificate not reloaded",
      listener,
      ...event,
    });
  };
  const tls = {
    hostname: config.hostname,
    certFile: config.tlsCertFile,
    keyFile: config.tlsKeyFile,
    reloadIntervalMs: config.tlsReloadIntervalMs,
  };
  let server: TlsServer | undefined;
  let probeServer: TlsServer | undefined;
  try {
    server = await startTlsServer({
      ...tls,
      port: config.port,
      clientCaFile: config.clientCaFile,
      limits: { maxBodyBytes: config.maxRequestBytes, bodyPool },
      onEvent: onEvent("webhook"),
    }, routes);
    if (config.probePort !== undefined) {
      probeServer = await startTlsServer({
        ...tls,
        port: config.probePort,
        // GETs only: a body is never read past this.
        limits: { maxBodyBytes: PROBE_MAX_BODY_BYTES },
        maxConnections: PROBE_MAX_CONNECTIONS,
        onEvent: onEvent("probes"),
      }, probeRoutes(routes));
    }
  } catch (error) {
    await server?.shutdown();
    await reports?.stop();
    await handle.stop();
    registries.close();
    eventLoop[Symbol.dispose]();
    throw error;
  }
  log.write({
    msg: "started",
    mode: config.mode,
    noMatch: config.noMatch,
    namespace: config.namespace,
    policyGroup: config.policyGroup,
    source: config.policyFiles.length > 0 ? "files" : "api-server",
    budgetMs: config.budgetMs,
    clientCertificates: config.clientCaFile !== undefined ? "required" : "not asked for",
    policyReports: reports ? "on" : "off",
    ...(reports ? { reportsIdentity: reports.identity } : {}),
    ...(probeServer ? { probePort: probeServer.port } : {}),
  });
  return {
    server,
    probeServer,
    async stop() {
      await Promise.all([server.shutdown(), probeServer?.shutdown(), reports?.stop()]);
      await handle.stop();
      registries.close();
      eventLoop[Symbol.dispose]();
      log.write({ msg: "stopped", ...eventLoop.stalls() });
      log.flush();
    },
  };
}

if (import.meta.main) {
  const log = createJsonLog(fileWriter(Deno.stdout));
  try {
    const config = parseWebhookArgs(Deno.args, Deno.env.toObject());
    if (config === "help") {
      await Deno.stdout.write(new TextEncoder().encode(WEBHOOK_USAGE));
    } else {
      const webhook = await runWebhook(config, log);
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        log.write({ msg: "stopping" });
        // In-flight reviews end within the budget (answered or denied); past it, exit anyway.
        const cap = new Promise<void>((resolve) => setTimeout(resolve, config.budgetMs + 2000));
        void Promise.race([webhook.stop(), cap]).then(() => {
          log.flush();
          Deno.exit(0);
        });
      };
      Deno.addSignalListener("SIGTERM", stop);
      Deno.addSignalListener("SIGINT", stop);
      await webhook.server.finished;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      await Deno.stderr.write(
        new TextEncoder().encode(`error: ${describeError(error)}\n\n${WEBHOOK_USAGE}`),
      );
      Deno.exit(2);
    }
    log.write({ level: "error", msg: describeError(error) });
    log.flush();
    Deno.exit(1);
  }
}
