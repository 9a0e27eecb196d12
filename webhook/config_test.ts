import assert from "node:assert/strict";
import { parseWebhookArgs } from "./config.ts";
import { UsageError } from "../lib/errors.ts";

Deno.test("parseWebhookArgs() reads the port and TLS files", () => {
  assert.deepEqual(
    parseWebhookArgs(["--port", "9443", "--tls-cert-file", "c.pem", "--tls-key-file", "k.pem"]),
    { hostname: "0.0.0.0", port: 9443, tlsCertFile: "c.pem", tlsKeyFile: "k.pem" },
  );
});

Deno.test("parseWebhookArgs() rejects a bad port, unknown flags and missing TLS files", () => {
  const tls = ["--tls-cert-file", "c", "--tls-key-file", "k"];
  assert.throws(() => parseWebhookArgs(["--port", "70000", ...tls]), UsageError);
  assert.throws(() => parseWebhookArgs(["--bogus", ...tls]), UsageError);
  assert.throws(() => parseWebhookArgs(["--port", "1"]), /tls-cert-file/);
});

Deno.test("parseWebhookArgs() returns help for -h", () => {
  assert.equal(parseWebhookArgs(["-h"]), "help");
});
