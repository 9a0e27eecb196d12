import assert from "node:assert/strict";
import { createHandler } from "./handler.ts";

Deno.test("createHandler() answers /healthz with ok", async () => {
  const response = await createHandler()(new Request("https://webhook/healthz"));
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "ok\n");
});

Deno.test("createHandler() answers unknown paths with 404", async () => {
  const response = await createHandler()(new Request("https://webhook/nope"));
  assert.equal(response.status, 404);
  await response.body?.cancel();
});

Deno.test("createHandler() refuses POST on /healthz", async () => {
  const response = await createHandler()(
    new Request("https://webhook/healthz", { method: "POST" }),
  );
  assert.equal(response.status, 405);
  await response.body?.cancel();
});
