/**
 * The errors of reading and making keys (OpenPGP and PEM alike).
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";

/** Key material that cannot be read or used. */
export class InvalidKeyError extends ToolkitError {
  /**
   * True when the key is of the right kind but its passphrase or password is wrong (or the key
   * damaged); false when the key is not what was asked for (a public key for a private one).
   */
  readonly wrongSecret: boolean;

  /** Creates the error; the message says what is wrong. */
  constructor(message: string, options?: ErrorOptions & { readonly wrongSecret?: boolean }) {
    super(message, options);
    this.name = "InvalidKeyError";
    this.wrongSecret = options?.wrongSecret ?? false;
  }
}

/** A key pair that could not be generated. */
export class KeyGenerationError extends ToolkitError {
  /** Creates the error; the message says what is wrong. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KeyGenerationError";
  }
}
