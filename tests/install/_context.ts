/**
 * The command context the install end-to-end tests run `toolkit image-security` commands with:
 * buffered output (read back with `io.out()` and `io.err()`) and, optionally, a working directory.
 *
 * @module
 */
import { bindOptions, type CommandContext } from "../../cli/command.ts";
import {
  DISABLE,
  ENABLE_ENFORCEMENT,
  ROTATE_CERTS,
  STATUS,
} from "../../cli/image_security/enforcement_command.ts";
import { KEY_SECRET } from "../../cli/image_security/key_secret_command.ts";
import * as install from "../../cli/image_security/enforcement.ts";
import * as keySecret from "../../cli/image_security/key_secret.ts";
import { type BufferedIO, bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";

/** A fresh buffered context for one command. */
export function context(cwd?: string): { io: BufferedIO; ctx: CommandContext } {
  const io = bufferedIO(cwd === undefined ? {} : { cwd });
  return { io, ctx: commandContext(io) };
}

/**
 * The `image-security` commands as the CLI runs them: each takes its flags by name (as on the
 * command line, `"dry-run"` or `dryRun`), resolved and checked against its declaration.
 */
export const runEnable = bindOptions(ENABLE_ENFORCEMENT, install.runEnable);
/** `image-security status`. */
export const runStatus = bindOptions(STATUS, install.runStatus);
/** `image-security disable`. */
export const runDisable = bindOptions(DISABLE, install.runDisable);
/** `image-security rotate-certs`. */
export const runRotateCerts = bindOptions(ROTATE_CERTS, install.runRotateCerts);
/** `image-security key-secret`. */
export const runKeySecret = bindOptions(KEY_SECRET, keySecret.run);
