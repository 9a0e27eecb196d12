/**
 * Verification slots shared fairly between tenants (namespaces) and registry hosts. At most
 * `permits` slots are held at once; each slot is taken for one tenant and one host, and waiters
 * are served round-robin: across tenants, and within a tenant across its hosts.
 *
 * - **Tenants.** While another tenant waits, a tenant that holds its share (`permits` divided by
 *   the tenants holding or waiting for a slot, at least 1) is not given another slot. A tenant
 *   alone may use every slot: an idle system serves whoever asks.
 * - **Hosts.** The same share rule between hosts, and a hard cap besides: no host ever holds more
 *   than `permits - hostReserve` slots, even when it is the only one asked for. A registry that
 *   accepts connections and never answers keeps its slots until the reviews that took them end;
 *   the reserve is what another registry's images find free meanwhile, whatever namespace sends
 *   them (one namespace naming images of both is served on both).
 *
 * A share decides the order only: when nobody else could take a free slot (every other waiter is
 * held back by its host's cap), the slot goes to whoever can take it rather than stay idle.
 *
 * Waiters are queued by tenant, then host. Giving a slot back looks at each of those queues at
 * most once (twice when no share allows anyone), never at each waiter; a waiter that arrives is
 * given a free slot or queued without a search, and one whose signal aborts leaves its queue in
 * constant time.
 *
 * @module
 */

/** A slot held; {@linkcode Slot.release} (or `using`) gives it back, once. */
export interface Slot extends Disposable {
  /** Gives the slot back (a second call does nothing). */
  release(): void;
}

/** Slots for one tenant and host: what a verification takes its slot from. */
export interface SlotSource {
  /** A slot, when its turn comes; rejects with `signal`'s reason when it aborts first. */
  acquire(signal?: AbortSignal): Promise<Slot>;
  /** A slot now, when one is free and nobody waits; else undefined (see `FairSlots`). */
  tryAcquire(): Slot | undefined;
}

/** Who a slot is for. */
export interface SlotKeys {
  /** The tenant (the review's namespace). */
  readonly tenant: string;
  /** The registry host (`registry.example:5000`). */
  readonly host: string;
}

/** The bounds of {@linkcode FairSlots}. */
export interface FairSlotsOptions {
  /**
   * Slots no single host may take, even alone: `permits - hostReserve` is a host's cap.
   * @default a quarter of the permits, rounded down
   */
  readonly hostReserve?: number;
}

/** What the slots are doing, for metrics. */
export interface FairSlotsStats {
  readonly permits: number;
  readonly running: number;
  readonly waiting: number;
  /** The tenants holding or waiting for a slot. */
  readonly tenants: number;
  /** The hosts holding or waiting for a slot. */
  readonly hosts: number;
}

interface Waiter {
  readonly tenant: Holder;
  readonly host: Holder;
  readonly queue: HostQueue;
  readonly grant: () => void;
}

/** The slots held and waited for by one tenant or one host. */
interface Holder {
  readonly key: string;
  running: number;
  waiting: number;
}

/** One tenant's waiters for one host, in arrival order. */
interface HostQueue {
  readonly host: Holder;
  readonly waiters: Set<Waiter>;
}

/** One tenant's waiters, by host (round-robin in the Map's order). */
interface TenantQueue {
  readonly tenant: Holder;
  readonly hosts: Map<string, HostQueue>;
}

/** Counts of the holders of one kind (tenants or hosts). */
class Holders {
  readonly #byKey = new Map<string, Holder>();
  /** Holders with at least one waiter. */
  waitingKeys = 0;

  get size(): number {
    return this.#byKey.size;
  }

  peek(key: string): Holder | undefined {
    return this.#byKey.get(key);
  }

  get(key: string): Holder {
    let holder = this.#byKey.get(key);
    if (holder === undefined) {
      holder = { key, running: 0, waiting: 0 };
      this.#byKey.set(key, holder);
    }
    return holder;
  }

  addWaiter(holder: Holder): void {
    if (holder.waiting++ === 0) this.waitingKeys++;
  }

  removeWaiter(holder: Holder): void {
    if (--holder.waiting === 0) this.waitingKeys--;
    this.#forgetIfIdle(holder);
  }

  release(holder: Holder): void {
    holder.running--;
    this.#forgetIfIdle(holder);
  }

  #forgetIfIdle(holder: Holder): void {
    if (holder.running === 0 && holder.waiting === 0) this.#byKey.delete(holder.key);
  }

  /** Whether `holder` may take one more slot of `permits` while others wait. */
  withinShare(holder: Holder, permits: number): boolean {
    const othersWait = this.waitingKeys - (holder.waiting > 0 ? 1 : 0) > 0;
    if (!othersWait) return true;
    return holder.running < Math.max(1, Math.floor(permits / this.#byKey.size));
  }
}

/** Slots shared fairly by tenant and by host. */
export class FairSlots {
  readonly #permits: number;
  readonly #hostCap: number;
  #running = 0;
  #waiting = 0;
  readonly #tenants = new Holders();
  readonly #hosts = new Holders();
  /** The tenants with waiters, in round-robin order (served ones move to the end). */
  readonly #queues = new Map<string, TenantQueue>();

  /** Creates `permits` slots (at least 1). */
  constructor(permits: number, options: FairSlotsOptions = {}) {
    this.#permits = Math.max(1, Math.floor(permits));
    const reserve = Math.floor(options.hostReserve ?? this.#permits / 4);
    this.#hostCap = Math.max(1, this.#permits - Math.max(0, reserve));
  }

  /** The most slots held at once. */
  get permits(): number {
    return this.#permits;
  }

  /** The most slots one host holds at once. */
  get hostCap(): number {
    return this.#hostCap;
  }

  /** The slots held. */
  get running(): number {
    return this.#running;
  }

  /** The acquisitions waiting. */
  get waiting(): number {
    return this.#waiting;
  }

  /** What the slots are doing. */
  stats(): FairSlotsStats {
    return {
      permits: this.#permits,
      running: this.#running,
      waiting: this.#waiting,
      tenants: this.#tenants.size,
      hosts: this.#hosts.size,
    };
  }

  /** The slots a tenant or a host holds now. */
  held(keys: Partial<SlotKeys>): number {
    if (keys.tenant !== undefined) return this.#tenants.peek(keys.tenant)?.running ?? 0;
    if (keys.host !== undefined) return this.#hosts.peek(keys.host)?.running ?? 0;
    return this.#running;
  }

  /** The slots of `keys`, as one verification takes them. */
  for(keys: SlotKeys): SlotSource {
    return {
      acquire: (signal) => this.acquire(keys, signal),
      tryAcquire: () => this.tryAcquire(keys),
    };
  }

  /**
   * A slot for `keys` now, without waiting, when one is free, nobody waits and the host is under
   * its cap; else undefined. For work nobody waits for (renewing a cache): it never takes a slot
   * a waiting review could have.
   */
  tryAcquire(keys: SlotKeys): Slot | undefined {
    if (this.#waiting > 0 || this.#running >= this.#permits) return undefined;
    if ((this.#hosts.peek(keys.host)?.running ?? 0) >= this.#hostCap) return undefined;
    return this.#grant(this.#tenants.get(keys.tenant), this.#hosts.get(keys.host));
  }

  /**
   * A slot for `keys`: at once when one is free and the host is under its cap, else when its
   * turn comes. When `signal` aborts first, it rejects with the signal's reason and takes no slot.
   */
  acquire(keys: SlotKeys, signal?: AbortSignal): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const tenant = this.#tenants.get(keys.tenant);
    const host = this.#hosts.get(keys.host);
    // Nobody waiting could take a free slot (see #dispatch), so one that arrives while slots are
    // free only has to be under its host's cap.
    if (this.#running < this.#permits && host.running < this.#hostCap) {
      return Promise.resolve(this.#grant(tenant, host));
    }
    return new Promise<Slot>((resolve, reject) => {
      let queue = this.#queues.get(tenant.key);
      if (queue === undefined) {
        queue = { tenant, hosts: new Map() };
        this.#queues.set(tenant.key, queue);
      }
      let hostQueue = queue.hosts.get(host.key);
      if (hostQueue === undefined) {
        hostQueue = { host, waiters: new Set() };
        queue.hosts.set(host.key, hostQueue);
      }
      const onAbort = () => {
        // No other waiter could take a free slot before, nor can now (see #dispatch).
        this.#leave(waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        tenant,
        host,
        queue: hostQueue,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#grant(tenant, host));
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      hostQueue.waiters.add(waiter);
      this.#waiting++;
      this.#tenants.addWaiter(tenant);
      this.#hosts.addWaiter(host);
    });
  }

  /** Takes `waiter` out of its queues (aborted, or about to be granted). */
  #leave(waiter: Waiter): void {
    const { queue } = waiter;
    queue.waiters.delete(waiter);
    if (queue.waiters.size === 0) {
      const tenantQueue = this.#queues.get(waiter.tenant.key);
      tenantQueue?.hosts.delete(waiter.host.key);
      if (tenantQueue?.hosts.size === 0) this.#queues.delete(waiter.tenant.key);
    }
    this.#waiting--;
    this.#tenants.removeWaiter(waiter.tenant);
    this.#hosts.removeWaiter(waiter.host);
  }

  #grant(tenant: Holder, host: Holder): Slot {
    this.#running++;
    tenant.running++;
    host.running++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.#running--;
      this.#tenants.release(tenant);
      this.#hosts.release(host);
      this.#dispatch();
    };
    return { release, [Symbol.dispose]: release };
  }

  /**
   * Gives free slots to waiters: those within their shares first, then anyone under its host's
   * cap. Afterwards every slot is held or no waiter can take one; only a release changes that
   * (an arrival is answered by `acquire` itself, an abort frees nothing).
   */
  #dispatch(): void {
    while (this.#running < this.#permits && this.#waiting > 0) {
      const waiter = this.#next(true) ?? this.#next(false);
      if (waiter === undefined) return;
      this.#leave(waiter);
      waiter.grant();
    }
  }

  /**
   * The next waiter to serve, round-robin over tenants and their hosts; with `fair`, only one
   * whose tenant and host are within their shares. The tenant and host served move to the end.
   */
  #next(fair: boolean): Waiter | undefined {
    for (const [tenantKey, queue] of this.#queues) {
      if (fair && !this.#tenants.withinShare(queue.tenant, this.#permits)) continue;
      for (const [hostKey, hostQueue] of queue.hosts) {
        const host = hostQueue.host;
        if (host.running >= this.#hostCap) continue;
        if (fair && !this.#hosts.withinShare(host, this.#permits)) continue;
        const waiter = hostQueue.waiters.values().next().value!;
        // Round-robin: this host and this tenant are served last next time.
        queue.hosts.delete(hostKey);
        queue.hosts.set(hostKey, hostQueue);
        this.#queues.delete(tenantKey);
        this.#queues.set(tenantKey, queue);
        return waiter;
      }
    }
    return undefined;
  }
}
