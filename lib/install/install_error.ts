/**
 * The error of installation steps: a bad choice (`--lookaside`, a webhook URL) or an
 * installation that cannot be read or changed.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";

/** An installation step failed. */
export class InstallError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InstallError";
  }
}
