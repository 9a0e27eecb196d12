/**
 * Kubernetes Events (`events.k8s.io/v1`) for denials: one Warning Event regarding the workload,
 * so `kubectl describe` and `kubectl get events` show why it was refused. Repeats of the same
 * denial of the same object within a minute are dropped (controllers retry creating Pods).
 *
 * @module
 */
import { type CacheStats, TtlCache } from "./cache.ts";
import type { AdmissionDecision } from "./evaluate.ts";
import { type KubeConnection, readJson } from "./kube_connection.ts";
import type { AdmissionRequest } from "./review.ts";

/** Records denials. */
export interface EventRecorder {
  /** Records a denial (best effort: failures go to `onError`, never to the caller). */
  denied(request: AdmissionRequest, decision: AdmissionDecision): void;
  /** The de-duplication cache's size and bounds, for metrics. */
  stats?(): CacheStats;
}

/** How Events are written. */
export interface EventRecorderOptions {
  /** The connection to the API server. */
  readonly connection: KubeConnection;
  /** `reportingController`. @default "toolkit.dev/image-security" */
  readonly controller?: string;
  /** `reportingInstance`: the Pod name. */
  readonly instance: string;
  /** Receives failures to write an Event. */
  readonly onError?: (message: string) => void;
  /** The clock. @default `() => new Date()` */
  readonly clock?: () => Date;
}

const NOTE_LIMIT = 1024;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The Event for a denial, or undefined when the object cannot be named. */
export function denialEvent(
  request: AdmissionRequest,
  decision: AdmissionDecision,
  options: { controller: string; instance: string; now: Date; suffix: string },
): Record<string, unknown> | undefined {
  const metadata = isObject(request.object) && isObject(request.object.metadata)
    ? request.object.metadata
    : {};
  const name = request.name ||
    (typeof metadata.generateName === "string" ? metadata.generateName : "");
  if (name === "" || request.namespace === "") return undefined;
  const uid = typeof metadata.uid === "string" ? metadata.uid : undefined;
  const { group, version } = request.kind;
  let note = decision.reasons.join("\n");
  if (note.length > NOTE_LIMIT) note = `${note.slice(0, NOTE_LIMIT - 3)}...`;
  const base = name.replace(/[^a-z0-9.-]/g, "-").replace(/^[-.]+|[-.]+$/g, "").slice(0, 200) ||
    "object";
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: `${base}.${options.suffix}`, namespace: request.namespace },
    eventTime: options.now.toISOString().replace(/Z$/, "000Z"),
    reportingController: options.controller,
    reportingInstance: options.instance,
    action: request.operation === "CREATE" ? "Create" : "Update",
    reason: "ImagePolicyDenied",
    type: "Warning",
    note,
    regarding: {
      apiVersion: group ? `${group}/${version}` : version,
      kind: request.kind.kind || decision.kind,
      name,
      namespace: request.namespace,
      ...(uid ? { uid } : {}),
    },
  };
}

function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Creates a recorder that writes Events through the API server. */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  // Keyed by the object and the note (at most NOTE_LIMIT characters): bounded by count and bytes.
  const recent = new TtlCache<string, true>({
    name: "event-dedup",
    ttlMs: 60_000,
    maxEntries: 4096,
    maxBytes: 8 * 1024 * 1024,
  });
  const clock = options.clock ?? (() => new Date());
  const controller = options.controller ?? "toolkit.dev/image-security";
  return {
    stats: () => recent.stats(),
    denied(request, decision) {
      if (request.dryRun) return;
      const event = denialEvent(request, decision, {
        controller,
        instance: options.instance,
        now: clock(),
        suffix: randomSuffix(),
      });
      if (event === undefined) return;
      const regarding = event.regarding as { kind: string; name: string };
      const id = `${request.namespace}/${regarding.kind}/${regarding.name}\n${event.note}`;
      if (recent.get(id)) return;
      recent.set(id, true);
      const path = `/apis/events.k8s.io/v1/namespaces/${
        encodeURIComponent(request.namespace)
      }/events`;
      options.connection.fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(event),
      }).then((response) => readJson(response, `create an Event in "${request.namespace}"`))
        .catch((error) =>
          options.onError?.(error instanceof Error ? error.message : String(error))
        );
    },
  };
}
