/**
 * Denials as Kubernetes Events: one Warning Event regarding the workload, so `kubectl describe`
 * and `kubectl get events` show why it was refused. Repeats of the same denial of the same
 * object within a minute are dropped (controllers retry creating Pods). Writing the Event is
 * `lib/kube`'s Events recorder.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import {
  createKubeEventRecorder,
  eventObject,
  type EventReporter,
  type EventSpec,
  type KubeClient,
} from "../kube/mod.ts";
import { type CacheStats, TtlCache } from "./cache.ts";
import type { AdmissionDecision } from "./evaluate.ts";
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
  /** The client of the API server. */
  readonly client: KubeClient;
  /** `reportingController`. @default "toolkit.dev/image-security" */
  readonly controller?: string;
  /** `reportingInstance`: the Pod name. */
  readonly instance: string;
  /** Receives failures to write an Event. */
  readonly onError?: (message: string) => void;
  /** The clock. @default `() => new Date()` */
  readonly clock?: () => Date;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** What the Event of a denial says, or undefined when the object cannot be named. */
export function denialEventSpec(
  request: AdmissionRequest,
  decision: AdmissionDecision,
): EventSpec | undefined {
  const metadata = isObject(request.object) && isObject(request.object.metadata)
    ? request.object.metadata
    : {};
  const name = request.name ||
    (typeof metadata.generateName === "string" ? metadata.generateName : "");
  if (name === "" || request.namespace === "") return undefined;
  const uid = typeof metadata.uid === "string" ? metadata.uid : undefined;
  const { group, version } = request.kind;
  return {
    namespace: request.namespace,
    action: request.operation === "CREATE" ? "Create" : "Update",
    reason: "ImagePolicyDenied",
    type: "Warning",
    note: decision.reasons.join("\n"),
    regarding: {
      apiVersion: group ? `${group}/${version}` : version,
      kind: request.kind.kind || decision.kind,
      name,
      namespace: request.namespace,
      ...(uid ? { uid } : {}),
    },
  };
}

/** The Event for a denial, or undefined when the object cannot be named. */
export function denialEvent(
  request: AdmissionRequest,
  decision: AdmissionDecision,
  reporter: EventReporter,
): Record<string, unknown> | undefined {
  const spec = denialEventSpec(request, decision);
  return spec && eventObject(spec, reporter);
}

/** Creates a recorder that writes Events through the API server. */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  // Keyed by the object and the note (at most EVENT_NOTE_LIMIT characters): bounded by count
  // and bytes.
  const recent = new TtlCache<string, true>({
    name: "event-dedup",
    ttlMs: 60_000,
    maxEntries: 4096,
    maxBytes: CACHE_BYTES["event-dedup"],
  });
  const events = createKubeEventRecorder({
    client: options.client,
    controller: options.controller ?? "toolkit.dev/image-security",
    instance: options.instance,
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    isRepeat(identity) {
      if (recent.get(identity)) return true;
      recent.set(identity, true);
      return false;
    },
  });
  return {
    stats: () => recent.stats(),
    denied(request, decision) {
      if (request.dryRun) return;
      const spec = denialEventSpec(request, decision);
      if (spec !== undefined) events.record(spec);
    },
  };
}
