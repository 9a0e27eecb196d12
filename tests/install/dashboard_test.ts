/**
 * The chart's Grafana dashboard (`deploy/chart/toolkit/files/dashboard.json`, installed with
 * `metrics.grafanaDashboard.enabled`): it parses, its panels are well formed, and every
 * expression in it (panels and variables) reads only metrics the webhook exports or the
 * PolicyReport controller's gauge; `helm template` puts it, unchanged, in a ConfigMap labelled for
 * Grafana's sidecar only when the switch is on.
 *
 * @module
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import {
  AUDIT_VIOLATIONS_METRIC,
  CHART,
  helmOnChart,
  metricNamesOf,
  renderChart,
  tempDir,
  webhookMetricNames,
} from "./_monitoring.ts";

const DASHBOARD = `${CHART}files/dashboard.json`;

interface Target {
  readonly refId: string;
  readonly expr: string;
  readonly datasource?: { readonly uid?: string };
}

interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly description?: string;
  readonly gridPos: { x: number; y: number; w: number; h: number };
  readonly datasource?: { readonly uid?: string };
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
}

interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly panels: readonly Panel[];
  readonly templating: {
    readonly list: readonly {
      readonly name: string;
      readonly type: string;
      readonly query?: string | { readonly query: string };
    }[];
  };
}

function panelsOf(panels: readonly Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);
}

Deno.test("the dashboard parses, and reads only metrics the webhook exports", async () => {
  const dashboard = JSON.parse(await Deno.readTextFile(DASHBOARD)) as Dashboard;
  assert.equal(dashboard.uid, "toolkit-webhook");
  const variables = new Map(dashboard.templating.list.map((v) => [v.name, v]));
  assert.equal(variables.get("datasource")?.type, "datasource");
  assert.equal(variables.get("job")?.type, "query");

  const panels = panelsOf(dashboard.panels);
  const ids = panels.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length, "panel ids are unique");
  const exported = webhookMetricNames();
  exported.add(AUDIT_VIOLATIONS_METRIC);
  const read = new Set<string>();
  const expressions: [string, string][] = [];
  for (const v of variables.values()) {
    if (v.type !== "query") continue;
    const query = typeof v.query === "string" ? v.query : v.query?.query ?? "";
    const inner = /^label_values\((.*), *\w+\)$/.exec(query)?.[1] ?? query;
    expressions.push([`variable ${v.name}`, inner]);
  }
  for (const panel of panels.filter((p) => p.type !== "row")) {
    assert.ok(panel.title && panel.description, `panel ${panel.id} has a title and a description`);
    assert.ok(panel.gridPos.w > 0 && panel.gridPos.h > 0, panel.title);
    assert.equal(panel.datasource?.uid, "${datasource}", `${panel.title}: the chosen data source`);
    assert.ok((panel.targets ?? []).length > 0, `${panel.title} has queries`);
    for (const target of panel.targets!) {
      assert.match(target.expr, /job="\$job"/, `${panel.title}: selects the chosen job`);
      expressions.push([`${panel.title} (${target.refId})`, target.expr]);
    }
  }
  for (const [where, expr] of expressions) {
    const names = metricNamesOf(expr);
    assert.ok(names.length > 0, `${where}: no metric in ${expr}`);
    const unknown = names.filter((n) => !exported.has(n));
    assert.deepEqual(unknown, [], `${where} reads metrics nobody exports: ${expr}`);
    for (const name of names) read.add(name);
  }
  // What the issue asks the dashboard to show.
  for (
    const metric of [
      "toolkit_admission_reviews_total",
      "toolkit_admission_review_duration_seconds_bucket",
      "toolkit_admission_verifications_in_flight",
      "toolkit_admission_verifications_waiting",
      "toolkit_admission_verdict_cache_hits_total",
      "toolkit_admission_registry_errors_total",
      "toolkit_admission_verification_errors_total",
      "toolkit_admission_event_loop_stalls_total",
      "toolkit_admission_serving_certificate_expiry_timestamp_seconds",
      "toolkit_admission_key_secret_expiry_timestamp_seconds",
      "toolkit_admission_trust_root_expiry_timestamp_seconds",
      AUDIT_VIOLATIONS_METRIC,
    ]
  ) {
    assert.ok(read.has(metric), `the dashboard shows ${metric}`);
  }
});

Deno.test({
  name: "the monitoring switches: nothing by default; the dashboard and the rules when on",
  ignore: e2eSkipReason(["helm"]) !== undefined,
  fn: async (t) => {
    await using home = await tempDir("toolkit-dashboard-test-");
    const monitoring = (objects: Record<string, unknown>[]) =>
      objects.filter((o) =>
        o.kind === "PrometheusRule" ||
        (o.kind === "ConfigMap" &&
          (o.metadata as { name: string }).name === "toolkit-webhook-dashboard")
      );

    await t.step("off by default", async () => {
      assert.deepEqual(monitoring(await renderChart(home.path, {})), []);
    });

    await t.step("helm lint --strict passes with both on", async () => {
      await helmOnChart(home.path, "lint", {
        metrics: {
          prometheusRule: { enabled: true, labels: { release: "kube-prometheus-stack" } },
          grafanaDashboard: { enabled: true, annotations: { grafana_folder: "Security" } },
        },
      }, ["--strict"]);
    });

    await t.step("grafanaDashboard.enabled: the ConfigMap for Grafana's sidecar", async () => {
      const objects = monitoring(
        await renderChart(home.path, {
          metrics: {
            grafanaDashboard: {
              enabled: true,
              labels: { team: "platform", grafana_dashboard: "0" },
              annotations: { grafana_folder: "Security" },
            },
          },
        }),
      );
      assert.equal(objects.length, 1);
      const configMap = objects[0] as {
        metadata: {
          namespace: string;
          labels: Record<string, string>;
          annotations: Record<string, string>;
        };
        data: Record<string, string>;
      };
      assert.equal(configMap.metadata.namespace, "toolkit-system");
      assert.equal(configMap.metadata.labels.grafana_dashboard, "1", "the sidecar's label wins");
      assert.equal(configMap.metadata.labels.team, "platform");
      assert.deepEqual(configMap.metadata.annotations, { grafana_folder: "Security" });
      assert.deepEqual(Object.keys(configMap.data), ["toolkit-webhook.json"]);
      assert.deepEqual(
        JSON.parse(configMap.data["toolkit-webhook.json"]!),
        JSON.parse(await Deno.readTextFile(DASHBOARD)),
      );
    });

    await t.step("prometheusRule.enabled: the PrometheusRule with its labels and job", async () => {
      const objects = monitoring(
        await renderChart(home.path, {
          metrics: {
            job: "toolkit/webhook",
            prometheusRule: {
              enabled: true,
              labels: { release: "kube-prometheus-stack" },
              runbookUrl: "https://docs.example.com/toolkit/alerts",
            },
          },
        }),
      );
      assert.equal(objects.length, 1);
      const rule = objects[0] as {
        apiVersion: string;
        metadata: { namespace: string; labels: Record<string, string> };
        spec: {
          groups: {
            rules: { alert: string; expr: string; annotations: Record<string, string> }[];
          }[];
        };
      };
      assert.equal(rule.apiVersion, "monitoring.coreos.com/v1");
      assert.equal(rule.metadata.namespace, "toolkit-system");
      assert.equal(rule.metadata.labels.release, "kube-prometheus-stack");
      assert.equal(rule.metadata.labels["app.kubernetes.io/part-of"], "toolkit");
      for (const { alert, expr, annotations } of rule.spec.groups.flatMap((g) => g.rules)) {
        assert.match(expr, /job="toolkit\/webhook"/, alert);
        assert.doesNotMatch(expr, /job="toolkit-webhook"/, alert);
        assert.equal(
          annotations.runbook_url,
          `https://docs.example.com/toolkit/alerts#${alert.toLowerCase()}`,
        );
      }
    });
  },
});
