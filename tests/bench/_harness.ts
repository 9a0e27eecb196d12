/**
 * What the webhook benchmarks share (not a benchmark itself: `main.ts` skips `_` files): the skip
 * when a tool is missing, the delaying registry proxy, the Pod review and its timing, the policy
 * file with its key Secrets, the webhook under the bench's CA, the machine's description and the
 * rewrite of the bench's section of `docs/benchmarks.md`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { findTool } from "../env/tools.ts";
import { freePort, issueCert, LOOPBACK_SANS, makeCA, type ManagedProcess } from "../env/mod.ts";
import { median } from "./_stats.ts";
import { startPolicyWebhook } from "./_policy_webhook.ts";

/** The repository's root directory. */
export const root = new URL("../../", import.meta.url).pathname;

/**
 * The flags of a latency bench: `--reviews N` (per row, default `reviews`), `--rtt MS` (the
 * delaying proxy's delay, default 10) and `--no-write` (print the section only); with `help`,
 * `--help` prints it and ends the bench.
 */
export function latencyBenchFlags(
  reviews: number,
  help?: string,
): { readonly reviews: number; readonly rttMs: number; readonly write: boolean } {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      reviews: { type: "string", default: String(reviews) },
      rtt: { type: "string", default: "10" },
      "no-write": { type: "boolean" },
      ...(help !== undefined ? { help: { type: "boolean" as const } } : {}),
    },
  });
  if (help !== undefined && values.help) {
    out(help);
    Deno.exit(0);
  }
  return {
    reviews: Number(values.reviews),
    rttMs: Number(values.rtt),
    write: !values["no-write"],
  };
}

/** Prints a line of the bench's output. */
export function out(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

/** Ends the bench (exit 0, saying so) when one of `tools` is not installed. */
export function skipWithout(bench: string, tools: readonly string[]): void {
  const missing = tools.filter((tool) => findTool(tool) === undefined);
  if (missing.length > 0) {
    out(`${bench}: ${missing.join(", ")} not installed (tests/env/provision.sh); skipped`);
    Deno.exit(0);
  }
}

/** Requests counted by the delaying proxies: to the registry, and to the lookaside directory. */
export interface ProxyCounts {
  registry: number;
  lookaside: number;
}

/**
 * The sequential round trips of one review, counted by a delaying proxy: a request's is one more
 * than the most of those answered before it came. Zero both before each review.
 */
export interface RoundTrips {
  /** The most round trips of a request answered so far. */
  answered: number;
  /** The most round trips of a request so far: the review's. */
  deepest: number;
}

/**
 * A loopback proxy in front of `upstream` (`/v2/…`) that delays every request by `rttMs` and
 * counts it (and, with `roundTrips`, the sequential round trips); with `lookasideDir`, it also
 * serves that directory's files under `/sigstore/…`.
 */
export function startDelayingProxy(options: {
  readonly upstream: string;
  readonly rttMs: number;
  readonly signal: AbortSignal;
  readonly counts: ProxyCounts;
  readonly lookasideDir?: string;
  readonly roundTrips?: RoundTrips;
}): { readonly host: string; readonly server: Deno.HttpServer } {
  const { upstream, rttMs, counts, lookasideDir, roundTrips } = options;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const forward = async (request: Request) => {
    const depth = (roundTrips?.answered ?? 0) + 1;
    if (roundTrips) roundTrips.deepest = Math.max(roundTrips.deepest, depth);
    const answered = (response: Response) => {
      if (roundTrips) roundTrips.answered = Math.max(roundTrips.answered, depth);
      return response;
    };
    const url = new URL(request.url);
    await sleep(rttMs);
    if (lookasideDir !== undefined && url.pathname.startsWith("/sigstore/")) {
      counts.lookaside++;
      try {
        return answered(
          new Response(await Deno.readFile(`${lookasideDir}${decodeURIComponent(url.pathname)}`)),
        );
      } catch {
        return answered(new Response("not found", { status: 404 }));
      }
    }
    counts.registry++;
    const headers = new Headers();
    for (const name of ["accept", "authorization"]) {
      const value = request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    const answer = await fetch(`${upstream}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      redirect: "manual",
    });
    return answered(
      new Response(request.method === "HEAD" ? null : answer.body, {
        status: answer.status,
        headers: answer.headers,
      }),
    );
  };
  const port = freePort();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, signal: options.signal, onListen() {} },
    forward,
  );
  return { host: `127.0.0.1:${port}`, server };
}

/** The AdmissionReview (JSON) of creating a Pod `app` in `bench` with one container of `image`. */
export function podReview(image: string): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: crypto.randomUUID(),
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      name: "app",
      namespace: "bench",
      operation: "CREATE",
      userInfo: { username: "bench" },
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "app", namespace: "bench" },
        spec: { containers: [{ name: "app", image }] },
      },
    },
  });
}

/**
 * A `--policies` file: the ClusterImagePolicy `default` with `repositories` (its YAML list items,
 * indented by four), then a Secret in `toolkit-system` of each key (name → public key text).
 */
export function policiesYaml(repositories: string, keys: Readonly<Record<string, string>>): string {
  const indent = (text: string) => text.trimEnd().split("\n").map((l) => `    ${l}`).join("\n");
  const secrets = Object.entries(keys).map(([name, key]) =>
    `---
apiVersion: v1
kind: Secret
metadata: { name: ${name}, namespace: toolkit-system }
stringData:
  key: |
${indent(key)}
`
  );
  return `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
${repositories}
${secrets.join("")}`;
}

/** A started webhook. */
export interface BenchWebhook {
  readonly process: ManagedProcess;
  /** Its `/admit` URL. */
  readonly url: string;
}

/** The webhook's flags for a cold review: verdict and digest caches off. */
export const CACHES_OFF: readonly string[] = ["--cache-ttl", "0", "--digest-cache-ttl", "0"];

/**
 * The webhook as the benchmarks start it: on the policies file `policies`, serving with a
 * certificate of a CA made in `dir`, each process added to `started` (stopped by the caller),
 * and the reviews it is sent.
 */
export async function benchWebhooks(
  dir: string,
  policies: string,
  started: ManagedProcess[],
): Promise<{
  /** An HTTP client trusting the webhook; closed by the caller. */
  readonly client: Deno.HttpClient;
  /** The serving certificate and key files (for another server the client is to trust). */
  readonly cert: { readonly certFile: string; readonly keyFile: string };
  /** Starts a webhook named `name` with `args` after `--policies`. */
  start(name: string, args: readonly string[]): Promise<BenchWebhook>;
  /** Sends `review`, throws unless admitted (naming `what`); resolves to the milliseconds taken. */
  admit(url: string, review: string, what: string): Promise<number>;
}> {
  const ca = await makeCA(dir, "bench-ca");
  const cert = await issueCert(dir, ca, { name: "serving", cn: "webhook", sans: LOOPBACK_SANS });
  const client = Deno.createHttpClient({ caCerts: [ca.certPem] });
  return {
    client,
    cert,
    async start(name, args) {
      const hook = await startPolicyWebhook({
        dir,
        name,
        certFile: cert.certFile,
        keyFile: cert.keyFile,
        client,
        args: ["--policies", policies, ...args],
      });
      started.push(hook.process);
      return hook;
    },
    async admit(url, review, what) {
      const begun = performance.now();
      const r = await fetch(url, { method: "POST", body: review, client });
      const answer = await r.json();
      const took = performance.now() - begun;
      if (answer.response?.allowed !== true) {
        throw new Error(`${what} was not admitted: ${JSON.stringify(answer.response?.status)}`);
      }
      return took;
    },
  };
}

/** Runs `once` (which resolves to milliseconds) `count` times, one after the other: p50 and p99. */
export async function timeReviews(
  count: number,
  once: () => Promise<number>,
): Promise<{ readonly p50: number; readonly p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push(await once());
  times.sort((a, b) => a - b);
  return {
    p50: median(times),
    p99: times[Math.min(times.length - 1, Math.ceil(0.99 * times.length) - 1)]!,
  };
}

/** The CPU's model name ("" when unknown). */
export async function cpuModel(): Promise<string> {
  return new TextDecoder().decode(
    (await new Deno.Command("sh", {
      args: ["-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
      stdout: "piped",
      stderr: "null",
    }).output()).stdout,
  ).trim();
}

/** The load average of the last 1, 5 and 15 minutes, as "a, b, c". */
export function loadAverage(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(", ");
}

/** "Measured <date> by `tests/bench/<file>` on <cpu> (<n> cores), Deno <v>; load average at the end <l>." */
export async function measuredLine(file: string): Promise<string> {
  const cpu = await cpuModel();
  return `Measured ${new Date().toISOString().slice(0, 10)} by \`tests/bench/${file}\` on ${
    cpu || "an unknown CPU"
  } (${navigator.hardwareConcurrency} cores), Deno ${Deno.version.deno}; load average at the end ${loadAverage()}.`;
}

/**
 * Replaces the section of `docs/benchmarks.md` that starts with `heading` (up to the next `## `)
 * by `section`, or appends it (the file made when missing), and formats the file as `deno fmt`
 * does (aligned tables), so `deno task ok` stays green.
 */
export async function writeBenchSection(heading: string, section: string): Promise<void> {
  const path = `${root}docs/benchmarks.md`;
  let text = "";
  try {
    text = await Deno.readTextFile(path);
  } catch {
    text =
      "# Benchmarks\n\nFigures measured on this project's machines; each section says how to reproduce it.\n";
  }
  const start = text.indexOf(heading);
  if (start < 0) {
    await Deno.writeTextFile(path, `${text.trimEnd()}\n\n${section}`);
  } else {
    const next = text.indexOf("\n## ", start + 1);
    const rest = next < 0 ? "" : text.slice(next + 1);
    await Deno.writeTextFile(path, `${text.slice(0, start)}${section}${rest ? `\n${rest}` : ""}`);
  }
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", path] }).output();
}
