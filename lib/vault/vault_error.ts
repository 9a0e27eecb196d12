/**
 * The error a key vault (IBM Cloud Key Protect, Hyper Protect Crypto Services) or its token
 * service (IBM Cloud IAM) failed with.
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
  /** The HTTP status of the answer; absent when no answer came (timeout, network failure). */
  status?: number;
  /** The vault's error code (Key Protect reason code or IAM `errorCode`), when it gave one. */
  code?: string;
  /** The vault's reasons (Key Protect), in its order. */
  reasons?: readonly VaultReason[];
}

/**
 * A request to a key vault or to IAM that failed. The message keeps the vault's own text
 * (Key Protect's `errorMsg` and `reasons`, IAM's `errorMessage` and `errorCode`) and never
 * contains an API key or a token.
 */
export class VaultError extends ToolkitError {
  /** The HTTP status of the answer; `undefined` when no answer came. */
  readonly status: number | undefined;
  /** The vault's first error code, when it gave one. */
  readonly code: string | undefined;
  /** The vault's reasons (empty when it gave none). */
  readonly reasons: readonly VaultReason[];

  /** Creates the error. */
  constructor(message: string, options: VaultErrorOptions = {}) {
    const { status, code, reasons, ...errorOptions } = options;
    super(message, errorOptions);
    this.name = "VaultError";
    this.status = status;
    this.reasons = reasons ?? [];
    this.code = code ?? this.reasons[0]?.code;
  }
}
