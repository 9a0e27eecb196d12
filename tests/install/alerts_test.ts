/**
 * The chart's PrometheusRule (`metrics.prometheusRule.enabled`): its rules, rendered by `helm
 * template`, pass the real `promtool check rules`, and the unit tests of `tests/install/alerts/`
 * (one file per alert: it fires when it should and not when it should not) pass `promtool test
 * rules` against them. Every alert has a severity, a summary, a description and a runbook
 * section in docs/alerts.md that its runbook_url points to, and reads only metrics the webhook
 * exports (or the PolicyReport controller's gauge).
 *
 * @module
 */
import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { e2eSkipReason } from "../env/mod.ts";
import {
  AUDIT_VIOLATIONS_METRIC,
  metricNamesOf,
  renderChart,
  run,
  tempDir,
  webhookMetricNames,
} from "./_monitoring.ts";

const TESTS = new URL("./alerts/", import.meta.url).pathname;
const RUNBOOK = new URL("../../docs/alerts.md", import.meta.url).pathname;

interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

interface RuleGroups {
  readonly groups: readonly { readonly name: string; readonly rules: readonly AlertRule[] }[];
}

interface RuleTestFile {
  readonly rule_files: readonly string[];
  readonly tests: readonly {
    readonly alert_rule_test?: readonly {
      readonly alertname: string;
      readonly exp_alerts?: readonly unknown[] | null;
    }[];
  }[];
}

async function ruleTestFiles(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(TESTS)) {
    if (entry.isFile && entry.name.endsWith(".test.yaml")) names.push(entry.name);
  }
  return names.sort();
}

Deno.test({
  name: "the chart's alerting rules pass promtool check rules and the unit test of each alert",
  ignore: e2eSkipReason(["helm", "promtool"]) !== undefined,
  fn: async (t) => {
    await using home = await tempDir("toolkit-alerts-test-");
    const objects = await renderChart(home.path, {
      metrics: { prometheusRule: { enabled: true } },
    });
    const rule = objects.find((o) => o.kind === "PrometheusRule");
    assert.ok(rule, "metrics.prometheusRule.enabled renders a PrometheusRule");
    const spec = rule.spec as RuleGroups;
    const rules = spec.groups.flatMap((g) => g.rules);
    const rulesFile = `${home.path}/rules.yaml`;
    await Deno.writeTextFile(rulesFile, stringify(spec));
    const testFiles = await ruleTestFiles();

    await t.step("promtool check rules", async () => {
      const result = await run("promtool", ["check", "rules", rulesFile]);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(result.stdout, new RegExp(`SUCCESS: ${rules.length} rules found`));
    });

    await t.step("promtool test rules: each alert's unit test", async () => {
      for (const name of testFiles) await Deno.copyFile(`${TESTS}${name}`, `${home.path}/${name}`);
      const result = await run("promtool", ["test", "rules", ...testFiles], { cwd: home.path });
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.equal(
        [...result.stdout.matchAll(/^\s+SUCCESS$/gm)].length,
        testFiles.length,
        result.stdout,
      );
    });

    await t.step("every alert is tested firing and not firing", async () => {
      const tested = new Map<string, { fires: number; silent: number }>();
      for (const name of testFiles) {
        const file = parse(await Deno.readTextFile(`${TESTS}${name}`)) as RuleTestFile;
        assert.deepEqual(file.rule_files, ["rules.yaml"], name);
        for (const test of file.tests) {
          for (const check of test.alert_rule_test ?? []) {
            const counts = tested.get(check.alertname) ?? { fires: 0, silent: 0 };
            if ((check.exp_alerts ?? []).length > 0) counts.fires++;
            else counts.silent++;
            tested.set(check.alertname, counts);
          }
        }
      }
      for (const { alert } of rules) {
        const counts = tested.get(alert);
        assert.ok(counts && counts.fires > 0, `${alert}: no test where it fires`);
        assert.ok(counts.silent > 0, `${alert}: no test where it does not fire`);
      }
      const unknown = [...tested.keys()].filter((a) => !rules.some((r) => r.alert === a));
      assert.deepEqual(unknown, [], "tests of alerts the chart does not have");
    });

    await t.step("every alert has a severity, a summary, a description and a runbook", async () => {
      const runbook = await Deno.readTextFile(RUNBOOK);
      const headings = new Set([...runbook.matchAll(/^### (\w+)$/gm)].map((m) => m[1]));
      for (const { alert, labels, annotations } of rules) {
        assert.match(labels?.severity ?? "", /^(critical|warning|info)$/, alert);
        assert.ok(annotations?.summary, `${alert}: no summary`);
        assert.ok(annotations?.description, `${alert}: no description`);
        assert.ok(headings.has(alert), `${alert}: no "### ${alert}" section in docs/alerts.md`);
        assert.ok(
          annotations?.runbook_url?.endsWith(`docs/alerts.md#${alert.toLowerCase()}`),
          `${alert}: runbook_url ${annotations?.runbook_url}`,
        );
      }
    });

    await t.step("the alerts read only metrics the webhook exports", () => {
      const exported = webhookMetricNames();
      exported.add(AUDIT_VIOLATIONS_METRIC);
      for (const { alert, expr } of rules) {
        const names = metricNamesOf(expr);
        assert.ok(names.length > 0, `${alert}: no metric found in ${expr}`);
        const unknown = names.filter((n) => !exported.has(n));
        assert.deepEqual(unknown, [], `${alert} reads metrics nobody exports: ${expr}`);
      }
    });
  },
});

Deno.test("metricNamesOf() finds the metrics of an expression, nothing else", () => {
  assert.deepEqual(
    metricNamesOf(
      'sum by (kind) (rate(toolkit_a_total{job="x",kind!="y"}[5m])) > 0 or absent(up{job="x"} == 1)',
    ),
    ["toolkit_a_total", "up"],
  );
  assert.deepEqual(
    metricNamesOf(
      'histogram_quantile(0.99, sum by (le) (rate(d_bucket{job="$job"}[$__rate_interval]))) * 1e3',
    ),
    ["d_bucket"],
  );
  assert.deepEqual(metricNamesOf("min(e_seconds) - time() < 14 * 86400"), ["e_seconds"]);
});
