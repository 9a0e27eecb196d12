import assert from "node:assert/strict";
import { parseDuration, parseWebhookArgs, WEBHOOK_USAGE, type WebhookConfig } from "./config.ts";
import { UsageError } from "../lib/errors.ts";
import { defaultInstallOptions, webhookArgs } from "../lib/install/mod.ts";

const TLS = ["--tls-cert-file", "c.pem", "--tls-key-file", "k.pem"];

function config(args: string[], env: Record<string, string> = {}): WebhookConfig {
  const result = parseWebhookArgs([...TLS, ...args], env);
  if (result === "help") throw new Error("help");
  return result;
}

Deno.test("parseWebhookArgs() reads the port and TLS files and applies the defaults", () => {
  const c = config(["--port", "9443"]);
  assert.equal(c.port, 9443);
  assert.equal(c.hostname, "0.0.0.0");
  assert.equal(c.tlsCertFile, "c.pem");
  assert.equal(c.tlsKeyFile, "k.pem");
  assert.equal(c.mode, "enforce");
  assert.equal(c.noMatch, "deny");
  assert.equal(c.budgetMs, 8000);
  assert.equal(c.policyGroup, "toolkit.dev");
  assert.deepEqual(c.exemptLabel, { key: "toolkit.dev/image-security", value: "exempt" });
  assert.equal(c.namespace, "toolkit-system");
  assert.deepEqual(c.policyFiles, []);
  assert.equal(c.events, true);
});

Deno.test("parseWebhookArgs() reads every option", () => {
  const c = config([
    "--policies",
    "a.yaml",
    "--policies",
    "b.yaml",
    "--policy-group",
    "portieris.cloud.ibm.com",
    "--mode",
    "warn",
    "--no-match",
    "allow",
    "--exempt-namespace-label",
    "",
    "--budget",
    "2500ms",
    "--cache-ttl",
    "1m",
    "--cache-size",
    "5",
    "--digest-cache-ttl",
    "0",
    "--insecure-registry",
    "127.0.0.1:5000",
    "--registries.d",
    "/r",
    "--no-events",
  ], { POD_NAMESPACE: "security", POD_NAME: "webhook-0" });
  assert.deepEqual(c.policyFiles, ["a.yaml", "b.yaml"]);
  assert.equal(c.policyGroup, "portieris.cloud.ibm.com");
  assert.equal(c.mode, "warn");
  assert.equal(c.noMatch, "allow");
  assert.equal(c.exemptLabel, undefined);
  assert.equal(c.budgetMs, 2500);
  assert.equal(c.cacheTtlMs, 60_000);
  assert.equal(c.cacheSize, 5);
  assert.equal(c.digestCacheTtlMs, 0);
  assert.deepEqual(c.insecureRegistries, ["127.0.0.1:5000"]);
  assert.equal(c.registriesD, "/r");
  assert.equal(c.namespace, "security");
  assert.equal(c.podName, "webhook-0");
  assert.equal(c.events, false);
});

Deno.test("parseWebhookArgs() rejects bad values, naming the flag and the choices", () => {
  assert.throws(() => parseWebhookArgs(["--port", "70000", ...TLS]), UsageError);
  assert.throws(() => parseWebhookArgs(["--bogus", ...TLS]), UsageError);
  assert.throws(
    () => parseWebhookArgs(["--insecure-registry", "reg.example.com:0443", ...TLS]),
    (e: unknown) => e instanceof UsageError && /port 443 is the HTTPS port/.test(e.message),
  );
  assert.throws(() => parseWebhookArgs(["--port", "1"]), /tls-cert-file/);
  assert.throws(
    () => config(["--mode", "audit"]),
    /--mode "audit": expected one of "enforce", "warn"/,
  );
  assert.throws(() => config(["--no-match", "deny "]), /--no-match/);
  assert.throws(() => config(["--budget", "40s"]), /below the webhook's timeoutSeconds/);
  assert.throws(() => config(["--budget", "soon"]), /--budget "soon"/);
  assert.throws(() => config(["--exempt-namespace-label", "no-value"]), /KEY=VALUE/);
  assert.throws(() => config(["--policy-group", "Not A Group"]), /--policy-group/);
});

Deno.test("parseWebhookArgs() returns help for -h", () => {
  assert.equal(parseWebhookArgs(["-h"]), "help");
});

Deno.test("parseDuration() reads seconds, milliseconds, minutes and hours", () => {
  assert.equal(parseDuration("8s", "x"), 8000);
  assert.equal(parseDuration("8", "x"), 8000);
  assert.equal(parseDuration("1.5s", "x"), 1500);
  assert.equal(parseDuration("250ms", "x"), 250);
  assert.equal(parseDuration("5m", "x"), 300_000);
  assert.equal(parseDuration("1h", "x"), 3600_000);
});

Deno.test("the arguments the installed Deployment passes are the webhook's own", () => {
  const options = defaultInstallOptions({ timeoutSeconds: 15, exemptLabel: undefined });
  const config = parseWebhookArgs(webhookArgs(options), {});
  assert.ok(config !== "help");
  assert.equal(config.port, 8443);
  assert.equal(config.tlsCertFile, "/etc/toolkit/tls/tls.crt");
  assert.equal(config.namespace, "toolkit-system");
  assert.equal(config.exemptLabel, undefined);
  assert.equal(config.budgetMs, 13_000);
  assert.equal(config.registriesD, "/etc/toolkit/registries.d");
  const labelled = parseWebhookArgs(webhookArgs(defaultInstallOptions()), {});
  assert.ok(labelled !== "help");
  assert.deepEqual(labelled.exemptLabel, { key: "toolkit.dev/image-security", value: "exempt" });
});

Deno.test("parseWebhookArgs() reads the bounds of a request, with documented defaults", () => {
  const base = ["--tls-cert-file", "c", "--tls-key-file", "k"];
  const defaults = parseWebhookArgs(base);
  assert.ok(defaults !== "help");
  assert.equal(defaults.maxImages, 256);
  assert.equal(defaults.maxVerifications, 64);
  assert.equal(defaults.maxRequestBytes, 3 * 1024 * 1024);
  assert.equal(defaults.maxRequestBytesInFlight, 32 * 1024 * 1024);
  const set = parseWebhookArgs([
    ...base,
    "--max-images",
    "10",
    "--max-verifications",
    "4",
    "--max-request-bytes",
    "1048576",
  ]);
  assert.ok(set !== "help");
  assert.deepEqual([set.maxImages, set.maxVerifications, set.maxRequestBytes], [10, 4, 1048576]);
  assert.throws(() => parseWebhookArgs([...base, "--max-images", "0"]), /expected at least 1/);
  assert.match(WEBHOOK_USAGE, /--max-images N/);
  const pool = parseWebhookArgs([...base, "--max-request-bytes-in-flight", "67108864"]);
  assert.ok(pool !== "help");
  assert.equal(pool.maxRequestBytesInFlight, 64 * 1024 * 1024);
  // The largest body and its parse must fit the pool.
  assert.throws(
    () => parseWebhookArgs([...base, "--max-request-bytes", "8388608"]),
    /at least 10 times --max-request-bytes/,
  );
  assert.match(WEBHOOK_USAGE, /--max-request-bytes-in-flight N/);
});

Deno.test("parseWebhookArgs() reads --client-ca and opens the probe port with it", () => {
  const plain = config([]);
  assert.equal(plain.clientCaFile, undefined);
  assert.equal(plain.probePort, undefined, "without --client-ca nothing changes");
  const authenticated = config(["--client-ca", "ca.pem"]);
  assert.equal(authenticated.clientCaFile, "ca.pem");
  assert.equal(authenticated.probePort, 8444);
  assert.equal(config(["--client-ca", "ca.pem", "--probe-port", "0"]).probePort, 0);
  assert.equal(config(["--probe-port", "9000"]).probePort, 9000);
  assert.throws(
    () => config(["--client-ca", "ca.pem", "--port", "8444"]),
    /--probe-port 8444: it is the --port/,
  );
  assert.throws(() => config(["--probe-port", "x"]), /--probe-port "x": expected a number/);
  assert.throws(() => config(["--client-ca", ""]), /--client-ca "": expected a file/);
  assert.match(WEBHOOK_USAGE, /--client-ca FILE/);
  assert.match(WEBHOOK_USAGE, /--probe-port N/);
});

Deno.test("parseWebhookArgs() reads --max-rsa-key-bits, 4096 by default, 2048 to 8192", () => {
  const base = ["--tls-cert-file", "c", "--tls-key-file", "k"];
  const defaults = parseWebhookArgs(base);
  assert.ok(defaults !== "help");
  assert.equal(defaults.maxRsaKeyBits, 4096);
  const set = parseWebhookArgs([...base, "--max-rsa-key-bits", "8192"]);
  assert.ok(set !== "help");
  assert.equal(set.maxRsaKeyBits, 8192);
  for (const bad of ["8193", "1024", "24576", "x"]) {
    assert.throws(() => parseWebhookArgs([...base, "--max-rsa-key-bits", bad]), UsageError);
  }
  assert.match(WEBHOOK_USAGE, /--max-rsa-key-bits N/);
});

Deno.test("--policy-reports turns the report controller on, with its resync and registry rate", () => {
  assert.equal(config([]).policyReports, undefined);
  assert.deepEqual(config(["--policy-reports"]).policyReports, {
    resyncMs: 600_000,
    registryRate: 5,
    debounceMs: 1000,
  });
  assert.deepEqual(
    config([
      "--policy-reports",
      "--reports-resync=30s",
      "--reports-registry-rate=0.5",
      "--reports-debounce=200ms",
    ]).policyReports,
    { resyncMs: 30_000, registryRate: 0.5, debounceMs: 200 },
  );
  // With --policies files there is no cluster to report on.
  assert.equal(config(["--policy-reports", "--policies", "p.yaml"]).policyReports, undefined);
  assert.throws(() => config(["--policy-reports", "--reports-resync=500ms"]), /below 1s/);
  assert.throws(() => config(["--reports-registry-rate=0"]), /--reports-registry-rate "0"/);
  assert.throws(() => config(["--reports-registry-rate=fast"]), /--reports-registry-rate/);
  assert.match(WEBHOOK_USAGE, /--policy-reports/);
});
