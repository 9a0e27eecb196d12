/**
 * Errors of the Kubernetes layer: no usable kubeconfig context, a request the API server
 * refused, and an answer that cannot be read.
 *
 * @module
 */
import { safeExcerpt, ToolkitError } from "../errors.ts";

/**
 * There is no kubeconfig context toolkit can use: no kubeconfig file, no current context, a
 * context that names a missing cluster, or an API server that cannot be reached or does not
 * accept the credentials.
 */
export class NoClusterContextError extends ToolkitError {
  /** What is wrong, e.g. `no current-context in /home/me/.kube/config`. */
  readonly detail: string;

  /** Creates the error; `detail` says what is missing or failing. */
  constructor(
    detail: string,
    options?: ErrorOptions & { readonly messageTellsCause?: boolean },
  ) {
    super(
      `No usable kubeconfig context: ${detail}; log in to a cluster or pass --kubeconfig/--context`,
      options,
    );
    this.name = "NoClusterContextError";
    this.detail = detail;
  }
}

/** The `Status` the API server sends with an error. */
export interface KubeStatus {
  /** `NotFound`, `AlreadyExists`, `Conflict`, `Forbidden`, `Invalid`, … */
  readonly reason?: string;
  /** The server's message, e.g. `namespaces "dev" not found`. */
  readonly message?: string;
}

/** The API server answered a request with an error status. */
export class KubeApiError extends ToolkitError {
  /** The HTTP status (404, 409, 403, …). */
  readonly status: number;
  /** The `reason` of the Status object (`NotFound`, `AlreadyExists`, …), or "" when absent. */
  readonly reason: string;
  /** The request method. */
  readonly method: string;
  /** The request path. */
  readonly path: string;

  /**
   * Creates the error. `action` says what was attempted, in the project's message form
   * (`create ConfigMap "dev/app-config"`).
   */
  constructor(
    action: string,
    request: { method: string; path: string },
    status: number,
    body: KubeStatus | undefined,
  ) {
    const reason = body?.reason ?? "";
    // The server's message may quote the object it refused (a Secret's data): quoted bounded
    // and scrubbed, like every remote text.
    const message = body?.message ? safeExcerpt(body.message, { maxChars: 500 }) : "";
    const detail = message || `${status}${reason ? ` ${reason}` : ""}`;
    super(`Cannot ${action}: ${detail}`);
    this.name = "KubeApiError";
    this.status = status;
    this.reason = reason;
    this.method = request.method;
    this.path = request.path;
  }
}

/** The API server's answer to a successful request could not be read (it is not JSON). */
export class KubeAnswerError extends ToolkitError {
  /** Creates the error; the message follows `Cannot <action>: <detail>`. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KubeAnswerError";
  }
}

/** True when `error` is an API error with the given HTTP status. */
export function isStatus(error: unknown, status: number): error is KubeApiError {
  return error instanceof KubeApiError && error.status === status;
}
