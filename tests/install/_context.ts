/**
 * The command context the install end-to-end tests run `toolkit image-security` commands with:
 * buffered output (read back with `io.out()` and `io.err()`) and, optionally, a working directory.
 *
 * @module
 */
import type { CommandContext } from "../../cli/command.ts";
import { type BufferedIO, bufferedIO } from "../../cli/io.ts";

/** A fresh buffered context for one command. */
export function context(cwd?: string): { io: BufferedIO; ctx: CommandContext } {
  const io = bufferedIO(cwd === undefined ? {} : { cwd });
  return { io, ctx: { io, programName: "toolkit" } };
}
