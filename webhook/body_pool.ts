/**
 * The memory of request bodies in flight, one pool across every connection.
 *
 * Each connection may read one body of at most `--max-request-bytes`; without a pool in common,
 * 512 connections could hold as many bodies at once (128 clients each sending an 8 MiB
 * `Content-Length` and all but its last byte took the webhook from 79 to 400 MiB), and the
 * parse of each holds many times its bytes. So a connection reserves what its request may cost
 * from the {@linkcode BodyPool} **before** it keeps any of it: its bytes (the body, its text and
 * the strings parsed from it) when the head arrives, and the values the parse will allocate as
 * the body's shape is counted chunk by chunk (`http1.ts`). It gives the reservation back when
 * the request's answer is written or the connection ends, however it ends. A reservation that
 * does not fit is refused at once (the connection answers 503 and closes without reading the
 * body): nothing waits while holding memory.
 *
 * @module
 */

/**
 * What a request costs per byte of its body: the bytes, their text, the strings parsed from them
 * (one byte a character for Latin-1 text, as Kubernetes objects are), and one to spare.
 */
export const BODY_BYTE_COST = 4;
/**
 * What a request costs per JSON value of its body: the most one parsed value was measured to hold
 * on V8's heap (Deno 2, pointer compression): an empty object 64 bytes with its slot in its
 * parent, a key of a large object 43, an empty array 40, a short distinct string 28, a number 8.
 * For a realistic review the cost counted is about 2–3 times the heap it takes.
 */
export const BODY_VALUE_COST = 64;

/** What the pool holds, for `/metrics`. */
export interface BodyPoolStats {
  /** The pool's size in bytes. */
  readonly capacity: number;
  /** Bytes reserved now. */
  readonly reserved: number;
  /** The most bytes ever reserved at once. */
  readonly peakReserved: number;
  /** Reservations refused because the pool was full. */
  readonly refused: number;
}

/** Bytes taken from a {@linkcode BodyPool}, given back once by {@linkcode release}. */
export interface BodyReservation {
  /** The bytes held now. */
  readonly bytes: number;
  /** Takes `bytes` more; false (and nothing taken) when the pool cannot hold them. */
  grow(bytes: number): boolean;
  /** Gives every byte back. Calling it again does nothing. */
  release(): void;
}

/** The process-wide pool that request bodies are reserved from. */
export class BodyPool {
  /** The pool's size in bytes. */
  readonly capacity: number;
  #reserved = 0;
  #peak = 0;
  #refused = 0;

  /** Creates a pool of `capacity` bytes. */
  constructor(capacity: number) {
    if (!(capacity > 0)) throw new RangeError("a body pool needs a positive capacity");
    this.capacity = capacity;
  }

  /** Reserves `bytes` now, or returns undefined when the pool cannot hold them. */
  tryReserve(bytes: number): BodyReservation | undefined {
    if (!this.#take(bytes)) return undefined;
    let held = bytes;
    let released = false;
    return {
      get bytes() {
        return held;
      },
      grow: (more) => {
        if (released || !this.#take(more)) return false;
        held += more;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#reserved -= held;
        held = 0;
      },
    };
  }

  /** Bytes free now. */
  get free(): number {
    return this.capacity - this.#reserved;
  }

  /** What the pool holds now. */
  stats(): BodyPoolStats {
    return {
      capacity: this.capacity,
      reserved: this.#reserved,
      peakReserved: this.#peak,
      refused: this.#refused,
    };
  }

  #take(bytes: number): boolean {
    if (!(bytes >= 0) || this.#reserved + bytes > this.capacity) {
      this.#refused++;
      return false;
    }
    this.#reserved += bytes;
    if (this.#reserved > this.#peak) this.#peak = this.#reserved;
    return true;
  }
}

/**
 * The deepest nesting a request body may have. A Pod is about 10 levels deep, a Deployment 12,
 * their `managedFields` about 20, and the AdmissionReview around them adds 3: 64 leaves room,
 * and bounds the recursion of whatever walks the parsed object.
 */
export const BODY_MAX_DEPTH = 64;

/**
 * The fewest bytes a request body may spend on each of its values, on average. A realistic Pod's
 * review has 10.4 bytes a value, a 3 MiB Deployment of environment variables 15.3 and one of
 * `managedFields` about 5; `[],[],…` has 3 and `0,0,…` 2. At 4, a parsed body holds at most
 * `4 + 64 / 4` = 20 times its bytes ({@linkcode bodyCost}).
 */
export const BODY_BYTES_PER_VALUE = 4;

/** The shape a request body of `bytes` bytes may have (64 values more, for the smallest). */
export function bodyShapeLimits(bytes: number): { maxValues: number; maxDepth: number } {
  return {
    maxDepth: BODY_MAX_DEPTH,
    maxValues: Math.floor(bytes / BODY_BYTES_PER_VALUE) + 64,
  };
}

/** What a body of `bytes` bytes and `values` JSON values costs, once parsed, at most. */
export function bodyCost(bytes: number, values: number): number {
  return bytes * BODY_BYTE_COST + values * BODY_VALUE_COST;
}
