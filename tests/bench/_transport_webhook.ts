/**
 * toolkit's webhook without its decision, for `pod_create_bench.ts`: the same HTTPS listener
 * (`webhook/server.ts`), routes (`webhook/handler.ts`: body parse, guard deadline, metrics, log
 * line, answer), log and metrics as `webhook/main.ts` composes them, but an evaluator that answers
 * a fixed decision at once, with the digest-pinning patch of the object's shape (the first letter
 * of its name, as `_pod_shapes.ts` names them). What it costs beyond the bare references is the
 * cost of toolkit's transport; what the real webhook costs beyond it is the cost of deciding.
 *
 * Environment: `PORT`, `CERT`, `KEY` (files), `PATCH_P`, `PATCH_R` and `PATCH_D` (JSON patches
 * for names starting with `p`, `r` and `d`).
 *
 * @module
 */
import { createRoutes } from "../../webhook/handler.ts";
import { createJsonLog, fileWriter } from "../../webhook/log.ts";
import { WebhookMetrics } from "../../webhook/metrics.ts";
import { startTlsServer } from "../../webhook/server.ts";
import {
  type AdmissionDecision,
  type AdmissionRequest,
  DeadlineScheduler,
  type JsonPatchOperation,
} from "../../lib/admission/mod.ts";

const env = (name: string): string => {
  const value = Deno.env.get(name);
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const patches: Record<string, readonly JsonPatchOperation[]> = {
  p: JSON.parse(env("PATCH_P")),
  r: JSON.parse(env("PATCH_R")),
  d: JSON.parse(env("PATCH_D")),
};

const log = createJsonLog(fileWriter(Deno.stdout));
const deadlines = new DeadlineScheduler();
const deps = {
  evaluator: {
    evaluate: (request: AdmissionRequest): Promise<AdmissionDecision> =>
      Promise.resolve({
        allowed: true,
        outcome: "allow",
        kind: request.kind.kind,
        reasons: [],
        warnings: [],
        patch: patches[request.name?.[0] ?? ""] ?? [],
        sites: [],
      }),
  },
  ready: () => true,
  metrics: new WebhookMetrics(),
  log,
  guardMs: 11_000,
  deadlines,
};
const hostname = "127.0.0.1";
const port = Number(env("PORT"));
const server = await startTlsServer({
  hostname,
  port,
  certFile: env("CERT"),
  keyFile: env("KEY"),
  reloadIntervalMs: 10_000,
  limits: { maxBodyBytes: 8 * 1024 * 1024 },
}, createRoutes(deps));
Deno.addSignalListener("SIGTERM", () => {
  void server.shutdown().then(() => {
    log.flush();
    Deno.exit(0);
  });
});
await server.finished;
