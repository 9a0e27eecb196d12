/**
 * toolkit's webhook without its decision, for `pod_create_bench.ts`: the same HTTPS listener
 * (`webhook/server.ts`), handler (`webhook/handler.ts`: body read and parse, guard deadline,
 * metrics, log line, answer), log and metrics as `webhook/main.ts` composes them, but an
 * evaluator that answers a fixed decision at once, with the digest-pinning patch of the
 * review's kind. What it costs beyond a bare `Deno.serve` is the cost of toolkit's transport;
 * what the real webhook costs beyond it is the cost of deciding.
 *
 * Environment: `PORT`, `CERT`, `KEY` (files), `PATCH_POD` and `PATCH_DEPLOYMENT` (JSON patches).
 *
 * @module
 */
import { createHandler } from "../../webhook/handler.ts";
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
  Pod: JSON.parse(env("PATCH_POD")),
  Deployment: JSON.parse(env("PATCH_DEPLOYMENT")),
};

const log = createJsonLog(fileWriter(Deno.stdout));
const deadlines = new DeadlineScheduler();
const handler = createHandler({
  evaluator: {
    evaluate: (request: AdmissionRequest): Promise<AdmissionDecision> =>
      Promise.resolve({
        allowed: true,
        outcome: "allow",
        kind: request.kind.kind,
        reasons: [],
        warnings: [],
        patch: patches[request.kind.kind] ?? [],
        sites: [],
      }),
  },
  ready: () => true,
  metrics: new WebhookMetrics(),
  log,
  guardMs: 11_000,
  deadlines,
});
const server = await startTlsServer({
  hostname: "127.0.0.1",
  port: Number(env("PORT")),
  certFile: env("CERT"),
  keyFile: env("KEY"),
  reloadIntervalMs: 10_000,
}, handler);
Deno.addSignalListener("SIGTERM", () => {
  void server.shutdown().then(() => {
    log.flush();
    Deno.exit(0);
  });
});
await server.finished;
