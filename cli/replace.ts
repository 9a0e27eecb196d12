/**
 * Replacing what a user has: a command that would overwrite an object (a Secret enforcement
 * trusts, credentials, a user's Secret) that exists with other content does so only with
 * `--replace`, or a yes to the question on a terminal. Without either it changes nothing and
 * says which flag replaces it: a usage error (exit 2), as "the file exists, pass --force" is,
 * since the command line is what the user changes to go on.
 *
 * @module
 */
import type { CommandContext } from "./command.ts";
import { UsageError } from "../lib/errors.ts";

/**
 * The object is left as it is: the user answered no. A usage error too (exit 2, as `pipeline`'s
 * Jenkins job): `--replace` on the command line is what replaces it.
 */
export class ReplaceDeclinedError extends UsageError {
  /** Creates the error for `what`. */
  constructor(what: string, flag: string) {
    super(`${what} was left as it is: nothing was changed (${flag} replaces it)`);
    this.name = "ReplaceDeclinedError";
  }
}

/** What {@linkcode confirmReplace} asks about. */
export interface ReplaceQuestion {
  /** The object, as messages name it: `Secret "shop/signing"`. */
  readonly what: string;
  /** What it holds now, after "already": `holds other keys (ABCD…)`. */
  readonly differs: string;
  /** `--replace` given. */
  readonly replace: boolean;
  /** The flag that says yes (default `--replace`). */
  readonly flag?: string;
}

/**
 * Returns when the object may be replaced: `--replace` was given, or the user said yes on a
 * terminal. Otherwise throws: a {@linkcode UsageError} naming the flag without a terminal, a
 * {@linkcode ReplaceDeclinedError} (also exit 2) when the user said no.
 */
export async function confirmReplace(
  ctx: CommandContext,
  question: ReplaceQuestion,
): Promise<void> {
  if (question.replace) return;
  const flag = question.flag ?? "--replace";
  if (!ctx.io.interactive) {
    throw new UsageError(
      `${question.what} already ${question.differs}; pass ${flag} to replace it`,
    );
  }
  const yes = await ctx.terminal.askConfirm(
    `${question.what} already ${question.differs}. Replace it?`,
    false,
  );
  if (!yes) throw new ReplaceDeclinedError(question.what, flag);
}
