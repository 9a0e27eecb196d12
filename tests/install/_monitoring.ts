/**
 * What the tests of the chart's monitoring (alerts_test.ts, dashboard_test.ts) share: the chart
 * rendered by `helm template`, the names of the metrics the webhook exports (read from its own
 * `/metrics` text, every optional part set, so that a renamed metric fails the tests), and the
 * metric names a PromQL expression reads.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { requireTool } from "../env/mod.ts";
import { WebhookMetrics } from "../../webhook/metrics.ts";
import { ReportMetrics } from "../../webhook/report_metrics.ts";

/** The chart's directory. */
export const CHART = new URL("../../deploy/chart/toolkit/", import.meta.url).pathname;

/**
 * The gauge of the PolicyReport controller (issue #37): images running in a namespace that would
 * be denied. It is exported by the replica that holds the controller's Lease.
 */
export const AUDIT_VIOLATIONS_METRIC = "toolkit_audit_violations";

type Json = Record<string, unknown>;

/** A temporary directory removed when disposed; Helm's cache and config live there too. */
export async function tempDir(prefix: string): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** Runs a tool; its output as text. */
export async function run(
  tool: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(requireTool(tool), {
    args: [...args],
    ...options,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

/**
 * Runs `helm COMMAND CHART -f VALUES ARGS…` with `values` (Helm's cache and config under `home`);
 * fails unless it succeeds.
 */
export async function helmOnChart(
  home: string,
  command: "template" | "lint",
  values: Json,
  args: readonly string[] = [],
): Promise<string> {
  const file = `${home}/values.yaml`;
  await Deno.writeTextFile(file, JSON.stringify(values));
  const result = await run("helm", [command, CHART, "-f", file, ...args], {
    env: {
      HELM_CACHE_HOME: `${home}/cache`,
      HELM_CONFIG_HOME: `${home}/config`,
      HELM_DATA_HOME: `${home}/data`,
    },
  });
  assert.equal(result.code, 0, `helm ${command}: ${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The objects `helm template` renders with `values` (Helm's cache and config under `home`). */
export async function renderChart(home: string, values: Json): Promise<Json[]> {
  const stdout = await helmOnChart(home, "template", values, [
    "--name-template",
    "toolkit",
    "--namespace",
    "toolkit-system",
  ]);
  const objects: Json[] = [];
  for (const document of parseAllDocuments(stdout, { version: "1.1" })) {
    assert.deepEqual(document.errors, [], "helm template printed YAML that does not parse");
    const object = document.toJS();
    if (object !== null && object !== undefined) objects.push(object as Json);
  }
  return objects;
}

/**
 * The metric names the webhook exports: its `/metrics` text with every optional part given
 * (a histogram's `_bucket`, `_sum` and `_count` series included), and Prometheus's `up`.
 */
export function webhookMetricNames(): Set<string> {
  const metrics = new WebhookMetrics();
  metrics.servingCertificateExpiry = 1;
  metrics.trustExpiries = () => [];
  // The PolicyReport controller's (`--policy-reports`, on in the chart).
  metrics.more = () => new ReportMetrics().render();
  metrics.bounds = () => ({
    caches: [],
    limits: {},
    verificationsInFlight: 0,
    verificationsWaiting: 0,
    readPool: { capacity: 1, reserved: 0, peakReserved: 0, waiting: 0 },
    bodyPool: { capacity: 1, reserved: 0, peakReserved: 0, refused: 0 },
    eventLoop: { maxStallMs: 0, maxBusyStallMs: 0, stallsOver: [] },
  });
  const names = new Set(["up"]);
  for (const [, name, type] of metrics.render(true).matchAll(/^# TYPE (\w+) (\w+)$/gm)) {
    names.add(name!);
    if (type === "histogram") {
      for (const s of ["_bucket", "_sum", "_count"]) names.add(name + s);
    }
  }
  return names;
}

/** PromQL's functions, aggregations and keywords: the names in an expression that are no metric. */
const PROMQL_WORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "inf",
  "nan",
]);

/**
 * The metric names `expr` reads: its identifiers, without label matchers, grouping clauses,
 * strings, Grafana's `$variables`, durations, function calls and keywords.
 */
export function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings
    .replace(/\$\{?\w+\}?/g, " ") // Grafana variables
    .replace(/\{[^}]*\}/g, " ") // label matchers
    .replace(/\[[^\]]*\]/g, " ") // ranges
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = new Set<string>();
  for (const match of bare.matchAll(/[A-Za-z_:][\w:]*/g)) {
    const name = match[0];
    const after = bare.slice(match.index! + name.length).trimStart();
    if (after.startsWith("(") || PROMQL_WORDS.has(name.toLowerCase())) continue;
    if (/^\d/.test(name) || /^(e|E)\d*$/.test(name)) continue;
    names.add(name);
  }
  return [...names];
}
