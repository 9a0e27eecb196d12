/**
 * The errors of the vault client: a request to a key vault (IBM Cloud Key Protect, Hyper Protect
 * Crypto Services) or its token service (IBM Cloud IAM) that failed ({@linkcode VaultError}), and
 * the ways finding or storing a key by id, alias or name can fail ({@linkcode KeyNotFoundError},
 * {@linkcode KeyNotActiveError}, {@linkcode AmbiguousKeyError}, {@linkcode KeyInUseError}).
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";

/** One entry of the `reasons` list of a Key Protect error body. */
export interface VaultReason {
  /** The vault's error code, e.g. `KEY_NOT_FOUND_ERR`. */
  readonly code: string;
  /** The vault's explanation. */
  readonly message: string;
  /** The HTTP status the vault gave for this reason, when it says. */
  readonly status?: number;
  /** A link to the vault's documentation, when it gives one. */
  readonly moreInfo?: string;
}

/** What a {@link VaultError} carries besides its message. */
export interface VaultErrorOptions extends ErrorOptions {
  /** The message says what the cause says (a timeout's). */
  messageTellsCause?: boolean;
  /** The HTTP status of the answer; absent when no answer came (timeout, network failure). */
  status?: number;
  /** The vault's error code (Key Protect reason code or IAM `errorCode`), when it gave one. */
  code?: string;
  /** The vault's reasons (Key Protect), in its order. */
  reasons?: readonly VaultReason[];
  /**
   * The `correlation-id` sent with the request (Key Protect), or IAM's request id: what IBM
   * support asks for.
   */
  correlationId?: string;
  /** How many times the request was sent (more than 1 when it was retried). */
  attempts?: number;
}

/**
 * A request to a key vault or to IAM that failed. The message keeps the vault's own text
 * (Key Protect's `errorMsg` and `reasons`, IAM's `errorMessage` and `errorCode`), says how often
 * the request was tried and names its correlation id, and never contains an API key or a token.
 */
export class VaultError extends ToolkitError {
  /** The HTTP status of the answer; `undefined` when no answer came. */
  readonly status: number | undefined;
  /** The vault's first error code, when it gave one. */
  readonly code: string | undefined;
  /** The vault's reasons (empty when it gave none). */
  readonly reasons: readonly VaultReason[];
  /** The request's correlation id (Key Protect) or IAM's request id, when known. */
  readonly correlationId: string | undefined;
  /** How many times the request was sent (1 when it was not retried; 0 when never sent). */
  readonly attempts: number;

  /** Creates the error. */
  constructor(message: string, options: VaultErrorOptions = {}) {
    const { status, code, reasons, correlationId, attempts, ...errorOptions } = options;
    super(message, errorOptions);
    this.name = "VaultError";
    this.status = status;
    this.reasons = reasons ?? [];
    this.code = code ?? this.reasons[0]?.code;
    this.correlationId = correlationId;
    this.attempts = attempts ?? (status === undefined ? 0 : 1);
  }
}

/** A key as a lookup error names it: enough to tell the user which key is meant. */
export interface KeySummary {
  /** The key id. */
  readonly id: string;
  /** The display name. */
  readonly name: string;
  /** The key's aliases. */
  readonly aliases?: readonly string[];
  /** The key state (1 active, 2 suspended, 3 deactivated, 5 destroyed). */
  readonly state: number;
  /** True for a standard key, false for a root key. */
  readonly extractable: boolean;
  /** When the key was created (ISO 8601). */
  readonly creationDate: string;
}

/** Finding a key by id, alias or name failed: the base of the lookup errors below. */
export class KeyLookupError extends VaultError {
  /** The id, alias or name that was looked up. */
  readonly ref: string;
  /** The keys the lookup found and could not use (none for {@link KeyNotFoundError}). */
  readonly candidates: readonly KeySummary[];

  /** Creates the error. */
  constructor(
    message: string,
    ref: string,
    candidates: readonly KeySummary[],
    options: VaultErrorOptions = {},
  ) {
    super(message, options);
    this.name = "KeyLookupError";
    this.ref = ref;
    this.candidates = candidates;
  }
}

/**
 * Key Protect's code for a key that does not exist, with its status: IBM's tools and
 * documentation name a missing key by it, so toolkit's words about one end with it.
 */
export const KEY_NOT_FOUND = { code: "KEY_NOT_FOUND_ERR", status: 404 } as const;

/** `(KEY_NOT_FOUND_ERR, 404)`: the vendor's code and status, said beside toolkit's words. */
export function vendorCode(options: { readonly code: string; readonly status: number }): string {
  return `(${options.code}, ${options.status})`;
}

/** No key has the id, alias or name. */
export class KeyNotFoundError extends KeyLookupError {
  /** Creates the error. */
  constructor(message: string, ref: string, options: VaultErrorOptions = {}) {
    super(message, ref, [], options);
    this.name = "KeyNotFoundError";
  }
}

/**
 * The id, alias or name leads only to keys that cannot be fetched: not active (pre-active,
 * suspended, deactivated, destroyed) or root keys, whose material never leaves the vault.
 */
export class KeyNotActiveError extends KeyLookupError {
  /** Creates the error. */
  constructor(message: string, ref: string, candidates: readonly KeySummary[]) {
    super(message, ref, candidates);
    this.name = "KeyNotActiveError";
  }
}

/** More than one active key has the name: the user must choose by id or alias. */
export class AmbiguousKeyError extends KeyLookupError {
  /** Creates the error. */
  constructor(message: string, ref: string, candidates: readonly KeySummary[]) {
    super(message, ref, candidates);
    this.name = "AmbiguousKeyError";
  }
}

/** Storing a key was refused: its name or an alias is taken by another key. */
export class KeyInUseError extends KeyLookupError {
  /** Creates the error. */
  constructor(message: string, ref: string, holders: readonly KeySummary[]) {
    super(message, ref, holders);
    this.name = "KeyInUseError";
  }
}
