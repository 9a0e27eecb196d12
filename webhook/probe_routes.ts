/**
 * The routes of the probe listener (`--probe-port`): `/healthz`, `/readyz` and `/metrics` only,
 * for the kubelet and Prometheus, which have no client certificate when the webhook's port asks
 * for one (`--client-ca`). Everything else, `/admit` first of all, is 404 there: an
 * AdmissionReview is only ever read from a client that proved itself.
 *
 * @module
 */
import type { Routes } from "./http1.ts";

/** The paths the probe listener serves. */
export const PROBE_PATHS: readonly string[] = ["/healthz", "/readyz", "/metrics"];

const NOT_FOUND = { status: 404, contentType: "text/plain; charset=utf-8", body: "not found\n" };

/** `routes` restricted to {@linkcode PROBE_PATHS}; any other path is answered 404 unread. */
export function probeRoutes(routes: Routes): Routes {
  return (request) => PROBE_PATHS.includes(request.path) ? routes(request) : NOT_FOUND;
}
