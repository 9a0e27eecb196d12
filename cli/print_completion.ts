/**
 * `toolkit completion [bash|zsh]`: prints the completion script of the shell, which asks
 * `toolkit __complete WORDS…` for the candidates (`completion.ts`).
 *
 * @module
 */
import type { CommandContext } from "./command.ts";
import type { OptionsOf } from "./options.ts";
import type { COMPLETION } from "./completion_command.ts";
import { completionScript } from "./completion.ts";

/** Runs `completion`. */
export function run(options: OptionsOf<typeof COMPLETION>, ctx: CommandContext): Promise<number> {
  ctx.io.stdout.write(completionScript(options.shell, ctx.programName));
  if (options.verbose) {
    const bin = ctx.programName === "kubectl toolkit" ? "kubectl-toolkit" : ctx.programName;
    ctx.io.stderr.write(
      `Load it with: source <(${bin} completion ${options.shell}) (in ~/.${options.shell}rc to keep it)\n`,
    );
  }
  return Promise.resolve(0);
}
