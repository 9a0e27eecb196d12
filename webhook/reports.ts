/**
 * The report controller's composition (`--policy-reports`): its own verifier (registry requests
 * through a token bucket, verdicts kept shorter than the resync so that a deleted signature is
 * seen within one period), the webhook's evaluator over it, `lib/audit` for the audits, and the
 * Lease election that runs the controller in one replica at a time.
 *
 * @module
 */
import {
  createAdmissionEvaluator,
  createImageVerifier,
  type DeadlineScheduler,
  type PolicySource,
  type VerifierOptions,
} from "../lib/admission/mod.ts";
import { AUDITED_TYPES, auditVerifier, auditWorkloads } from "../lib/audit/mod.ts";
import type { KubeClient } from "../lib/kube/mod.ts";
import {
  rateLimitedFetch,
  ReportController,
  REPORTS_LEASE_NAME,
  runLeaderElection,
  SYSTEM_BUCKET_CLOCK,
  TokenBucket,
} from "../lib/reports/mod.ts";
import type { TurnScheduler } from "../lib/turns.ts";
import type { WebhookConfig } from "./config.ts";
import type { JsonLog } from "./log.ts";
import { ReportMetrics } from "./report_metrics.ts";

/** The time one report audit may give one workload (its registry waits included). */
const REPORT_BUDGET_MS = 30_000;

/**
 * The byte bounds of the audits' verdict and digest caches: small, as the audits remember their
 * own verdicts while they run (`lib/audit`'s `auditVerifier`) and re-verify at each resync anyway.
 */
export const REPORT_CACHE_BYTES = 512 * 1024;

/** The entries of the audits' verdict and digest caches. */
const REPORT_CACHE_ENTRIES = 2048;

/** What the report controller is built from. */
export interface ReportsDeps {
  readonly config: WebhookConfig & { policyReports: NonNullable<WebhookConfig["policyReports"]> };
  readonly client: KubeClient;
  readonly source: PolicySource & { whenSynced?: Promise<void> };
  /** The webhook verifier's options: the report verifier is made the same way. */
  readonly verifierOptions: VerifierOptions;
  readonly deadlines: DeadlineScheduler;
  readonly turns: TurnScheduler;
  readonly log: JsonLog;
}

/** A running election and controller. */
export interface RunningReports {
  readonly metrics: ReportMetrics;
  /** This replica's Lease identity (`POD_NAME_<uuid>`), written on its reports. */
  readonly identity: string;
  /** Tells the controller (when this replica leads) that policies or keys changed. */
  policyChanged(): void;
  /** Stops the controller and releases the Lease. */
  stop(): Promise<void>;
}

/** Starts the election; the controller runs while this replica holds the Lease. */
export function startReports(deps: ReportsDeps): RunningReports {
  const { config, log } = deps;
  const settings = config.policyReports;
  const metrics = new ReportMetrics();
  const bucket = new TokenBucket({
    ratePerSecond: settings.registryRate,
    burst: Math.max(1, Math.ceil(settings.registryRate)),
    clock: SYSTEM_BUCKET_CLOCK,
  });
  metrics.rateWaits = () => bucket.waited;
  const baseFetch = deps.verifierOptions.fetch ?? ((input, init) => fetch(input, init));
  const cacheTtlMs = Math.max(1, Math.min(config.cacheTtlMs, Math.floor(settings.resyncMs / 2)));
  const verifier = auditVerifier(createImageVerifier({
    ...deps.verifierOptions,
    fetch: rateLimitedFetch(baseFetch, bucket, () => metrics.registryRequests++),
    // The webhook's read pool (`verifierOptions.memory`): the audits' registry reads count in it.
    flightTimeoutMs: REPORT_BUDGET_MS,
    verdictCache: {
      ttlMs: cacheTtlMs,
      maxEntries: REPORT_CACHE_ENTRIES,
      maxBytes: REPORT_CACHE_BYTES,
    },
    digestCache: {
      ttlMs: Math.min(config.digestCacheTtlMs, cacheTtlMs),
      maxEntries: REPORT_CACHE_ENTRIES,
      maxBytes: REPORT_CACHE_BYTES,
    },
    observer: {},
  }));
  const evaluator = createAdmissionEvaluator({
    source: deps.source,
    verifier,
    deadlines: deps.deadlines,
    turns: deps.turns,
    settings: {
      mode: config.mode,
      noMatch: config.noMatch,
      controllerNamespace: config.namespace,
      budgetMs: REPORT_BUDGET_MS,
      maxImagesPerReview: config.maxImages,
      // A share of the webhook's: the reviews keep the rest.
      maxVerificationsInFlight: Math.max(1, Math.floor(config.maxVerifications / 4)),
    },
  });
  const onEvent = (level: "info" | "warn", message: string) =>
    log.write({ level, msg: message, component: "policy-reports" });
  let current: ReportController | undefined;
  const stopping = new AbortController();
  // As client-go's: the pod's name and a random part, so that two processes never share one.
  const identity = `${config.podName}_${crypto.randomUUID()}`;
  const election = runLeaderElection(
    {
      client: deps.client,
      namespace: config.namespace,
      name: REPORTS_LEASE_NAME,
      identity,
      clock: SYSTEM_BUCKET_CLOCK,
      onEvent,
    },
    async (signal) => {
      const controller = new ReportController({
        client: deps.client,
        workloadTypes: AUDITED_TYPES,
        audit: (lister, namespaces, auditSignal) => {
          verifier.forget();
          return auditWorkloads(
            { kube: lister, evaluator },
            { ...(namespaces ? { namespaces } : {}), signal: auditSignal },
          );
        },
        reporter: identity,
        clock: SYSTEM_BUCKET_CLOCK,
        resyncMs: settings.resyncMs,
        debounceMs: settings.debounceMs,
        ...(deps.source.whenSynced ? { ready: () => deps.source.whenSynced! } : {}),
        observer: metrics,
        onEvent,
      });
      current = controller;
      try {
        await controller.run(signal);
      } finally {
        current = undefined;
      }
    },
    stopping.signal,
  );
  return {
    metrics,
    identity,
    policyChanged: () => current?.policyChanged(),
    async stop() {
      stopping.abort();
      await election;
    },
  };
}
