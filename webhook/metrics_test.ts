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
  assert.match(text, /^toolkit_admission_reviews_total\{decision="warn",cause="policy"\} 1$/m);
  assert.match(text, /^toolkit_admission_verdict_cache_hits_total 2$/m);
  assert.match(text, /^toolkit_admission_ready 0$/m);
  assert.match(text, /^portieris_pod_admission_decision_allow_count 2$/m);
  assert.match(text, /^portieris_pod_admission_decision_deny_count 1$/m);
  for (const line of text.trimEnd().split("\n")) {
    assert.match(
      line,
      /^(# (HELP|TYPE) \w+ .+|\w+(\{\w+="[^"]*"(,\w+="[^"]*")*\})? [\d.e+-]+)$/,
      line,
    );
  }
});

Deno.test("WebhookMetrics.render() exports every cache's size and bounds and the limits", () => {
  const m = new WebhookMetrics();
  m.bounds = () => ({
    caches: [
      { name: "parse", entries: 3, bytes: 420, maxEntries: 4096, maxBytes: 4194304 },
      { name: "registry-client", entries: 1, bytes: 64, maxEntries: 64, maxBytes: Infinity },
    ],
    limits: { images_per_review: 256, body_bytes: 8388608 },
    verificationsInFlight: 2,
    verificationsWaiting: 5,
    bodyPool: { capacity: 33554432, reserved: 4096, peakReserved: 65536, refused: 3 },
  });
  const text = m.render(true, { rss: 1, heapUsed: 1 });
  assert.match(text, /^toolkit_admission_body_pool_bytes\{state="reserved"\} 4096$/m);
  assert.match(text, /^toolkit_admission_body_pool_bytes\{state="capacity"\} 33554432$/m);
  assert.match(text, /^toolkit_admission_body_pool_refused_total 3$/m);
  assert.match(text, /^toolkit_admission_cache_entries\{cache="parse"\} 3$/m);
  assert.match(text, /^toolkit_admission_cache_bytes\{cache="parse"\} 420$/m);
  assert.match(text, /^toolkit_admission_cache_max_entries\{cache="registry-client"\} 64$/m);
  assert.match(text, /^toolkit_admission_cache_max_bytes\{cache="parse"\} 4194304$/m);
  assert.doesNotMatch(text, /cache_max_bytes\{cache="registry-client"\}/);
  assert.match(text, /^toolkit_admission_limit\{limit="images_per_review"\} 256$/m);
  assert.match(text, /^toolkit_admission_verifications_in_flight 2$/m);
  assert.match(text, /^toolkit_admission_verifications_waiting 5$/m);
  for (const line of text.trimEnd().split("\n")) {
    assert.match(
      line,
      /^(# (HELP|TYPE) \w+ .+|\w+(\{\w+="[^"]*"(,\w+="[^"]*")*\})? [\d.e+-]+)$/,
      line,
    );
  }
});

Deno.test("WebhookMetrics counts fail-closed denials and verification errors apart", () => {
  const m = new WebhookMetrics();
  m.review("deny", 0.01, "policy");
  m.review("deny", 0.01, "error");
  m.review("deny", 0.01, "error");
  m.review("warn", 0.01, "error");
  m.review("error", 0.01);
  m.review("allow", 0.01, "error"); // an allow is never a failure's
  m.verificationError("registry");
  m.verificationError("timeout");
  m.verificationError("timeout");
  const text = m.render(true, { rss: 1, heapUsed: 1 });
  assert.match(text, /^toolkit_admission_reviews_total\{decision="deny",cause="policy"\} 1$/m);
  assert.match(text, /^toolkit_admission_reviews_total\{decision="deny",cause="error"\} 2$/m);
  assert.match(text, /^toolkit_admission_reviews_total\{decision="warn",cause="error"\} 1$/m);
  assert.match(text, /^toolkit_admission_reviews_total\{decision="error",cause="error"\} 1$/m);
  assert.match(text, /^toolkit_admission_reviews_total\{decision="allow",cause="policy"\} 1$/m);
  assert.doesNotMatch(text, /decision="(allow|exempt|skip)",cause="error"/);
  assert.match(text, /^toolkit_admission_verification_errors_total\{kind="registry"\} 1$/m);
  assert.match(text, /^toolkit_admission_verification_errors_total\{kind="timeout"\} 2$/m);
  assert.match(text, /^toolkit_admission_verification_errors_total\{kind="config"\} 0$/m);
  assert.match(text, /^portieris_pod_admission_decision_deny_count 4$/m);
  assert.match(text, /^portieris_pod_admission_decision_allow_count 2$/m);
});

Deno.test("WebhookMetrics exports when the serving certificate, key Secrets and trust roots expire", () => {
  const m = new WebhookMetrics();
  let text = m.render(true, { rss: 1, heapUsed: 1 });
  assert.doesNotMatch(text, /expiry_timestamp_seconds/, "nothing before it is known");
  m.servingCertificateExpiry = 1_800_000_000;
  m.trustExpiries = () => [
    { material: "key-secret", kind: "Secret", namespace: "team", name: "k", expiresAt: 1.9e12 },
    { material: "key-secret", kind: "Secret", namespace: "team", name: "n", expiresAt: undefined },
    {
      material: "trust-root",
      kind: "ConfigMap",
      namespace: "sigstore",
      name: 'odd"\\name',
      expiresAt: 1_950_000_000_500,
    },
  ];
  text = m.render(true, { rss: 1, heapUsed: 1 });
  assert.match(
    text,
    /^toolkit_admission_serving_certificate_expiry_timestamp_seconds 1800000000$/m,
  );
  assert.match(
    text,
    /^toolkit_admission_key_secret_expiry_timestamp_seconds\{object_namespace="team",object_name="k"\} 1900000000$/m,
  );
  assert.doesNotMatch(text, /object_name="n"/, "what does not expire has no sample");
  assert.ok(
    text.includes(
      'toolkit_admission_trust_root_expiry_timestamp_seconds{kind="ConfigMap",object_namespace="sigstore",object_name="odd\\"\\\\name"} 1950000000.5\n',
    ),
  );
});
