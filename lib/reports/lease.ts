/**
 * Leader election through a `coordination.k8s.io/v1` Lease, as client-go's leaderelection does:
 * a candidate takes the Lease when nobody holds it, or when its holder has not renewed it for
 * `leaseDurationSeconds` as seen from here (the time is this process's own: the record's
 * `renewTime` is only compared with the one seen before, so clock skew between replicas does not
 * matter); the holder renews it every `retryPeriodMs` and stops leading when it could not renew
 * within `renewDeadlineMs` or when it finds another holder; on shutdown, or when its work ends on
 * its own, it releases the Lease (holder emptied) so that a standby takes over at once. Every
 * write is a replace with the `resourceVersion` read: two candidates cannot both win.
 *
 * @module
 */
import { isStatus, type KubeClient, type KubeObject, LEASES } from "../kube/mod.ts";
import type { BucketClock } from "./token_bucket.ts";

/** The Lease the webhook's replicas elect the PolicyReport writer with (controller's namespace). */
export const REPORTS_LEASE_NAME = "toolkit-policy-reports";

/** How to elect. */
export interface LeaderElectionOptions {
  readonly client: Pick<KubeClient, "read" | "create" | "replace">;
  /** The Lease's namespace (the controller's). */
  readonly namespace: string;
  /** The Lease's name. */
  readonly name: string;
  /** This candidate (the pod's name). */
  readonly identity: string;
  /** How long a Lease not renewed stays its holder's. @default 15000 */
  readonly leaseDurationMs?: number;
  /** How long the holder keeps leading without a successful renewal. @default 10000 */
  readonly renewDeadlineMs?: number;
  /** How often the holder renews and a standby tries. @default 2000 */
  readonly retryPeriodMs?: number;
  /** The time and the waits. */
  readonly clock: BucketClock;
  /** Told of transitions and failures. */
  readonly onEvent?: (level: "info" | "warn", message: string) => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubeObject & { spec?: LeaseSpec };

/** `2026-01-01T00:00:00.000000Z`: a MicroTime. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * Runs `lead` whenever this candidate holds the Lease, until `signal` aborts: `lead` gets a
 * signal that aborts when leadership is lost (or on shutdown) and should return then. Resolves
 * after the Lease is released (when held) once `signal` aborted.
 */
export async function runLeaderElection(
  options: LeaderElectionOptions,
  lead: (signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const { client, clock, identity } = options;
  const durationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryMs = options.retryPeriodMs ?? 2_000;
  const emit = options.onEvent ?? (() => {});
  /** The record last seen and when (on this clock): what tells an expired holder. */
  let observed: { key: string; at: number } | undefined;
  let held: Lease | undefined;

  const sleep = async (ms: number) => {
    try {
      await clock.sleep(ms, signal);
    } catch {
      // Aborted: the loops look at the signal.
    }
  };

  /** Who else holds the Lease, when the last try found it held by another candidate. */
  let otherHolder: string | undefined;

  /** Tries once to take or renew the Lease; the Lease as written, or undefined. */
  async function tryAcquireOrRenew(): Promise<Lease | undefined> {
    otherHolder = undefined;
    const now = clock.now();
    const live = await client.read<Lease>(LEASES, options.namespace, options.name);
    const spec: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.max(1, Math.round(durationMs / 1000)),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    if (!live) {
      try {
        return await client.create<Lease>(LEASES, {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: options.name, namespace: options.namespace },
          spec,
        });
      } catch (error) {
        if (isStatus(error, 409)) return undefined; // another candidate created it first
        throw error;
      }
    }
    const current = live.spec ?? {};
    const key = `${current.holderIdentity ?? ""}|${current.renewTime ?? ""}`;
    if (observed?.key !== key) observed = { key, at: now };
    const holder = current.holderIdentity ?? "";
    const mine = holder === identity;
    const liveDurationMs = (current.leaseDurationSeconds ?? durationMs / 1000) * 1000;
    if (!mine && holder !== "" && now < observed.at + liveDurationMs) {
      otherHolder = holder;
      return undefined;
    }
    const next: LeaseSpec = mine
      ? { ...current, renewTime: spec.renewTime, leaseDurationSeconds: spec.leaseDurationSeconds }
      : { ...spec, leaseTransitions: (current.leaseTransitions ?? 0) + (holder === "" ? 0 : 1) };
    try {
      const written = await client.replace<Lease>(LEASES, { ...live, spec: next });
      observed = {
        key: `${identity}|${next.renewTime ?? ""}`,
        at: now,
      };
      return written;
    } catch (error) {
      if (isStatus(error, 409)) return undefined; // written by someone else meanwhile
      throw error;
    }
  }

  async function attempt(): Promise<Lease | undefined> {
    try {
      return await tryAcquireOrRenew();
    } catch (error) {
      emit(
        "warn",
        `the Lease "${options.namespace}/${options.name}" could not be read or ` +
          `written: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }

  while (!signal.aborted) {
    held = await attempt();
    if (!held) {
      await sleep(retryMs);
      continue;
    }
    emit("info", `leading: "${identity}" holds the Lease "${options.namespace}/${options.name}"`);
    const leading = new AbortController();
    const stopLeading = () => leading.abort(new Error("leadership ended"));
    signal.addEventListener("abort", stopLeading, { once: true });
    let workEnded = false;
    const work = lead(leading.signal).catch((error) =>
      emit("warn", `the leader's work failed: ${error instanceof Error ? error.message : error}`)
    ).finally(() => {
      workEnded = true;
    });
    let renewedAt = clock.now();
    while (!signal.aborted && !leading.signal.aborted && !workEnded) {
      await sleep(retryMs);
      if (signal.aborted || workEnded) break;
      const renewed = await attempt();
      if (renewed) {
        held = renewed;
        renewedAt = clock.now();
      } else if (otherHolder !== undefined) {
        emit("warn", `leadership lost: "${otherHolder}" holds the Lease`);
        held = undefined;
        break;
      } else if (clock.now() - renewedAt >= renewDeadlineMs) {
        emit("warn", `leadership lost: the Lease was not renewed within ${renewDeadlineMs} ms`);
        held = undefined;
        break;
      }
    }
    stopLeading();
    signal.removeEventListener("abort", stopLeading);
    await work;
    if (held && !signal.aborted) {
      // The work ended on its own (it failed): another candidate takes over.
      await release(held);
      held = undefined;
      await sleep(retryMs);
    }
  }
  if (held) await release(held);

  /** Empties the holder so that a standby takes over without waiting for the Lease to expire. */
  async function release(lease: Lease): Promise<void> {
    try {
      const live = await client.read<Lease>(LEASES, options.namespace, options.name);
      if (live?.spec?.holderIdentity !== identity) return;
      await client.replace<Lease>(LEASES, {
        ...live,
        spec: {
          ...live.spec,
          holderIdentity: "",
          leaseDurationSeconds: 1,
          renewTime: microTime(clock.now()),
        },
      });
      emit("info", `released the Lease "${options.namespace}/${options.name}"`);
    } catch (error) {
      emit(
        "warn",
        `the Lease "${options.namespace}/${lease.metadata.name}" was not released: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }
}
