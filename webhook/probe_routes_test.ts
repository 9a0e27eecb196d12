import assert from "node:assert/strict";
import type { WebhookRequest } from "./handler.ts";
import { PROBE_PATHS, probeRoutes } from "./probe_routes.ts";

Deno.test("probeRoutes() passes /healthz, /readyz and /metrics on and answers 404 to the rest", async () => {
  const seen: string[] = [];
  const routes = probeRoutes((request) => {
    seen.push(request.path);
    return { status: 200, contentType: "text/plain", body: "ok\n" };
  });
  const ask = (method: string, path: string) =>
    routes(
      {
        method,
        path,
        json: () => {
          throw new Error("the body is never read");
        },
      } satisfies WebhookRequest,
    );
  for (const path of PROBE_PATHS) assert.equal((await ask("GET", path)).status, 200);
  for (const path of ["/admit", "/", "/healthz/", "/admit?x=/healthz"]) {
    assert.equal((await ask("POST", path)).status, 404, path);
  }
  assert.deepEqual(seen, ["/healthz", "/readyz", "/metrics"]);
});
