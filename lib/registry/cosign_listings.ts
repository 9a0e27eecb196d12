/**
 * The referrers lists of one verification, shared by its cosign readers: the signature kind's
 * reader and the attestation kind's read the same `GET /v2/<name>/referrers/<digest>` answer and
 * the same `sha256-<hex>` fallback index of an image (cosign lists an image's signature bundles
 * and attestation bundles together), so each list is asked for once, not once per reader.
 *
 * A {@linkcode CosignListings} belongs to one verification (its signal and read budget): it is
 * passed in, never global. Each list is read with the first reader's signal and budget, under
 * that reader's bounds (readers of other bounds read their own), and what is kept of it is what
 * any reader may use of it; the read is given up once every reader that asked for it has let go
 * (a later reader asks again). A failed read is each reader's to judge (skipped or thrown), as
 * when it read the list alone.
 *
 * @module
 */

/** A read shared by the readers that asked for it. */
export interface SharedRead<T> extends Disposable {
  /** The read's result (the same promise for every reader). */
  readonly result: Promise<T>;
}

interface Entry {
  readonly result: Promise<unknown>;
  readonly stop: AbortController;
  users: number;
}

/** The lists read for one verification, by what was read (see the module's documentation). */
export class CosignListings {
  readonly #entries = new Map<string, Entry>();

  /**
   * The read of `key`: the one under way, or `read` started now (with a signal aborted when
   * `signal` aborts or when every reader has let go). Dispose of the answer when done with it.
   */
  share<T>(
    key: string,
    signal: AbortSignal | undefined,
    read: (signal: AbortSignal) => Promise<T>,
  ): SharedRead<T> {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const stop = new AbortController();
      const result = read(
        signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]),
      );
      result.catch(() => {}); // each reader awaits it, or has let go
      entry = { result, stop, users: 0 };
      this.#entries.set(key, entry);
    }
    const held = entry;
    held.users++;
    let released = false;
    return {
      result: held.result as Promise<T>,
      [Symbol.dispose]: () => {
        if (released) return;
        released = true;
        if (--held.users > 0) return;
        if (this.#entries.get(key) === held) this.#entries.delete(key);
        held.stop.abort(new DOMException("the referrers were read", "AbortError"));
      },
    };
  }
}
