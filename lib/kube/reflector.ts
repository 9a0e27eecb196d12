/**
 * List and watch one collection of the API server, keeping a local copy (an informer's
 * reflector): a paged list, then a watch from its `resourceVersion` with bookmarks, restarted
 * where it left off when the server ends it, and re-listed when the version is too old
 * (`410 Gone`). Failures are retried with backoff; the copy stays as it was meanwhile (a list
 * that fails part way has updated the objects of its pages, and removed none).
 *
 * @module
 */
import { KUBE_JSON_MAX_DEPTH, type KubeClient } from "./client.ts";
import {
  apiVersionOf,
  type KubeList,
  type KubeObject,
  resourcePath,
  type ResourceType,
} from "./resources.ts";
import { parseJson, safeExcerpt } from "../errors.ts";
import { checkJsonShape, jsonLimitsForLength } from "../json_shape.ts";

/** What to watch. */
export interface ReflectorOptions {
  /** For messages: `ClusterImagePolicies`. */
  readonly name: string;
  /** The resource (its items get its `apiVersion` and `kind`, which lists leave out). */
  readonly type: ResourceType;
  /** The namespace to watch in; all namespaces when absent. */
  readonly namespace?: string;
  /** Label selector. */
  readonly labelSelector?: string;
  /** Field selector. */
  readonly fieldSelector?: string;
  /** Called after every change of the copy (and after each list). */
  readonly onChange?: () => void;
  /** Receives a message when listing or watching fails. */
  readonly onError?: (message: string) => void;
  /** How long the server keeps a watch open. @default 300 */
  readonly watchTimeoutSeconds?: number;
  /**
   * What of each object is kept (say, without its `status`), so that a copy of many objects holds
   * only what its reader needs; undefined: the object is not held (a copy held under its name is
   * dropped). Called before the copy is held, so a reader that bounds what is held counts it
   * here. @default the whole object
   */
  readonly keep?: (object: KubeObject) => KubeObject | undefined;
  /**
   * Told of every copy that leaves the copy: replaced by a newer one, deleted, absent from a
   * re-list, or dropped by {@linkcode Reflector.drop}.
   */
  readonly onDrop?: (copy: KubeObject) => void;
}

function key(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
}

/** A running list+watch. */
export class Reflector {
  readonly #client: KubeClient;
  readonly #options: ReflectorOptions;
  readonly #items = new Map<string, KubeObject>();
  readonly #abort = new AbortController();
  #synced = false;
  #resolveSynced!: () => void;
  #loop?: Promise<void>;
  #sleepTimer: ReturnType<typeof setTimeout> | undefined;
  #wake: (() => void) | undefined;
  /** Resolves after the first complete list. */
  readonly whenSynced: Promise<void>;

  /** Creates a reflector; {@linkcode start} runs it. */
  constructor(client: KubeClient, options: ReflectorOptions) {
    this.#client = client;
    this.#options = options;
    this.whenSynced = new Promise((resolve) => (this.#resolveSynced = resolve));
  }

  /** True once the first list has completed. */
  get synced(): boolean {
    return this.#synced;
  }

  /** The objects held. */
  items(): KubeObject[] {
    return [...this.#items.values()];
  }

  /**
   * Drops the held copies `filter` picks (a reader that stops holding a namespace); later events
   * of those objects go through `keep` again. Returns how many were dropped.
   */
  drop(filter: (copy: KubeObject) => boolean): number {
    let dropped = 0;
    for (const [k, copy] of this.#items) {
      if (!filter(copy)) continue;
      this.#remove(k);
      dropped++;
    }
    return dropped;
  }

  /** An object by namespace and name. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.#items.get(`${namespace}/${name}`);
  }

  /** Starts listing and watching. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops and waits for the loop to end. */
  async stop(): Promise<void> {
    this.#abort.abort();
    clearTimeout(this.#sleepTimer);
    this.#wake?.();
    await this.#loop;
  }

  get #path(): string {
    return resourcePath(this.#options.type, this.#options.namespace);
  }

  #query(extra: Record<string, string>): Record<string, string | undefined> {
    return {
      ...extra,
      labelSelector: this.#options.labelSelector,
      fieldSelector: this.#options.fieldSelector,
    };
  }

  #normalise(o: KubeObject): KubeObject | undefined {
    const normal = {
      ...o,
      apiVersion: o.apiVersion ?? apiVersionOf(this.#options.type),
      kind: o.kind ?? this.#options.type.kind,
    };
    return this.#options.keep ? this.#options.keep(normal) : normal;
  }

  /** Removes the copy under `k`, telling `onDrop`. */
  #remove(k: string): void {
    const copy = this.#items.get(k);
    if (copy === undefined) return;
    this.#items.delete(k);
    this.#options.onDrop?.(copy);
  }

  /**
   * Holds `object`'s copy under its name (what `keep` makes of it), in place of the one held:
   * the one it replaces is let go first, so that a reader counting what is held never counts
   * both.
   */
  #hold(object: KubeObject): void {
    const k = key(object);
    this.#remove(k);
    const copy = this.#normalise(object);
    if (copy !== undefined) this.#items.set(k, copy);
  }

  async #list(): Promise<string> {
    // The copy is updated in place as pages arrive (each object replacing its own copy, never
    // two copies of the whole collection at once); what the list no longer has goes at its end.
    const seen = new Set<string>();
    let next = "";
    let version = "";
    do {
      const list = await this.#client.request<
        KubeList & { metadata?: { resourceVersion?: string; continue?: string } }
      >("GET", this.#path, {
        query: this.#query({ limit: "500", ...(next ? { continue: next } : {}) }),
        action: `list ${this.#options.name}`,
        signal: this.#abort.signal,
      });
      for (const item of list?.items ?? []) {
        seen.add(key(item));
        this.#hold(item);
      }
      next = list?.metadata?.continue ?? "";
      version = list?.metadata?.resourceVersion ?? "";
    } while (next !== "");
    for (const k of [...this.#items.keys()]) if (!seen.has(k)) this.#remove(k);
    if (!this.#synced) {
      this.#synced = true;
      this.#resolveSynced();
    }
    this.#options.onChange?.();
    return version;
  }

  /** Watches from `version`; returns the last version seen, or undefined to re-list. */
  async #watch(version: string): Promise<string | undefined> {
    // The server ends a watch after timeoutSeconds; a connection that died silently is cut a
    // little later on this side.
    const seconds = this.#options.watchTimeoutSeconds ?? 300;
    const cut = new AbortController();
    const timer = setTimeout(() => cut.abort(), (seconds + 30) * 1000);
    try {
      return await this.#watchUntil(
        version,
        seconds,
        AbortSignal.any([this.#abort.signal, cut.signal]),
      );
    } finally {
      clearTimeout(timer);
    }
  }

  async #watchUntil(
    version: string,
    seconds: number,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const response = await this.#client.open("GET", this.#path, {
      query: this.#query({
        watch: "1",
        resourceVersion: version,
        allowWatchBookmarks: "true",
        timeoutSeconds: String(seconds),
      }),
      signal,
    });
    if (response.status === 410) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok || response.body === null) {
      await this.#client.readAnswer(response, "GET", this.#path, {
        action: `watch ${this.#options.name}`,
      });
      return version;
    }
    let current = version;
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line === "") continue;
        // One object a line: its shape counted before it is parsed, as any answer's.
        checkJsonShape(line, jsonLimitsForLength(line.length, KUBE_JSON_MAX_DEPTH), "the event");
        const event = parseJson(line) as { type?: string; object?: KubeObject };
        const object = event.object ?? { metadata: { name: "" } };
        if (event.type === "ERROR") {
          const status = object as { code?: number; message?: string };
          if (status.code === 410) return undefined;
          throw new Error(
            `the watch of ${this.#options.name} failed: ${
              status.message ? safeExcerpt(status.message, { maxChars: 500 }) : "error"
            }`,
          );
        }
        const rv = object.metadata?.resourceVersion;
        if (rv) current = rv;
        if (event.type === "BOOKMARK") continue;
        if (event.type === "DELETED") this.#remove(key(object));
        else if (event.type === "ADDED" || event.type === "MODIFIED") this.#hold(object);
        else continue;
        this.#options.onChange?.();
      }
    }
    return current;
  }

  async #sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
      this.#sleepTimer = setTimeout(resolve, ms);
    });
    this.#wake = undefined;
  }

  async #run(): Promise<void> {
    let backoff = 500;
    while (!this.#abort.signal.aborted) {
      try {
        let version: string | undefined = await this.#list();
        backoff = 500;
        while (version !== undefined && !this.#abort.signal.aborted) {
          version = await this.#watch(version);
          backoff = 500;
        }
      } catch (error) {
        if (this.#abort.signal.aborted) break;
        this.#options.onError?.(error instanceof Error ? error.message : String(error));
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }
}
