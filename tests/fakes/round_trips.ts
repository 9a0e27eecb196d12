/**
 * A registry client that counts sequential round trips: the reads of the wrapped client
 * (manifests, blobs, referrers, digests) are held and let through in waves, the next wave once
 * every read let through before has been answered and no read has arrived for a quiet moment.
 * A read's round trip is its wave's number: reads sent together share one, and a read that
 * needs another's answer comes in a later wave. Tests assert counts with it (round trips,
 * requests), never times; a quiet moment longer than any pause between reads sent together only
 * makes the test slower, never the count smaller.
 *
 * @module
 */
import type { RegistryClient } from "../../lib/registry/mod.ts";

/** One read, as it was let through. */
export interface CountedRead {
  readonly method: string;
  /** The repository and what was read (tag or digest). */
  readonly what: string;
  /** Its round trip: 1 for the first wave. */
  readonly wave: number;
}

/** The counting client and what it counted. */
export interface RoundTripCounter extends Disposable {
  readonly client: RegistryClient;
  readonly reads: CountedRead[];
  /** The sequential round trips so far (the last wave's number). */
  roundTrips(): number;
}

const READS = new Set(["getManifest", "headManifest", "getBlob", "getReferrers", "resolveDigest"]);

/** Wraps `client`: see the module's documentation. */
export function countRoundTrips(client: RegistryClient, quietMs = 100): RoundTripCounter {
  const reads: CountedRead[] = [];
  let wave = 0;
  let inFlight = 0;
  let held: { what: string; method: string; go: () => void }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const release = () => {
    timer = undefined;
    if (inFlight > 0 || held.length === 0) return;
    wave++;
    const batch = held;
    held = [];
    inFlight += batch.length;
    for (const read of batch) {
      reads.push({ method: read.method, what: read.what, wave });
      read.go();
    }
  };
  const schedule = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (inFlight === 0 && held.length > 0) timer = setTimeout(release, quietMs);
  };
  const describe = (args: unknown[]) => {
    const ref = args[0] as { path?: string; tag?: string; digest?: string };
    const at = typeof args[1] === "string" ? args[1] : ref.digest ?? ref.tag ?? "";
    return `${ref.path ?? ""}@${at}`;
  };
  const wrapped = new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !READS.has(property) || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        await new Promise<void>((go) => {
          held.push({ method: property, what: describe(args), go });
          schedule();
        });
        try {
          return await value.apply(target, args);
        } finally {
          inFlight--;
          schedule();
        }
      };
    },
  });
  return {
    client: wrapped,
    reads,
    roundTrips: () => wave,
    [Symbol.dispose]: () => {
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
