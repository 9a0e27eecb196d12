/**
 * Error classes shared by the CLI, the webhook and the library.
 *
 * Expected outcomes (an image denied by policy, a signature that does not verify) are returned
 * as data. Errors are for failures: each carries a `cause` where there is one, and a message in
 * the form `Cannot <action> "<value>": <detail>`.
 *
 * @module
 */

/** Base class of every error toolkit throws on purpose. */
export class ToolkitError extends Error {
  /** Creates an error with a message and an optional cause. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolkitError";
  }
}

/**
 * A mistake in how a command was called (unknown flag, missing argument, bad value).
 * The CLI prints the message with a hint to `--help` and exits with status 2.
 */
export class UsageError extends ToolkitError {
  /** Creates a usage error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "UsageError";
  }
}

/** A feature that is registered but not built yet: says so and fails, never a fake success. */
export class NotImplementedError extends ToolkitError {
  /** Creates the error for the named feature. */
  constructor(feature: string) {
    super(`"${feature}" is not available in this version of toolkit yet`);
    this.name = "NotImplementedError";
  }
}

/** Returns the message of any thrown value, following `cause` links ("a: b: c"). */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 8; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !parts.some((p) => p.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ");
}
