import assert from "node:assert/strict";
import { WebhookMetrics } from "./metrics.ts";

Deno.test("WebhookMetrics.render() writes cumulative histogram buckets", () => {
  const m = new WebhookMetrics();
  m.review("allow", 0.0004);
  m.review("deny", 0.003);
  m.review("warn", 20);
  m.cacheHits = 2;
  const text = m.render(false);
  assert.match(text, /^toolkit_admission_review_duration_seconds_bucket\{le="0.0005"\} 1$/m);
  assert.match(text, /^toolkit_admission_review_duration_seconds_bucket\{le="0.005"\} 2$/m);
  assert.match(text, /^toolkit_admission_review_duration_seconds_bucket\{le="10"\} 2$/m);
  assert.match(text, /^toolkit_admission_review_duration_seconds_bucket\{le="\+Inf"\} 3$/m);
  assert.match(text, /^toolkit_admission_reviews_total\{decision="warn"\} 1$/m);
  assert.match(text, /^toolkit_admission_verdict_cache_hits_total 2$/m);
  assert.match(text, /^toolkit_admission_ready 0$/m);
  assert.match(text, /^portieris_pod_admission_decision_allow_count 2$/m);
  assert.match(text, /^portieris_pod_admission_decision_deny_count 1$/m);
  for (const line of text.trimEnd().split("\n")) {
    assert.match(line, /^(# (HELP|TYPE) \w+ .+|\w+(\{\w+="[^"]*"\})? [\d.e+-]+)$/, line);
  }
});
