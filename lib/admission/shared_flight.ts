/**
 * Work shared by the reviews that need it, and only while one of them does: one flight per key,
 * joined by every caller that asks for the same key while it runs, each under its own signal.
 * A caller whose signal aborts stops waiting at once (its promise rejects with the signal's
 * reason); when the last caller has left, the flight's own signal aborts, so registry requests,
 * memory reservations and deadlines end with the reviews that wanted them, and the key is free
 * for a new flight. A caller without a signal stays to the end.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";
import { raceSignal } from "./errors.ts";

/** The reason a flight's signal aborts with when nobody waits for it any more. */
export class FlightAbandonedError extends ToolkitError {
  /** Creates the error. */
  constructor() {
    super("Cannot finish the shared work: no review waits for it any more");
    this.name = "FlightAbandonedError";
  }
}

interface Flight<V> {
  readonly controller: AbortController;
  readonly promise: Promise<V>;
  /** The callers waiting for it. */
  members: number;
}

/** Flights by key, each reference-counted by its callers. */
export class SharedFlights<K, V> {
  readonly #flights = new Map<K, Flight<V>>();

  /** The flights running. */
  get size(): number {
    return this.#flights.size;
  }

  /** The callers waiting for the flight of `key` (0 when there is none). */
  members(key: K): number {
    return this.#flights.get(key)?.members ?? 0;
  }

  /**
   * Joins the flight of `key`, or starts one with `start` (given the flight's signal, which
   * aborts when every caller has left). Settles as the flight does, or rejects with `signal`'s
   * reason when it aborts first.
   */
  join(key: K, start: (signal: AbortSignal) => Promise<V>, signal?: AbortSignal): Promise<V> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    let flight = this.#flights.get(key);
    if (flight === undefined) flight = this.#start(key, start);
    flight.members++;
    const joined = flight;
    if (signal === undefined) return joined.promise;
    // A caller whose signal aborts leaves the flight (the last one to leave aborts it).
    const leave = () => this.#leave(key, joined);
    signal.addEventListener("abort", leave, { once: true });
    return raceSignal(joined.promise, signal).finally(() =>
      signal.removeEventListener("abort", leave)
    );
  }

  #start(key: K, start: (signal: AbortSignal) => Promise<V>): Flight<V> {
    const controller = new AbortController();
    let promise: Promise<V>;
    try {
      promise = start(controller.signal);
    } catch (error) {
      promise = Promise.reject(error);
    }
    const flight: Flight<V> = {
      controller,
      promise: promise.finally(() => {
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
      }),
      members: 0,
    };
    // Every caller may have left before it settles: its outcome is then nobody's.
    flight.promise.catch(() => {});
    this.#flights.set(key, flight);
    return flight;
  }

  #leave(key: K, flight: Flight<V>): void {
    if (--flight.members > 0) return;
    if (this.#flights.get(key) === flight) this.#flights.delete(key);
    flight.controller.abort(new FlightAbandonedError());
  }
}
