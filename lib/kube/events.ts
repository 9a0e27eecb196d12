/**
 * Kubernetes Events (`events.k8s.io/v1`): what happened to an object, reported by a
 * controller, so `kubectl describe` and `kubectl get events` show it. Recording is best effort:
 * a failure goes to `onError`, never to the caller; repeats can be dropped by the caller's
 * `isRepeat` (controllers retry, and the same Event a second later says nothing new).
 *
 * @module
 */
import type { KubeClient } from "./client.ts";
import { EVENTS, type KubeObject } from "./resources.ts";

/** The longest `note` the API server accepts, in characters. */
export const EVENT_NOTE_LIMIT = 1024;

/** What an Event says. */
export interface EventSpec {
  /** The namespace of the Event (the object's). */
  readonly namespace: string;
  /** The object the Event is about. */
  readonly regarding: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
  };
  /** `Normal` or `Warning`. */
  readonly type: "Normal" | "Warning";
  /** Why, in UpperCamelCase: `ImagePolicyDenied`. */
  readonly reason: string;
  /** What was done: `Create`, `Update`. */
  readonly action: string;
  /** A human-readable message (cut to {@linkcode EVENT_NOTE_LIMIT}). */
  readonly note: string;
}

/** Who reports an Event, and when. */
export interface EventReporter {
  /** `reportingController`: `toolkit.dev/image-security`. */
  readonly controller: string;
  /** `reportingInstance`: the Pod name. */
  readonly instance: string;
  /** The time of the Event. */
  readonly now: Date;
  /** The end of the Event's name, unique per Event. */
  readonly suffix: string;
}

/** The note of an Event, cut to {@linkcode EVENT_NOTE_LIMIT}. */
export function eventNote(note: string): string {
  return note.length > EVENT_NOTE_LIMIT ? `${note.slice(0, EVENT_NOTE_LIMIT - 3)}...` : note;
}

/** The Event object for `spec`, named after the object it is about. */
export function eventObject(spec: EventSpec, reporter: EventReporter): KubeObject {
  const base = spec.regarding.name.replace(/[^a-z0-9.-]/g, "-").replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 200) || "object";
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: `${base}.${reporter.suffix}`, namespace: spec.namespace },
    eventTime: reporter.now.toISOString().replace(/Z$/, "000Z"),
    reportingController: reporter.controller,
    reportingInstance: reporter.instance,
    action: spec.action,
    reason: spec.reason,
    type: spec.type,
    note: eventNote(spec.note),
    regarding: spec.regarding,
  };
}

/** Records Events. */
export interface KubeEventRecorder {
  /** Records an Event (best effort: failures go to `onError`). */
  record(spec: EventSpec): void;
}

/** How Events are written. */
export interface KubeEventRecorderOptions {
  /** The client of the API server. */
  readonly client: KubeClient;
  /** `reportingController`. */
  readonly controller: string;
  /** `reportingInstance`: the Pod name. */
  readonly instance: string;
  /** Receives failures to write an Event. */
  readonly onError?: (message: string) => void;
  /** The clock. @default `() => new Date()` */
  readonly clock?: () => Date;
  /**
   * True when an Event with this identity (namespace, object, note) was recorded recently and
   * is to be dropped; called once per Event.
   */
  readonly isRepeat?: (identity: string) => boolean;
}

function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Creates a recorder that writes Events through the API server. */
export function createKubeEventRecorder(options: KubeEventRecorderOptions): KubeEventRecorder {
  const clock = options.clock ?? (() => new Date());
  return {
    record(spec) {
      const { kind, name } = spec.regarding;
      if (options.isRepeat?.(`${spec.namespace}/${kind}/${name}\n${eventNote(spec.note)}`)) return;
      const event = eventObject(spec, {
        controller: options.controller,
        instance: options.instance,
        now: clock(),
        suffix: randomSuffix(),
      });
      options.client.create(EVENTS, event, { action: `create an Event in "${spec.namespace}"` })
        .catch((error) =>
          options.onError?.(error instanceof Error ? error.message : String(error))
        );
    },
  };
}
