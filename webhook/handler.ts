/**
 * The webhook's routes, kept apart from the HTTP server: {@linkcode createRoutes} takes a
 * {@linkcode WebhookRequest} (a method, a path and a way to read the body) and gives a
 * {@linkcode WebhookAnswer} (status, content type, text), so the server of `server.ts` calls them
 * (each connection an `Http1Connection` of `http1.ts`) without building `Request` and `Response`
 * objects; the tests and the fuzz harness reach them the same way
 * (`tests/fakes/webhook_loopback.ts`). They are transport only: they
 * read the AdmissionReview, ask the evaluator, and write the answer, a log line, the metrics and
 * (for denials) an Event.
 *
 * | Path | Answer |
 * |---|---|
 * | `POST /admit` | the AdmissionReview response; 400 for a body that is not one, 413 over `maxBodyBytes` or past its shape (`bodyShapeLimits`) |
 * | `GET /healthz` | `ok` while the process serves |
 * | `GET /readyz` | `ok` once the policies are loaded, 503 before |
 * | `GET /metrics` | Prometheus text |
 *
 * The probes never wait for reviews: a review's work is bounded before it starts (see
 * `lib/admission/evaluate.ts`), so the event loop is never held for long.
 *
 * @module
 */
import {
  type AdmissionDecision,
  type AdmissionEvaluator,
  type AdmissionRequest,
  admissionResponse,
  admissionReviewResponse,
  DeadlineScheduler,
  type EventRecorder,
  internalErrorResponse,
  InvalidAdmissionReviewError,
  parseAdmissionReview,
} from "../lib/admission/mod.ts";
import { JsonShapeError } from "../lib/json_shape.ts";
import type { JsonLog } from "./log.ts";
import type { DecisionLabel, WebhookMetrics } from "./metrics.ts";

/** What the handler depends on. */
export interface HandlerDeps {
  /** Decides reviews. */
  readonly evaluator: AdmissionEvaluator;
  /** Whether the policies are loaded. */
  readonly ready: () => boolean;
  /** Counters. */
  readonly metrics: WebhookMetrics;
  /** The log. */
  readonly log: JsonLog;
  /** Records denials as Events. */
  readonly events?: EventRecorder | undefined;
  /**
   * The longest a review may take before the handler denies it itself (a guard behind the
   * evaluator's own budget). In ms.
   */
  readonly guardMs: number;
  /** The largest request body read. @default 3 MiB */
  readonly maxBodyBytes?: number;
  /** A monotonic clock in ms. @default `performance.now` */
  readonly now?: () => number;
  /** Where the guard deadlines are scheduled. @default a scheduler of its own */
  readonly deadlines?: DeadlineScheduler;
}

/** A request as the routes see it, whichever HTTP server carried it. */
export interface WebhookRequest {
  readonly method: string;
  /** The path, without the query. */
  readonly path: string;
  /**
   * The body parsed as JSON, or a promise of it when it is still to be read. Throws (or
   * rejects with) {@linkcode RequestBodyTooLargeError} when it is (or says it is) longer than
   * `limit` bytes, before reading more than that, `JsonShapeError` when its shape passes
   * `bodyShapeLimits` (found before it is parsed), and `SyntaxError` when it is not JSON.
   */
  json(limit: number): unknown;
  /**
   * Aborts when the client has gone (its connection closed) before the answer was written: the
   * review's verifications then end as they do at its deadline, and give back their slots.
   */
  readonly gone?: AbortSignal;
}

/** What the routes answer. */
export interface WebhookAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  /**
   * What waits until the answer has been handed to the connection (a review's log line, metrics
   * and Event): the server calls it once, right after the write (or when the connection has gone
   * before it), so that none of it delays the answer. It does not throw.
   */
  readonly written?: () => void;
}

/** The client closed its connection before its answer was written. */
export class ClientGoneError extends Error {
  constructor() {
    super("the client closed the connection before the answer");
    this.name = "ClientGoneError";
  }
}

/** A request body over the limit. */
export class RequestBodyTooLargeError extends Error {
  constructor() {
    super("request body too large");
    this.name = "RequestBodyTooLargeError";
  }
}

const JSON_TYPE = "application/json";
const TEXT_TYPE = "text/plain; charset=utf-8";
const METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function text(body: string, status = 200): WebhookAnswer {
  return { status, contentType: TEXT_TYPE, body };
}

/** The path of an absolute URL, without parsing the whole URL (this is the hot path). */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}

/**
 * Builds the routes. An answer is given at once (not as a promise) when everything it needs was
 * at hand: a warm review is answered in the turn its body arrived in.
 */
export function createRoutes(
  deps: HandlerDeps,
): (request: WebhookRequest) => WebhookAnswer | Promise<WebhookAnswer> {
  const now = deps.now ?? (() => performance.now());
  const limit = deps.maxBodyBytes ?? 3 * 1024 * 1024;
  const deadlines = deps.deadlines ?? new DeadlineScheduler();

  function reply(body: unknown): WebhookAnswer {
    return { status: 200, contentType: JSON_TYPE, body: JSON.stringify(body) };
  }

  /**
   * The evaluator's decision, "error" when it failed or ran past the guard; the decision itself
   * when the evaluator had it at once (a warm review takes no promise and no guard).
   */
  function guarded(
    request: AdmissionRequest,
    gone: AbortSignal | undefined,
  ): AdmissionDecision | "error" | Promise<AdmissionDecision | "error"> {
    let decision: AdmissionDecision | Promise<AdmissionDecision>;
    try {
      decision = deps.evaluator.evaluate(request, gone);
    } catch {
      return "error";
    }
    if (!(decision instanceof Promise)) return decision;
    return deadlines.race(decision, deps.guardMs).catch(() => "error" as const);
  }

  /** The answer to a body that is not an AdmissionReview (or could not be read). */
  function refused(error: unknown): WebhookAnswer {
    if (error instanceof RequestBodyTooLargeError) return text("request body too large\n", 413);
    if (error instanceof JsonShapeError) {
      // Refused before it was parsed; the API server fails the call, and so denies the request.
      deps.log.write({ level: "warn", msg: "bad request", detail: error.message });
      return text(`${error.message}\n`, 413);
    }
    if (!(error instanceof SyntaxError || error instanceof InvalidAdmissionReviewError)) {
      return text("cannot read the request body\n", 400);
    }
    const detail = error instanceof InvalidAdmissionReviewError
      ? error.message
      : "Cannot read AdmissionReview: the body is not JSON";
    deps.log.write({ level: "warn", msg: "bad request", detail });
    return text(`${detail}\n`, 400);
  }

  /** Answers a review; at once (no promise) when the body and the decision were at hand. */
  function admit(http: WebhookRequest): WebhookAnswer | Promise<WebhookAnswer> {
    const started = now();
    let body: unknown;
    try {
      body = http.json(limit);
    } catch (error) {
      return refused(error);
    }
    if (body instanceof Promise) return body.then((b) => review(b, started, http.gone), refused);
    return review(body, started, http.gone);
  }

  function review(
    body: unknown,
    started: number,
    gone: AbortSignal | undefined,
  ): WebhookAnswer | Promise<WebhookAnswer> {
    let request: AdmissionRequest;
    try {
      request = parseAdmissionReview(body);
    } catch (error) {
      return refused(error);
    }
    const decision = guarded(request, gone);
    if (decision instanceof Promise) return decision.then((d) => answer(request, d, started));
    return answer(request, decision, started);
  }

  function answer(
    request: AdmissionRequest,
    decision: AdmissionDecision | "error",
    started: number,
  ): WebhookAnswer {
    const seconds = (now() - started) / 1000;
    // The log line, the metrics and the Event wait until the answer has been written.
    const written = () => {
      try {
        recordReview(request, decision, seconds);
      } catch {
        // A log, a metric or an Event cannot change an answer already sent.
      }
    };
    const response = decision === "error"
      ? internalErrorResponse(request.uid)
      : admissionResponse(request.uid, decision);
    return { ...reply(admissionReviewResponse(response)), written };
  }

  function recordReview(
    request: AdmissionRequest,
    decision: AdmissionDecision | "error",
    seconds: number,
  ): void {
    const base = {
      uid: request.uid,
      kind: request.kind.kind,
      resource: request.subResource
        ? `${request.resource.resource}/${request.subResource}`
        : request.resource.resource,
      namespace: request.namespace,
      name: request.name,
      operation: request.operation,
      durationMs: Math.round(seconds * 1e5) / 100,
    };
    if (decision === "error") {
      deps.metrics.review("error", seconds);
      deps.log.write({
        level: "error",
        msg: "review",
        ...base,
        decision: "deny",
        allowed: false,
        reasons: ["internal error"],
      });
      return;
    }
    deps.metrics.review(decision.outcome as DecisionLabel, seconds, decision.cause);
    deps.log.write({
      msg: "review",
      ...base,
      decision: decision.outcome,
      allowed: decision.allowed,
      ...(decision.cause ? { cause: decision.cause } : {}),
      ...(decision.note ? { note: decision.note } : {}),
      ...(decision.reasons.length ? { reasons: decision.reasons } : {}),
      ...(decision.warnings.length ? { warnings: decision.warnings } : {}),
      ...(decision.patch.length ? { patched: decision.patch.length } : {}),
    });
    if (!decision.allowed) deps.events?.denied(request, decision);
  }

  return (request: WebhookRequest): WebhookAnswer | Promise<WebhookAnswer> => {
    const get = request.method === "GET" || request.method === "HEAD";
    switch (request.path) {
      case "/admit":
        if (request.method !== "POST") return text("method not allowed\n", 405);
        return admit(request);
      case "/healthz":
        return get ? text("ok\n") : text("method not allowed\n", 405);
      case "/readyz":
        if (!get) return text("method not allowed\n", 405);
        return deps.ready() ? text("ok\n") : text("policies not loaded yet\n", 503);
      case "/metrics":
        if (!get) return text("method not allowed\n", 405);
        return { status: 200, contentType: METRICS_TYPE, body: deps.metrics.render(deps.ready()) };
      default:
        return text("not found\n", 404);
    }
  };
}
