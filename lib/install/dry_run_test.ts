import assert from "node:assert/strict";
import { encodeBase64 } from "../base64.ts";
import type { KubeObject } from "../kube/mod.ts";
import { withoutPrivateKeys } from "./dry_run.ts";

const KEY = "-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n";
const EC_KEY = "-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n";
const CERT = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

Deno.test("withoutPrivateKeys() empties every Secret entry holding a private key, and only those", () => {
  const tls: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "toolkit-webhook-tls", namespace: "toolkit-system" },
    type: "kubernetes.io/tls",
    data: { "tls.crt": encodeBase64(CERT), "tls.key": encodeBase64(KEY), "ca.crt": "" },
  };
  const clientCa: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "client-ca", namespace: "toolkit-system" },
    stringData: { "ca.crt": CERT, "ca.key": EC_KEY },
  };
  const notBase64: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "odd" },
    data: { "x": "%%%" },
  };
  const configMap: KubeObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "keys", namespace: "toolkit-system" },
    data: { "key.pem": KEY },
  };
  const { objects, emptied } = withoutPrivateKeys([tls, clientCa, notBase64, configMap]);
  assert.deepEqual(emptied, [
    'Secret "toolkit-system/toolkit-webhook-tls" tls.key',
    'Secret "toolkit-system/client-ca" ca.key',
  ]);
  assert.deepEqual(objects[0]!.data, {
    "tls.crt": encodeBase64(CERT),
    "tls.key": "",
    "ca.crt": "",
  });
  assert.equal(objects[0]!.type, "kubernetes.io/tls");
  assert.deepEqual(objects[1]!.stringData, { "ca.crt": CERT, "ca.key": "" });
  assert.deepEqual(objects[2], notBase64);
  assert.equal(objects[3], configMap, "only Secrets");
  // The objects given are left as they were.
  assert.equal((tls.data as Record<string, string>)["tls.key"], encodeBase64(KEY));
  assert.doesNotMatch(JSON.stringify(objects.slice(0, 2)), /PRIVATE KEY/);
});
