/**
 * Idempotent writes, and what they did: `created`, `updated`, `unchanged` (or `skipped`). A
 * second run with the same input reports `unchanged` for everything.
 *
 * One strategy: server-side apply as field manager `toolkit` ({@linkcode applyObject}). The
 * server merges the desired fields into the live object (labels, annotations and fields others
 * own are kept; fields toolkit applied before and no longer wants are removed) and changes
 * nothing when nothing differs, so an unmoved `resourceVersion` means `unchanged`. A Secret's
 * `stringData` is folded into `data` first, as the server stores it.
 *
 * The one alternative, {@linkcode updateObject}: read, change, replace (retried on a 409
 * conflict). It is for adding to a list that others also write, such as a ServiceAccount's
 * `imagePullSecrets` or an SCC's `users`: those lists are atomic for server-side apply, so an
 * apply would have to send, and would take over, the whole list.
 *
 * @module
 */
import { encodeBase64 } from "../base64.ts";
import { isStatus } from "./errors.ts";
import { FIELD_MANAGER, type KubeClient } from "./client.ts";
import type { KubeObject, ResourceType } from "./resources.ts";
import { mapLimit } from "../map_limit.ts";

export { mapLimit };

/** What a write did. */
export type ApplyOutcome = "created" | "updated" | "unchanged" | "skipped";

/** The result of writing one object. */
export interface ApplyResult {
  /** What happened. */
  readonly outcome: ApplyOutcome;
  /** The type of the object. */
  readonly type: ResourceType;
  /** Its namespace, for namespaced types. */
  readonly namespace?: string;
  /** Its name. */
  readonly name: string;
  /** The object as the server has it now. */
  readonly object: KubeObject;
}

/** How to write one object. */
export interface ApplyOptions {
  /**
   * The live object when the caller has already read it (from a list, say): `null` when it is
   * known not to exist, undefined to have it read.
   */
  readonly existing?: KubeObject | null;
  /** `update` (default): make the live object match; `skip`: leave an existing one alone. */
  readonly ifExists?: "update" | "skip";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A Secret with its `stringData` folded into base64 `data`, as the server stores it. */
export function foldStringData(object: KubeObject): KubeObject {
  const stringData = object.stringData;
  if (!isRecord(stringData)) return object;
  const data: Record<string, string> = isRecord(object.data)
    ? { ...(object.data as Record<string, string>) }
    : {};
  for (const [k, v] of Object.entries(stringData)) data[k] = encodeBase64(String(v));
  const { stringData: _dropped, ...rest } = object;
  return { ...rest, data } as KubeObject;
}

function applyResult(
  outcome: ApplyOutcome,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  object: KubeObject,
): ApplyResult {
  return { outcome, type, ...(type.namespaced && namespace ? { namespace } : {}), name, object };
}

/** One entry of an object's `metadata.managedFields`: who wrote fields, how, and where. */
export interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly subresource?: string;
}

/** The object's `metadata.managedFields` (none when the server sent none). */
export function fieldManagers(object: KubeObject): readonly ManagedFieldsEntry[] {
  return Array.isArray(object.metadata.managedFields)
    ? object.metadata.managedFields as ManagedFieldsEntry[]
    : [];
}

function isOnlyAppliedByToolkit(object: KubeObject): boolean {
  const managers = fieldManagers(object);
  return managers.length > 0 &&
    managers.every((m) => m.manager === FIELD_MANAGER && m.operation === "Apply");
}

/**
 * Writes one object by server-side apply: creates it when absent; otherwise leaves it
 * (`ifExists: "skip"`), or applies the desired fields and says whether that changed it.
 */
export async function applyObject(
  client: KubeClient,
  type: ResourceType,
  desired: KubeObject,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const want = type.kind === "Secret" ? foldStringData(desired) : desired;
  const { name, namespace } = want.metadata;
  const result = (outcome: ApplyOutcome, object: KubeObject) =>
    applyResult(outcome, type, namespace, name, object);
  const live = options.existing === undefined
    ? await client.read(type, namespace, name)
    : options.existing ?? undefined;
  if (live && options.ifExists === "skip") return result("skipped", live);
  const applied = await client.apply(type, want);
  if (applied.created) return result("created", applied.object);
  if (live) {
    const moved = live.metadata.resourceVersion !== applied.object.metadata.resourceVersion;
    return result(moved ? "updated" : "unchanged", applied.object);
  }
  // It appeared between the read (or the list) and the apply: when only toolkit's apply has
  // written it, another toolkit run created it as it is now; otherwise it was changed.
  return result(
    isOnlyAppliedByToolkit(applied.object) ? "unchanged" : "updated",
    applied.object,
  );
}

/**
 * Changes one object by read, change, replace: `change` gets the live object (undefined when
 * there is none) and returns the object to write, or undefined when nothing is to change. A
 * 409 conflict (someone wrote in between) starts again from a fresh read. Use it only where
 * {@linkcode applyObject} does not fit (see the module doc).
 */
export async function updateObject(
  client: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  change: (live: KubeObject | undefined) => KubeObject | undefined,
): Promise<ApplyResult | undefined> {
  const result = (outcome: ApplyOutcome, object: KubeObject) =>
    applyResult(outcome, type, namespace, name, object);
  for (let attempt = 0;; attempt++) {
    const live = await client.read(type, namespace, name);
    const wanted = change(live);
    if (wanted === undefined) return live ? result("unchanged", live) : undefined;
    try {
      return live
        ? result("updated", await client.replace(type, wanted))
        : result("created", await client.create(type, wanted));
    } catch (error) {
      if (!isStatus(error, 409) || attempt >= 3) throw error;
    }
  }
}

/** Counts of each outcome. */
export type OutcomeCounts = Record<ApplyOutcome, number>;

/** Counts the outcomes of a set of writes. */
export function countOutcomes(results: readonly ApplyResult[]): OutcomeCounts {
  const counts: OutcomeCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0 };
  for (const r of results) counts[r.outcome]++;
  return counts;
}

/** `2 created, 1 unchanged`, or `nothing changed` when there was nothing to create or update. */
export function describeCounts(counts: OutcomeCounts): string {
  const parts = (Object.entries(counts) as Array<[ApplyOutcome, number]>)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${n} ${outcome}`);
  if (counts.created + counts.updated === 0) {
    return parts.length === 0 ? "nothing changed" : `nothing changed (${parts.join(", ")})`;
  }
  return parts.join(", ");
}

/**
 * Whether `live` holds every field of `wanted` with the same value (arrays item by item, other
 * fields of `live` ignored): a desired object that is already in place, defaults the server added
 * aside.
 */
export function containsFields(live: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted)) {
    return Array.isArray(live) && live.length === wanted.length &&
      wanted.every((w, i) => containsFields(live[i], w));
  }
  if (typeof wanted === "object" && wanted !== null) {
    if (typeof live !== "object" || live === null) return false;
    return Object.entries(wanted).every(([k, v]) =>
      containsFields((live as Record<string, unknown>)[k], v)
    );
  }
  return live === wanted;
}
