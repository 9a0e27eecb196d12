/**
 * The byte bound of the report controller's copies of the cluster's workloads. The leader keeps a
 * copy of every workload it audits (`auditedPart`: names, owners, image sites, pull credentials),
 * and how many there are is the cluster's to decide, so what they hold is counted before it is
 * held and bounded: each copy is measured as its JSON text is counted (`lib/json_shape.ts`: its
 * characters, and 64 bytes for each JSON value, the most one parsed value was measured to hold)
 * plus what the controller holds to find it again (its name in the reflector's map and in its
 * audit's index), before the reflector keeps it.
 *
 * A copy that does not fit refuses its whole namespace: the namespace's copies held so far are
 * dropped (so that what is left of the bound serves the namespaces that fit), later copies of it
 * are not held, and the controller writes for it a report whose one result is an `error` naming
 * the bound (its workloads are not audited, not silently left out). At most
 * {@linkcode MAX_REFUSED_NAMESPACES} refused namespaces are remembered by name, in a part of the
 * bound set aside for them (1 MiB); past that, no namespace not held already is held any more,
 * and what is not held is counted (`notKept`, on `/metrics`) and logged. Refusals last until the
 * controller's copies are listed again (`forgetRefusals`, at a resync once half the bound is
 * free), or the namespace is deleted (`forgetRefusal`).
 *
 * @module
 */
import { JsonShapeScanner } from "../json_shape.ts";
import type { KubeObject } from "../kube/mod.ts";

/** Bytes counted for each JSON value of a copy (an empty object's heap, as `json_shape.ts`). */
export const COPY_BYTES_PER_VALUE = 64;

/**
 * Bytes counted for each copy besides its JSON: its name in the reflector's map and in a
 * re-list's set of names, and its place in the audit's index by namespace.
 */
export const COPY_OVERHEAD_BYTES = 256;

/** Bytes counted for each namespace held (its entry here and its fingerprint in the controller). */
export const NAMESPACE_OVERHEAD_BYTES = 256;

/** The most refused namespaces remembered by name, each counted at {@linkcode NAMESPACE_OVERHEAD_BYTES}. */
export const MAX_REFUSED_NAMESPACES = 4096;

/** The estimated bytes of a copy held: its JSON text's characters, 64 a value, the overhead. */
export function copyBytes(copy: KubeObject): number {
  const text = JSON.stringify(copy);
  const scanner = new JsonShapeScanner(
    { maxValues: Number.MAX_SAFE_INTEGER, maxDepth: Number.MAX_SAFE_INTEGER },
    "a workload's copy",
  );
  scanner.feed(text);
  return text.length + COPY_BYTES_PER_VALUE * scanner.values + COPY_OVERHEAD_BYTES;
}

/** What is held, for metrics. */
export interface WorkloadCopyStats {
  /** The estimated bytes held now (copies, namespaces, refused names). */
  readonly bytes: number;
  /** The bound. */
  readonly maxBytes: number;
  /** Copies held. */
  readonly copies: number;
  /** Namespaces refused now. */
  readonly refusedNamespaces: number;
  /** Copies not held since the controller started (each time one was offered). */
  readonly notKept: number;
}

/** The accounting of the controller's copies: one instance shared by its reflectors. */
export class WorkloadCopies {
  readonly #maxBytes: number;
  readonly #sizes = new WeakMap<KubeObject, number>();
  readonly #byNamespace = new Map<string, { bytes: number; copies: number }>();
  readonly #refused = new Set<string>();
  /** Bytes of the copies and the namespaces held (not the refused names: their own part). */
  #bytes = 0;
  #copies = 0;
  /** The refused names filled their part: no new namespace is held. */
  #full = false;
  #notKept = 0;
  /** Told when a namespace is refused: its held copies are to be dropped. */
  readonly #onRefused: (namespace: string) => void;

  /** Accounting within `maxBytes`; `onRefused` drops a refused namespace's copies. */
  constructor(maxBytes: number, onRefused: (namespace: string) => void) {
    this.#maxBytes = maxBytes;
    this.#onRefused = onRefused;
  }

  /** The bound in bytes. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  /** The estimated bytes held now: copies, namespaces, refused names. */
  get bytes(): number {
    return this.#bytes + this.#refused.size * NAMESPACE_OVERHEAD_BYTES;
  }

  /** The part of the bound the copies may take: the rest is the refused names'. */
  get #copyRoom(): number {
    return this.#maxBytes - MAX_REFUSED_NAMESPACES * NAMESPACE_OVERHEAD_BYTES;
  }

  /** Whether `namespace`'s copies are refused (its workloads are not audited). */
  refused(namespace: string): boolean {
    return this.#refused.has(namespace);
  }

  /** The namespaces refused now. */
  refusedNamespaces(): string[] {
    return [...this.#refused];
  }

  /** What is held, for metrics. */
  stats(): WorkloadCopyStats {
    return {
      bytes: this.bytes,
      maxBytes: this.#maxBytes,
      copies: this.#copies,
      refusedNamespaces: this.#refused.size,
      notKept: this.#notKept,
    };
  }

  /**
   * Counts `copy` before it is held: returns it when it fits, undefined when not (its namespace
   * is refused then, and its copies held so far dropped through `onRefused`).
   */
  admit(copy: KubeObject): KubeObject | undefined {
    const namespace = copy.metadata.namespace ?? "";
    if (this.#refused.has(namespace)) {
      this.#notKept++;
      return undefined;
    }
    const entry = this.#byNamespace.get(namespace);
    if (entry === undefined && this.#full) {
      this.#notKept++;
      return undefined;
    }
    const size = copyBytes(copy);
    const added = size + (entry === undefined ? NAMESPACE_OVERHEAD_BYTES : 0);
    if (this.#bytes + added > this.#copyRoom) {
      this.#notKept++;
      this.#refuse(namespace);
      return undefined;
    }
    this.#bytes += added;
    this.#copies++;
    this.#sizes.set(copy, size);
    if (entry === undefined) this.#byNamespace.set(namespace, { bytes: size, copies: 1 });
    else {
      entry.bytes += size;
      entry.copies++;
    }
    return copy;
  }

  /** A held copy was let go (replaced, deleted, dropped): its bytes are free again. */
  release(copy: KubeObject): void {
    const size = this.#sizes.get(copy);
    if (size === undefined) return;
    this.#sizes.delete(copy);
    const namespace = copy.metadata.namespace ?? "";
    const entry = this.#byNamespace.get(namespace);
    this.#bytes -= size;
    this.#copies--;
    if (entry === undefined) return;
    entry.bytes -= size;
    entry.copies--;
    if (entry.copies === 0) {
      this.#byNamespace.delete(namespace);
      this.#bytes -= NAMESPACE_OVERHEAD_BYTES;
    }
  }

  /**
   * Forgets the refusal of a namespace that no longer exists (its workloads went with it: any
   * of it seen from now on is seen whole).
   */
  forgetRefusal(namespace: string): void {
    this.#refused.delete(namespace);
  }

  /** Forgets the refusals (before the copies are listed again). */
  forgetRefusals(): void {
    this.#refused.clear();
    this.#full = false;
  }

  #refuse(namespace: string): void {
    if (this.#refused.size < MAX_REFUSED_NAMESPACES) this.#refused.add(namespace);
    else this.#full = true;
    this.#onRefused(namespace);
  }
}
