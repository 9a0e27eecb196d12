/**
 * Failures of the admission decision. Each one ends in a denial that carries its message:
 * the webhook fails closed.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";

/** A policy that cannot be applied: a missing key Secret, a key that cannot be read, … */
export class PolicyConfigError extends ToolkitError {
  /** Creates the error; the message follows `Cannot <action> "<value>": <detail>`. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PolicyConfigError";
  }
}

/** The work for a review did not finish within its time budget. */
export class DeadlineExceededError extends ToolkitError {
  /** The budget, in milliseconds. */
  readonly budgetMs: number;
  /** Creates the error for a budget. */
  constructor(budgetMs: number) {
    super(`Cannot finish verification within the time budget of ${formatDuration(budgetMs)}`);
    this.name = "DeadlineExceededError";
    this.budgetMs = budgetMs;
  }
}

/** The API server (or the policy file) could not be read. */
export class PolicySourceError extends ToolkitError {
  /** Creates the error; the message follows `Cannot <action> "<value>": <detail>`. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PolicySourceError";
  }
}

/** `8s`, `1.5s`, `250ms`. */
export function formatDuration(ms: number): string {
  if (ms >= 1000) return `${Number((ms / 1000).toFixed(3))}s`;
  return `${Math.round(ms)}ms`;
}

/**
 * Resolves or rejects like `promise`, but rejects with the signal's reason as soon as `signal`
 * aborts (the work itself is left to notice the signal on its own).
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** A deadline: a signal that aborts with {@linkcode DeadlineExceededError} after `ms`. */
export interface Deadline extends Disposable {
  /** Aborts when the time is up. */
  readonly signal: AbortSignal;
  /** Stops the timer (the signal then never aborts). */
  clear(): void;
}

/** Starts a deadline of `ms` milliseconds; clear it (or `using`) when the work is done. */
export function startDeadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceededError(ms)), ms);
  const clear = () => clearTimeout(timer);
  return { signal: controller.signal, clear, [Symbol.dispose]: clear };
}
