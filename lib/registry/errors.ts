/**
 * Errors of the registry client. Every message has the form `Cannot <action> "<value>": <detail>`
 * and none of them ever carries a password, an `auth` value, a token or the contents of a secret.
 *
 * @module
 */

import { ToolkitError } from "../errors.ts";

/** What a {@linkcode RegistryError} knows about the failed request. */
export interface RegistryErrorDetails {
  /** The registry host (`127.0.0.1:5000`, `docker.io`). */
  registry: string;
  /** The repository path inside the registry (`demo/app`), when the request was for one. */
  repository?: string | undefined;
  /** The HTTP status of the registry's answer, when there was one. */
  status?: number | undefined;
  /** The registry's error code from the JSON error body (`MANIFEST_UNKNOWN`, `UNAUTHORIZED`). */
  code?: string | undefined;
  /** The error this one wraps. */
  cause?: unknown;
  /** The message already says what the cause says (its detail). */
  messageTellsCause?: boolean;
}

/** A registry request that failed: an error status, a network failure, a timeout, bad data. */
export class RegistryError extends ToolkitError {
  /** The HTTP status of the registry's answer, when there was one. */
  readonly status: number | undefined;
  /** The registry's error code (`MANIFEST_UNKNOWN`, `UNAUTHORIZED`, `DENIED`, …), when it sent one. */
  readonly code: string | undefined;
  /** The registry host. */
  readonly registry: string;
  /** The repository path, when the request was for one. */
  readonly repository: string | undefined;

  /** Creates the error; `details.cause` becomes the standard `cause`. */
  constructor(message: string, details: RegistryErrorDetails) {
    super(message, {
      cause: details.cause,
      ...(details.messageTellsCause ? { messageTellsCause: true } : {}),
    });
    this.name = "RegistryError";
    this.status = details.status;
    this.code = details.code;
    this.registry = details.registry;
    this.repository = details.repository;
  }
}

/** The bytes a registry returned do not hash to the digest that was asked for or announced. */
export class DigestMismatchError extends RegistryError {
  /** The digest the bytes should have had. */
  readonly expected: string;
  /** The digest of the bytes received. */
  readonly actual: string;

  /** Creates the error for `subject` (a formatted reference). */
  constructor(
    action: string,
    subject: string,
    expected: string,
    actual: string,
    details: RegistryErrorDetails,
  ) {
    super(
      `Cannot ${action} "${subject}": the registry returned content with digest ${actual}, expected ${expected}`,
      details,
    );
    this.name = "DigestMismatchError";
    this.expected = expected;
    this.actual = actual;
  }
}

/** A response body larger than the limit set for it; the read stopped at the limit. */
export class ResponseTooLargeError extends ToolkitError {
  /** The limit in bytes. */
  readonly limit: number;
  /** The message without the `Cannot …` prefix, for wrapping errors. */
  readonly detail: string;

  /** Creates the error for a response from `url`. */
  constructor(url: string, limit: number) {
    const detail = `the response of "${url}" is larger than the limit of ${limit} bytes`;
    super(`Cannot read the response of "${url}": the body is larger than ${limit} bytes`);
    this.name = "ResponseTooLargeError";
    this.limit = limit;
    this.detail = detail;
  }
}

/** A request that got no answer: refused, reset, TLS failure, or no answer within the timeout. */
export class TransportError extends ToolkitError {
  /** Whether the request ran out of time (as opposed to failing on the network). */
  readonly timedOut: boolean;
  /**
   * Whether an HTTPS request reached a server that answered in plain HTTP (the TLS handshake read
   * an HTTP answer): the registry is reached over HTTP only (skopeo's `--tls-verify=false`).
   */
  readonly plainHttp: boolean;
  /** The message without the `Cannot …` prefix, for wrapping errors. */
  readonly detail: string;

  /** Creates the error for a request to `url`. */
  constructor(
    url: string,
    detail: string,
    options: { timedOut: boolean; plainHttp?: boolean; cause?: unknown },
  ) {
    // A timeout's cause (a RequestTimeoutError) says what the message says.
    super(`Cannot send the request to "${url}": ${detail}`, {
      cause: options.cause,
      messageTellsCause: options.timedOut,
    });
    this.name = "TransportError";
    this.timedOut = options.timedOut;
    this.plainHttp = options.plainHttp ?? false;
    this.detail = `${url}: ${detail}`;
  }
}

/**
 * Registry credentials that cannot be read: a malformed pull secret, auth file or `--creds`
 * value. The message names the source (`secret "default/regcred"`) and never its contents.
 */
export class CredentialsError extends ToolkitError {
  /** The source of the credentials: `secret "ns/name"`, `auth file "/path"`, `--creds`. */
  readonly source: string;

  /** Creates the error for `source` with a `detail` that must not quote the contents. */
  constructor(source: string, detail: string) {
    super(`Cannot read registry credentials from ${source}: ${detail}`);
    this.name = "CredentialsError";
    this.source = source;
  }
}
