/**
 * Idempotent writes: create an object, or compare it with what is there and update it only
 * when it differs, and say which of these happened. A second run with the same input reports
 * `unchanged` for everything and sends no write.
 *
 * Comparison: the desired labels and annotations must be present with the same values (others
 * on the live object are kept); `data`, `binaryData` and `type` must be equal; every other
 * top-level field of the desired object must be contained in the live one, so fields the server
 * fills in by default do not count as differences. An update keeps the live object's other
 * labels and annotations and replaces the desired top-level fields wholesale.
 *
 * @module
 */
import { encodeBase64 } from "../base64.ts";
import { isStatus } from "./errors.ts";
import type { KubeClient } from "./client.ts";
import type { KubeObject, ResourceType } from "./resources.ts";

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

const EXACT_FIELDS = new Set(["data", "binaryData", "type"]);
const IGNORED_FIELDS = new Set(["apiVersion", "kind", "metadata", "status"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `a` and `b` are the same JSON value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * True when `live` contains `desired`: every key of a desired map is in the live map with a
 * contained value; lists have the same length and contained items; scalars are equal.
 */
export function contains(live: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length &&
      desired.every((v, i) => contains(live[i], v));
  }
  if (isRecord(desired)) {
    return isRecord(live) &&
      Object.entries(desired).every(([k, v]) => v === undefined || contains(live[k], v));
  }
  return live === desired;
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

/** True when the live object already matches the desired one (see the module doc). */
export function matches(live: KubeObject, desired: KubeObject): boolean {
  for (const key of ["labels", "annotations"] as const) {
    const want = desired.metadata[key] ?? {};
    const have = live.metadata[key] ?? {};
    if (!Object.entries(want).every(([k, v]) => have[k] === v)) return false;
  }
  for (const [key, value] of Object.entries(desired)) {
    if (IGNORED_FIELDS.has(key) || value === undefined) continue;
    if (EXACT_FIELDS.has(key)) {
      if (!jsonEqual(live[key] ?? (key === "type" ? undefined : {}), value)) return false;
    } else if (!contains(live[key], value)) return false;
  }
  return true;
}

/** The object to send to update `live` to `desired`. */
export function mergeForUpdate(live: KubeObject, desired: KubeObject): KubeObject {
  const merged: KubeObject = { ...live, metadata: { ...live.metadata } };
  for (const key of ["labels", "annotations"] as const) {
    const want = desired.metadata[key];
    if (want) merged.metadata[key] = { ...(live.metadata[key] ?? {}), ...want };
  }
  for (const [key, value] of Object.entries(desired)) {
    if (IGNORED_FIELDS.has(key) || value === undefined) continue;
    merged[key] = value;
  }
  delete merged.status;
  return merged;
}

/**
 * Writes one object: creates it when absent; otherwise leaves it (`ifExists: "skip"`), or
 * updates it when it differs. Update conflicts (409) are retried on a fresh read.
 */
export async function applyObject(
  client: KubeClient,
  type: ResourceType,
  desired: KubeObject,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const want = type.kind === "Secret" ? foldStringData(desired) : desired;
  const { name, namespace } = want.metadata;
  const result = (outcome: ApplyOutcome, object: KubeObject): ApplyResult => ({
    outcome,
    type,
    ...(type.namespaced && namespace ? { namespace } : {}),
    name,
    object,
  });
  let live = options.existing === undefined
    ? await client.read(type, namespace, name)
    : options.existing ?? undefined;
  for (let attempt = 0;; attempt++) {
    if (!live) {
      try {
        return result("created", await client.create(type, want));
      } catch (error) {
        if (!isStatus(error, 409) || attempt >= 3) throw error;
        live = await client.read(type, namespace, name);
        continue;
      }
    }
    if (options.ifExists === "skip") return result("skipped", live);
    if (matches(live, want)) return result("unchanged", live);
    try {
      return result("updated", await client.replace(type, mergeForUpdate(live, want)));
    } catch (error) {
      if (!isStatus(error, 409) || attempt >= 3) throw error;
      live = await client.read(type, namespace, name);
    }
  }
}

/** Runs `work` over `items` with at most `limit` running at once, keeping the order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
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
