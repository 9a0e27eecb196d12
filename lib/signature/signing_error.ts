/**
 * The error of a signature that could not be made, shared by the payloads built here and the
 * signing of lib/signing.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";

/** A signature that could not be made. */
export class SigningError extends ToolkitError {
  /** Creates the error; the message says what is wrong. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SigningError";
  }
}
