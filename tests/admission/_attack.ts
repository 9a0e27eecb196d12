/**
 * What one attack on the real webhook process is measured by, shared by the attack tests of
 * issue #33 (`tests/admission/*_attack_e2e_test.ts`) and `deno task bench`
 * (`tests/bench/attacks_bench.ts`): peak resident memory, the longest `/healthz` answer while the
 * attack ran, the longest event-loop stall the webhook itself saw, and, where the attack is on
 * other tenants, how many of another namespace's signed images were admitted meanwhile.
 *
 * Each attack lives in `tests/admission/_attack_<name>.ts` and exports a function that starts what
 * it needs, runs the attack, stops everything and returns {@linkcode AttackFigures}: the test
 * asserts the bounds that do not depend on the machine's speed, the bench prints the figures.
 *
 * @module
 */
import { probeHealthWhile, processMemory } from "./_hostile.ts";
import type { TestWebhook } from "./_webhook.ts";

/** The figures of one attack. */
export interface AttackFigures {
  /** The attack, in a few words ("128 connections × 8 MiB bodies held"). */
  readonly name: string;
  /** The webhook's peak resident memory (VmHWM), in MiB. */
  readonly peakRssMiB: number;
  /** The longest `/healthz` answer while the attack ran, in ms. */
  readonly healthzMaxMs: number;
  /** How many `/healthz` probes were answered ok, of how many sent. */
  readonly healthzOk: string;
  /** The longest event-loop stall the webhook reported (`/metrics`), in ms, when it could be read. */
  readonly eventLoopMaxStallMs?: number;
  /**
   * The part of the longest stall the webhook's own CPU time accounts for (`/metrics`), in ms: on
   * a loaded machine the wall-clock stall also holds the time the machine gave to others.
   */
  readonly eventLoopMaxBusyStallMs?: number;
  /** Another namespace's signed images admitted meanwhile, "19/20", where the attack is on tenants. */
  readonly otherNamespaceAdmitted?: string;
  /** Anything else worth printing ("denied with: …"). */
  readonly note?: string;
}

/**
 * The longest event-loop stall the webhook reported on `/metrics`, in ms, and the part of it its
 * own CPU time accounts for (undefined when unread).
 */
export async function eventLoopStalls(
  webhook: Pick<TestWebhook, "port" | "ca">,
  metricsUrl?: string,
  client?: Deno.HttpClient,
): Promise<{ maxMs?: number; maxBusyMs?: number }> {
  const own = client ?? Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  try {
    const response = await fetch(metricsUrl ?? `https://127.0.0.1:${webhook.port}/metrics`, {
      client: own,
    });
    const text = await response.text();
    const read = (name: string) => {
      const match = new RegExp(`^${name}\\s+([0-9.eE+-]+)`, "m").exec(text);
      return match ? Number(match[1]) * 1000 : undefined;
    };
    const maxMs = read("toolkit_admission_event_loop_max_stall_seconds");
    const maxBusyMs = read("toolkit_admission_event_loop_max_busy_stall_seconds");
    return {
      ...(maxMs !== undefined ? { maxMs } : {}),
      ...(maxBusyMs !== undefined ? { maxBusyMs } : {}),
    };
  } catch {
    return {};
  } finally {
    if (client === undefined) own.close();
  }
}

/**
 * Runs `attack` while probing `/healthz`, then reads the peak memory and the event-loop stall:
 * the figures every attack reports.
 */
export async function measureAttack<T>(
  name: string,
  webhook: Pick<TestWebhook, "port" | "ca" | "process">,
  attack: Promise<T>,
): Promise<{ result: T; figures: AttackFigures }> {
  const probes = probeHealthWhile(webhook, attack);
  const [result, answers] = await Promise.all([attack, probes]);
  const longest = answers.reduce((max, a) => Math.max(max, a.answered - a.sent), 0);
  const { peak } = processMemory(webhook.process.pid);
  const stall = await eventLoopStalls(webhook);
  return {
    result,
    figures: {
      name,
      peakRssMiB: Math.round(peak / (1024 * 1024)),
      healthzMaxMs: Math.round(longest),
      healthzOk: `${answers.filter((a) => a.ok).length}/${answers.length}`,
      ...(stall.maxMs !== undefined ? { eventLoopMaxStallMs: Math.round(stall.maxMs) } : {}),
      ...(stall.maxBusyMs !== undefined
        ? { eventLoopMaxBusyStallMs: Math.round(stall.maxBusyMs) }
        : {}),
    },
  };
}

/** The chart's memory limit, which no attack may push the webhook past. */
export const CHART_MEMORY_LIMIT = 256 * 1024 * 1024;
