/**
 * Objects the cluster source reads when a review needs them (pull Secrets, store Secrets, key
 * Secrets and trust roots beyond the watched ones, ServiceAccounts), bounded in bytes at every
 * step, because a request names them and their size is whatever the namespace's owner made it
 * (the API server stores Secrets of up to 1 MiB of data; etcd takes requests of 1.5 MiB):
 *
 * - **one answer**: read from the API server as a stream and counted before it is kept; past the
 *   reader's `maxBytes` (at most {@linkcode MAX_OBJECT_BYTES}) the rest is never read and the
 *   object is refused with {@linkcode ObjectTooLargeError};
 * - **answers in flight**: each read reserves its limit from one pool of
 *   {@linkcode READ_POOL_BYTES} before it sends the request, and gives it back once the answer is
 *   parsed and cut down to what the decision uses (reads past the pool wait in line, within
 *   {@linkcode READ_TIMEOUT_MS});
 * - **what is kept**: the object cut down to what the decision reads (a Secret's data, a
 *   ServiceAccount's pull Secret names: no annotations, no managed fields), in a
 *   {@linkcode TtlCache} bounded by count and by the bytes of that data (a key and its value
 *   count, not the object's name). That an object was too large is remembered too, so a flood of
 *   reviews naming it reads it once per lifetime.
 *
 * Two reviews that need one object while it is being read share the read.
 *
 * @module
 */
import { CACHE_BYTES, POOL_BYTES } from "./memory_budget.ts";
import { readStreamLimited } from "../bytes.ts";
import { type CacheStats, SingleFlight, TtlCache } from "./cache.ts";
import { PolicySourceError } from "./errors.ts";
import {
  describeObject,
  KubeAnswerError,
  KubeApiError,
  type KubeClient,
  NoClusterContextError,
  resourcePath,
  type ResourceType,
} from "../kube/mod.ts";
import { MemoryPool, type MemoryPoolStats } from "../read_budget.ts";
import {
  type ConfigMapData,
  ObjectTooLargeError,
  type SecretData,
  type ServiceAccountData,
} from "./source.ts";

/**
 * The most bytes of one answer of the API server read for an object on demand: more than any
 * Secret or ConfigMap etcd stores (1.5 MiB a request; binary data is base64 in JSON, 4/3 of it).
 */
export const MAX_OBJECT_BYTES = 3 * 1024 * 1024;

/** The most bytes of one ServiceAccount's answer (its pull Secret names; a few hundred bytes). */
export const MAX_SERVICE_ACCOUNT_BYTES = 256 * 1024;

/** The bytes that answers read on demand may hold at once, all reads together. */
export const READ_POOL_BYTES = POOL_BYTES.objectReads;

/** The most bytes of data the Secret cache (and the ConfigMap cache) keeps. */
export const SECRET_CACHE_BYTES = CACHE_BYTES.secret;

/** How long one read may take, waiting for the pool included. */
export const READ_TIMEOUT_MS = 10_000;

/** The bytes an entry costs besides its data (its key, the object, the map). */
const ENTRY_OVERHEAD = 128;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** What is remembered of one read: the object (undefined: it does not exist), or that it was too large. */
type Outcome<T> =
  | { readonly value: T | undefined; readonly answerBytes: number }
  | { readonly over: number };

/** How one kind of object is read and kept. */
export interface ObjectKind<T> {
  /** The cache's name, for metrics. */
  readonly name: string;
  /** The resource. */
  readonly type: ResourceType;
  /** The most objects kept. */
  readonly maxEntries: number;
  /** The most bytes kept (by `sizeOf`). */
  readonly maxBytes: number;
  /** What the decision uses of the object (everything else is dropped before it is kept). */
  readonly strip: (object: Record<string, unknown>, namespace: string, name: string) => T;
  /** The bytes the kept object holds. */
  readonly sizeOf: (value: T) => number;
}

/** Reads objects of one kind on demand: see the module. */
export interface ObjectReader<T> {
  /**
   * The object, or undefined when it does not exist. `onFresh` is called when it was read from
   * the API server (not the cache).
   *
   * @throws {ObjectTooLargeError} when its answer is over `maxBytes`.
   * @throws {PolicySourceError} when it cannot be read.
   */
  read(
    namespace: string,
    name: string,
    maxBytes: number,
    onFresh?: () => void,
  ): Promise<T | undefined>;
  /** The cache's size and bounds. */
  stats(): CacheStats;
}

/** How the reads are bounded (tests make them small). */
export interface OnDemandReadOptions {
  /** @default {@linkcode READ_POOL_BYTES} */
  readonly poolBytes?: number;
  /** @default {@linkcode READ_TIMEOUT_MS} */
  readonly timeoutMs?: number;
  /** The clock of the caches. @default `Date.now` */
  readonly now?: () => number;
}

/** The reads on demand of one cluster source: one pool for all kinds. */
export class OnDemandReads {
  readonly #client: KubeClient;
  readonly #ttlMs: number;
  readonly #pool: MemoryPool;
  readonly #timeoutMs: number;
  readonly #now: (() => number) | undefined;

  /** Creates the reads; objects are kept `ttlMs`. */
  constructor(client: KubeClient, ttlMs: number, options: OnDemandReadOptions = {}) {
    this.#client = client;
    this.#ttlMs = ttlMs;
    this.#pool = new MemoryPool(options.poolBytes ?? READ_POOL_BYTES);
    this.#timeoutMs = options.timeoutMs ?? READ_TIMEOUT_MS;
    this.#now = options.now;
  }

  /** The pool of answers in flight. */
  poolStats(): MemoryPoolStats {
    return this.#pool.stats();
  }

  /** A reader of one kind of object. */
  kind<T>(kind: ObjectKind<T>): ObjectReader<T> {
    const cache = new TtlCache<string, Outcome<T>>({
      name: kind.name,
      ttlMs: this.#ttlMs,
      maxEntries: kind.maxEntries,
      maxBytes: kind.maxBytes,
      sizeOf: (key, outcome) =>
        key.length + ENTRY_OVERHEAD +
        ("value" in outcome && outcome.value !== undefined ? kind.sizeOf(outcome.value) : 0),
      ...(this.#now ? { now: this.#now } : {}),
    });
    const flights = new SingleFlight<string, Outcome<T>>();
    const use = (outcome: Outcome<T>, what: string, maxBytes: number): T | undefined => {
      if ("over" in outcome) throw new ObjectTooLargeError(what, maxBytes);
      if (outcome.answerBytes > maxBytes) throw new ObjectTooLargeError(what, maxBytes);
      return outcome.value;
    };
    return {
      read: async (namespace, name, maxBytes, onFresh) => {
        const key = `${namespace}/${name}`;
        const what = describeObject(kind.type, namespace, name);
        const limit = Math.min(maxBytes, MAX_OBJECT_BYTES, this.#pool.capacity);
        const cached = cache.get(key);
        // Too large for a smaller limit says nothing of a larger one: that is read again.
        if (cached !== undefined && !("over" in cached && cached.over < limit)) {
          return use(cached, what, limit);
        }
        const outcome = await flights.run(`${key}@${limit}`, async () => {
          const read = await this.#read(kind, namespace, name, limit);
          cache.set(key, read);
          onFresh?.();
          return read;
        });
        return use(outcome, what, limit);
      },
      stats: () => cache.stats(),
    };
  }

  async #read<T>(
    kind: ObjectKind<T>,
    namespace: string,
    name: string,
    limit: number,
  ): Promise<Outcome<T>> {
    const { type } = kind;
    const path = resourcePath(type, namespace, name);
    const action = `read ${describeObject(type, namespace, name)}`;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.#timeoutMs / 1000}s`)),
      this.#timeoutMs,
    );
    try {
      // The answer's bytes are reserved before the request is sent.
      using _reserved = await this.#pool.reserve(limit, controller.signal);
      const response = await this.#client.open("GET", path, { action, signal: controller.signal });
      if (response.status === 404) {
        await response.body?.cancel().catch(() => {});
        return { value: undefined, answerBytes: 0 };
      }
      const read = response.body === null
        ? { bytes: new Uint8Array(), overLimit: false }
        : await readStreamLimited(response.body, limit);
      if (read.overLimit) {
        if (response.ok) return { over: limit };
        throw new PolicySourceError(
          `Cannot ${action}: the API server's answer (status ${response.status}) is larger than ${limit} bytes`,
        );
      }
      const object = await this.#client.readAnswer(
        new Response(read.bytes as Uint8Array<ArrayBuffer>, { status: response.status }),
        "GET",
        path,
        { action },
      );
      if (!isObject(object)) {
        throw new PolicySourceError(`Cannot ${action}: the API server's answer is not an object`);
      }
      return { value: kind.strip(object, namespace, name), answerBytes: read.bytes.byteLength };
    } catch (error) {
      if (error instanceof PolicySourceError) throw error;
      throw sourceError(error, action);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A failure to read, as the decision reports it: a refusal says what was read. */
function sourceError(error: unknown, action: string): PolicySourceError {
  const message = error instanceof KubeApiError || error instanceof KubeAnswerError
    ? error.message
    : `Cannot ${action}: ${
      error instanceof NoClusterContextError
        ? error.detail
        : error instanceof Error
        ? error.message
        : String(error)
    }`;
  return new PolicySourceError(message, { cause: error });
}

function metadataOf(object: Record<string, unknown>, namespace: string, name: string) {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const version = metadata.resourceVersion;
  return { name, namespace, ...(typeof version === "string" ? { resourceVersion: version } : {}) };
}

/** The string values of a map (own properties only: `__proto__` is a key like any other). */
function strings(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] =>
      typeof entry[1] === "string"
    ),
  );
}

/** What the decision reads of a Secret: its type and data. */
export function stripSecret(
  object: Record<string, unknown>,
  namespace: string,
  name: string,
): SecretData {
  const data = strings(object.data);
  return {
    metadata: metadataOf(object, namespace, name),
    ...(typeof object.type === "string" ? { type: object.type } : {}),
    ...(data ? { data } : {}),
  };
}

/** What the decision reads of a ConfigMap: its data and binary data. */
export function stripConfigMap(
  object: Record<string, unknown>,
  namespace: string,
  name: string,
): ConfigMapData {
  const data = strings(object.data);
  const binaryData = strings(object.binaryData);
  return {
    metadata: metadataOf(object, namespace, name),
    ...(data ? { data } : {}),
    ...(binaryData ? { binaryData } : {}),
  };
}

/** What the decision reads of a ServiceAccount: the names of its pull Secrets. */
export function stripServiceAccount(
  object: Record<string, unknown>,
  namespace: string,
  name: string,
): ServiceAccountData {
  const pull = Array.isArray(object.imagePullSecrets) ? object.imagePullSecrets : [];
  return {
    metadata: { name, namespace },
    imagePullSecrets: pull.filter(isObject).map((r) => ({
      name: typeof r.name === "string" ? r.name : "",
    })),
  };
}

/** The bytes of a ConfigMap's data: keys and values, text and binary. */
export function configMapDataBytes(configMap: ConfigMapData): number {
  let bytes = 0;
  for (const map of [configMap.data, configMap.binaryData]) {
    for (const [key, value] of Object.entries(map ?? {})) bytes += key.length + value.length;
  }
  return bytes;
}
