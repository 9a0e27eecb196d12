import assert from "node:assert/strict";
import { KubeApiError } from "./errors.ts";
import { assertNoCanary, canary } from "../../tests/fakes/secret_canary.ts";

Deno.test("KubeApiError quotes the server's message bounded and without secrets", () => {
  const secret = canary();
  const error = new KubeApiError('create Secret "dev/app"', { method: "POST", path: "/x" }, 422, {
    reason: "Invalid",
    message: `Secret "app" is invalid: data[password]: Invalid value: password=${secret} ${
      "x".repeat(2000)
    }`,
  });
  assertNoCanary(error, secret);
  assert.match(error.message, /^Cannot create Secret "dev\/app": Secret "app" is invalid/);
  assert.ok(error.message.length < 600);
  assert.equal(
    new KubeApiError("get", { method: "GET", path: "/x" }, 404, {
      message: 'namespaces "dev" not found',
    }).message,
    'Cannot get: namespaces "dev" not found',
  );
});
