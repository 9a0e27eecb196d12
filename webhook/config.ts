/**
 * The webhook's command-line configuration: raw flags resolved once into a typed config,
 * failing loudly on bad values (a typo never silently becomes a default).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { UsageError } from "../lib/errors.ts";
import { API_GROUP } from "../lib/policy/mod.ts";
import { insecureRegistryEntry, RegistryError } from "../lib/registry/mod.ts";
import {
  DEFAULT_EXEMPT_LABEL,
  type EnforcementMode,
  type ExemptLabel,
  type NoMatchAction,
  parseExemptLabel,
  POOL_BYTES,
} from "../lib/admission/mod.ts";

/** The resolved configuration of the webhook server. */
export interface WebhookConfig {
  /** The address to listen on. */
  readonly hostname: string;
  /** The port to listen on (0: any free port). */
  readonly port: number;
  /** PEM certificate chain file. */
  readonly tlsCertFile: string;
  /** PEM private key file. */
  readonly tlsKeyFile: string;
  /** How often the certificate files are checked for changes, in ms. */
  readonly tlsReloadIntervalMs: number;
  /**
   * PEM CA certificate(s) every client of {@linkcode port} must present a certificate from
   * (undefined: none asked for). Reloaded when it changes.
   */
  readonly clientCaFile: string | undefined;
  /**
   * The port of the probe listener, which serves only `/healthz`, `/readyz` and `/metrics` and
   * asks for no client certificate (0: any free port; undefined: no probe listener).
   */
  readonly probePort: number | undefined;
  /** Policy manifests to run from instead of the API server (empty: the API server). */
  readonly policyFiles: readonly string[];
  /** A kubeconfig (default: in-cluster, then `$KUBECONFIG`). */
  readonly kubeconfig?: string | undefined;
  /** The API group of the policies. */
  readonly policyGroup: string;
  /** The global mode. */
  readonly mode: EnforcementMode;
  /** What happens to images no policy matches. */
  readonly noMatch: NoMatchAction;
  /** The namespace label that exempts a namespace (undefined: none). */
  readonly exemptLabel: ExemptLabel | undefined;
  /** The controller's own namespace (always exempt). */
  readonly namespace: string;
  /** The name of this replica (Events' `reportingInstance`). */
  readonly podName: string;
  /** The time budget of one review, in ms. */
  readonly budgetMs: number;
  /** Lifetime of verified verdicts, in ms. */
  readonly cacheTtlMs: number;
  /** The most verified verdicts kept. */
  readonly cacheSize: number;
  /** Lifetime of tag → digest resolutions, in ms. */
  readonly digestCacheTtlMs: number;
  /** Registries reached over plain HTTP. */
  readonly insecureRegistries: readonly string[];
  /** Extra CA certificate files for registries and signature stores. */
  readonly registryCaFiles: readonly string[];
  /** A registries.d directory (lookaside signature stores). */
  readonly registriesD?: string | undefined;
  /** Whether denials are recorded as Events (API server mode only). */
  readonly events: boolean;
  /** The most distinct images one review may name. */
  readonly maxImages: number;
  /** The most verifications in flight across reviews. */
  readonly maxVerifications: number;
  /** The largest AdmissionReview body read, in bytes. */
  readonly maxRequestBytes: number;
  /** The largest RSA modulus of a key Secret's keys, in bits (2048 to 8192). */
  readonly maxRsaKeyBits: number;
  /** The pool of request bodies in flight across connections, bytes and parse (`body_pool.ts`). */
  readonly maxRequestBytesInFlight: number;
  /**
   * The PolicyReport controller (`lib/reports`): undefined when off (`--policy-reports` not
   * given, or `--policies` files); otherwise its resync period and registry rate.
   */
  readonly policyReports?: {
    /** The full re-audit's period, in ms. */
    readonly resyncMs: number;
    /** Registry requests a second of its verifier (the burst is the same number). */
    readonly registryRate: number;
    /** How long changes are gathered before an audit, in ms. */
    readonly debounceMs: number;
  } | undefined;
}

/**
 * The largest AdmissionReview body read by default: 3 MiB, the largest request body the API
 * server itself accepts (kube-apiserver `--max-request-body-bytes`, `MaxRequestBodyBytes` in
 * k8s.io/apiserver: "1.5MB is the recommended client request size … the etcd server should
 * accept … A request body might be encoded in json, and is converted to proto when persisted in
 * etcd, so we allow 2x"). A review carries `object`, and on UPDATE `oldObject` too: two objects
 * each at most 1.5 MiB in etcd, which as JSON is 1–1.5 times that for workloads (strings dominate),
 * so a review of a storable object fits 3 MiB unless an UPDATE's objects are each over about
 * 1.5 MiB (raise the flag for such objects; the review is otherwise refused, and so denied).
 */
export const DEFAULT_MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** The text of `toolkit-webhook --help`. */
export const WEBHOOK_USAGE = `toolkit-webhook: the toolkit image signature admission webhook

Usage: toolkit-webhook --tls-cert-file FILE --tls-key-file FILE [options]

Serving:
  --port N                        HTTPS port (default 8443; 0 picks a free port)
  --host ADDR                     Address to listen on (default 0.0.0.0)
  --tls-cert-file FILE            PEM certificate chain (required; reloaded when it changes)
  --tls-key-file FILE             PEM private key (required; reloaded when it changes)
  --tls-reload-interval DURATION  How often the TLS files are checked (default 5s)
  --client-ca FILE                PEM CA certificate(s): every client of --port must present a
                                  certificate from it, or the TLS handshake fails before any
                                  request byte is read (the API server's client certificate:
                                  docs/admission.md, "Running the webhook"); reloaded when it
                                  changes
  --probe-port N                  A second HTTPS port, with the same certificate and no client
                                  certificate, serving only /healthz, /readyz and /metrics (for
                                  the kubelet and Prometheus; never /admit). Default 8444 with
                                  --client-ca, none without; 0 picks a free port

Policies:
  --policies FILE                 Run from YAML manifests (policies, key Secrets, ...) instead
                                  of the API server; repeatable
  --kubeconfig FILE               Kubeconfig (default: in-cluster, then $KUBECONFIG)
  --policy-group GROUP            API group of the policies (default ${API_GROUP}; use
                                  portieris.cloud.ibm.com to read Portieris policies)
  --mode enforce|warn             enforce (default) denies; warn admits with a warning
  --no-match deny|allow|warn      Images no policy matches (default deny)
  --exempt-namespace-label K=V    Namespaces with this label are not checked
                                  (default ${DEFAULT_EXEMPT_LABEL.key}=${DEFAULT_EXEMPT_LABEL.value}; "" for none)
  --namespace NS                  The webhook's own namespace, always exempt; its key Secrets
                                  serve ClusterImagePolicies (default $POD_NAMESPACE or toolkit-system)
  --no-events                     Do not record denials as Kubernetes Events

PolicyReports (docs/admission.md, "PolicyReports"):
  --policy-reports                Keep one wgpolicyk8s.io/v1alpha2 PolicyReport per namespace
                                  (the audit of its running workloads), written by one replica
                                  at a time (the Lease toolkit-policy-reports in --namespace)
  --reports-resync DURATION       Re-audit every namespace this often, whatever changed (a
                                  deleted signature, an expired key) (default 10m, at least 1s)
  --reports-debounce DURATION     Gather changes this long before an audit (default 1s)
  --reports-registry-rate N       Registry requests a second of the report audits, burst N too
                                  (default 5); admission reviews are not counted

Verification:
  --budget DURATION               Time for all the checks of one review (default 8s; keep it
                                  below the webhook's timeoutSeconds)
  --cache-ttl DURATION            Lifetime of verified verdicts (default 5m)
  --cache-size N                  Most verified verdicts kept (default 10000)
  --digest-cache-ttl DURATION     Lifetime of tag-to-digest resolutions (default 30s)
  --insecure-registry HOST        Reach this registry over plain HTTP; repeatable
  --registry-ca-file FILE         Trust this CA for registries and stores; repeatable
  --registries.d DIR              registries.d directory: lookaside signature stores

Bounds (see docs/admission.md, "Limits"; all exported on /metrics):
  --max-images N                  Most distinct images one review may name; a review naming
                                  more is denied before any check (default 256)
  --max-verifications N           Verification slots (registry work no cache answers) across all
                                  reviews, shared round-robin by namespace, then registry host;
                                  no host takes more than 3/4 of them; the others wait within
                                  their review's budget (default 64)
  --max-request-bytes N           Largest AdmissionReview body read; larger ones are refused
                                  with 413 (default 3145728, 3 MiB: the largest body the API
                                  server itself accepts)
  --max-rsa-key-bits N            Largest RSA modulus of a key Secret's keys, 2048 to 8192
                                  (default 4096; over 4096, OpenPGP keys only, each check
                                  then holds the event loop up to 2 ms); a larger key, an
                                  exponent over 2^32, DSA or ElGamal makes the policy unusable
  --max-request-bytes-in-flight N Memory of all request bodies read and parsed at once (4 bytes
                                  a byte, 64 a JSON value); a request that does not fit is
                                  refused with 503 unread (default 33554432, 32 MiB; at least
                                  10 x --max-request-bytes)

  -h, --help                      Show this help

Durations: 8s, 500ms, 5m, 1h (a bare number is seconds).
`;

/** The probe listener's port when `--client-ca` is given without `--probe-port`. */
export const DEFAULT_PROBE_PORT = 8444;

function portNumber(text: string, flag: string): number {
  const port = Number(text);
  if (text.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`Cannot use ${flag} "${text}": expected a number from 0 to 65535`);
  }
  return port;
}

/** Parses `8s`, `500ms`, `5m`, `1h` or a number of seconds into milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) {
    throw new UsageError(
      `Cannot use ${flag} "${text}": expected a duration such as 8s, 500ms or 5m`,
    );
  }
  const value = Number(match[1]);
  const unit = match[2] ?? "s";
  const factor = unit === "ms" ? 1 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 3600_000;
  return Math.round(value * factor);
}

function oneOf<T extends string>(value: string, values: readonly T[], flag: string): T {
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `Cannot use ${flag} "${value}": expected one of ${values.map((v) => `"${v}"`).join(", ")}`,
  );
}

function positiveInteger(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    throw new UsageError(`Cannot use ${flag} "${text}": expected a whole number`);
  }
  return n;
}

function atLeastOne(text: string, flag: string): number {
  const n = positiveInteger(text, flag);
  if (n < 1) throw new UsageError(`Cannot use ${flag} "${text}": expected at least 1`);
  return n;
}

function rsaKeyBits(text: string): number {
  const n = positiveInteger(text, "--max-rsa-key-bits");
  if (n < 2048 || n > 8192) {
    throw new UsageError(`Cannot use --max-rsa-key-bits "${text}": expected 2048 to 8192`);
  }
  return n;
}

/**
 * Parses the webhook's flags with `env` for `$POD_NAMESPACE`, `$POD_NAME` and `$HOSTNAME`.
 * Throws {@link UsageError} for bad input.
 */
export function parseWebhookArgs(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): WebhookConfig | "help" {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: "string", default: "8443" },
        host: { type: "string", default: "0.0.0.0" },
        "tls-cert-file": { type: "string" },
        "tls-key-file": { type: "string" },
        "tls-reload-interval": { type: "string", default: "5s" },
        "client-ca": { type: "string" },
        "probe-port": { type: "string" },
        policies: { type: "string", multiple: true },
        kubeconfig: { type: "string" },
        "policy-group": { type: "string", default: API_GROUP },
        mode: { type: "string", default: "enforce" },
        "no-match": { type: "string", default: "deny" },
        "exempt-namespace-label": {
          type: "string",
          default: `${DEFAULT_EXEMPT_LABEL.key}=${DEFAULT_EXEMPT_LABEL.value}`,
        },
        namespace: { type: "string" },
        "no-events": { type: "boolean" },
        "policy-reports": { type: "boolean" },
        "reports-resync": { type: "string", default: "10m" },
        "reports-debounce": { type: "string", default: "1s" },
        "reports-registry-rate": { type: "string", default: "5" },
        budget: { type: "string", default: "8s" },
        "cache-ttl": { type: "string", default: "5m" },
        "cache-size": { type: "string", default: "10000" },
        "digest-cache-ttl": { type: "string", default: "30s" },
        "insecure-registry": { type: "string", multiple: true },
        "registry-ca-file": { type: "string", multiple: true },
        "registries.d": { type: "string" },
        "max-images": { type: "string", default: "256" },
        "max-verifications": { type: "string", default: "64" },
        "max-request-bytes": { type: "string", default: String(DEFAULT_MAX_REQUEST_BYTES) },
        "max-request-bytes-in-flight": {
          type: "string",
          default: String(POOL_BYTES.requestBodies),
        },
        "max-rsa-key-bits": { type: "string", default: "4096" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  if (values.help) return "help";
  const port = portNumber(values.port!, "--port");
  const clientCaFile = values["client-ca"];
  if (clientCaFile === "") throw new UsageError('Cannot use --client-ca "": expected a file');
  const probePort = values["probe-port"] !== undefined
    ? portNumber(values["probe-port"], "--probe-port")
    : clientCaFile !== undefined
    ? DEFAULT_PROBE_PORT
    : undefined;
  if (probePort !== undefined && probePort !== 0 && probePort === port) {
    throw new UsageError(
      `Cannot use --probe-port ${probePort}: it is the --port; the probes need a port of their own`,
    );
  }
  const tlsCertFile = values["tls-cert-file"];
  const tlsKeyFile = values["tls-key-file"];
  if (!tlsCertFile || !tlsKeyFile) {
    throw new UsageError("Both --tls-cert-file and --tls-key-file are required");
  }
  const budgetMs = parseDuration(values.budget!, "--budget");
  if (budgetMs < 100 || budgetMs > 29_000) {
    throw new UsageError(
      `Cannot use --budget "${values.budget}": it must be from 100ms to 29s, below the webhook's timeoutSeconds (at most 30s)`,
    );
  }
  const group = values["policy-group"]!;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(group)) {
    throw new UsageError(`Cannot use --policy-group "${group}": not an API group name`);
  }
  const insecureRegistries = values["insecure-registry"] ?? [];
  for (const entry of insecureRegistries) {
    try {
      insecureRegistryEntry(entry);
    } catch (error) {
      if (!(error instanceof RegistryError)) throw error;
      throw new UsageError(`--insecure-registry: ${error.message}`, { cause: error });
    }
  }
  const maxRequestBytes = atLeastOne(values["max-request-bytes"]!, "--max-request-bytes");
  const inFlight = values["max-request-bytes-in-flight"]!;
  const maxRequestBytesInFlight = atLeastOne(inFlight, "--max-request-bytes-in-flight");
  if (maxRequestBytesInFlight < 10 * maxRequestBytes) {
    throw new UsageError(
      `Cannot use --max-request-bytes-in-flight "${inFlight}": it must be at least 10 times --max-request-bytes (${maxRequestBytes}), so that the largest body and its parse fit`,
    );
  }
  const reloadMs = parseDuration(values["tls-reload-interval"]!, "--tls-reload-interval");
  if (reloadMs < 100) {
    throw new UsageError("Cannot use --tls-reload-interval below 100ms");
  }
  const resyncMs = parseDuration(values["reports-resync"]!, "--reports-resync");
  if (resyncMs < 1000) throw new UsageError("Cannot use --reports-resync below 1s");
  const registryRate = Number(values["reports-registry-rate"]);
  if (!Number.isFinite(registryRate) || registryRate <= 0 || registryRate > 10_000) {
    throw new UsageError(
      `Cannot use --reports-registry-rate "${
        values["reports-registry-rate"]
      }": expected a number of requests a second above 0 (at most 10000)`,
    );
  }
  const policyReports = values["policy-reports"] && (values.policies ?? []).length === 0
    ? {
      resyncMs,
      registryRate,
      debounceMs: parseDuration(values["reports-debounce"]!, "--reports-debounce"),
    }
    : undefined;
  return {
    policyReports,
    hostname: values.host ?? "0.0.0.0",
    port,
    tlsCertFile,
    tlsKeyFile,
    tlsReloadIntervalMs: reloadMs,
    clientCaFile,
    probePort,
    policyFiles: values.policies ?? [],
    kubeconfig: values.kubeconfig,
    policyGroup: group,
    mode: oneOf(values.mode!, ["enforce", "warn"] as const, "--mode"),
    noMatch: oneOf(values["no-match"]!, ["deny", "allow", "warn"] as const, "--no-match"),
    exemptLabel: parseExemptLabel(values["exempt-namespace-label"]!),
    namespace: values.namespace || env.POD_NAMESPACE || "toolkit-system",
    podName: env.POD_NAME || env.HOSTNAME || "toolkit-webhook",
    budgetMs,
    cacheTtlMs: parseDuration(values["cache-ttl"]!, "--cache-ttl"),
    cacheSize: positiveInteger(values["cache-size"]!, "--cache-size"),
    digestCacheTtlMs: parseDuration(values["digest-cache-ttl"]!, "--digest-cache-ttl"),
    insecureRegistries,
    registryCaFiles: values["registry-ca-file"] ?? [],
    registriesD: values["registries.d"],
    events: !values["no-events"],
    maxImages: atLeastOne(values["max-images"]!, "--max-images"),
    maxVerifications: atLeastOne(values["max-verifications"]!, "--max-verifications"),
    maxRequestBytes,
    maxRequestBytesInFlight,
    maxRsaKeyBits: rsaKeyBits(values["max-rsa-key-bits"]!),
  };
}
