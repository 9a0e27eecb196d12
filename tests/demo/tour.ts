/**
 * The guided tour's output: numbered chapters, each command shown as the user would type it
 * (`$ toolkit …`) and its output indented under it. A command that fails when it should not
 * stops the tour with its output.
 *
 * @module
 */
import { run } from "../env/mod.ts";

/** A command the tour runs and shows. */
export interface TourCommand {
  /** What the reader would type (shown after `$`). */
  readonly shown: string;
  /** The program actually run. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Standard input. */
  readonly stdin?: string;
  /** Whether the command is expected to fail (an admission denial). */
  readonly expectFailure?: boolean;
  /** Which lines of the output to show (default all); each run of lines left out shows as `…`. */
  readonly show?: (line: string) => boolean;
}

/** What a command printed. */
export interface CommandResult {
  readonly code: number;
  /** What it wrote to stdout and stderr, in order. */
  readonly stdout: string;
  readonly stderr: string;
}

/** The tour: where it writes, the environment and working directory of its commands. */
export class Tour {
  #chapter = 0;
  readonly #color: boolean;
  readonly #write: (text: string) => void;

  /** Creates a tour writing to `write`, with ANSI styles when `color`. */
  constructor(
    readonly env: Record<string, string>,
    readonly cwd: string,
    options: { color: boolean; write: (text: string) => void },
  ) {
    this.#color = options.color;
    this.#write = options.write;
  }

  /** Bold text. */
  bold(text: string): string {
    return this.#color ? `\x1b[1m${text}\x1b[0m` : text;
  }

  /** Dim text. */
  dim(text: string): string {
    return this.#color ? `\x1b[2m${text}\x1b[0m` : text;
  }

  /** Prints a line. */
  say(text = ""): void {
    this.#write(`${text}\n`);
  }

  /** Starts a chapter: its number, title and what it shows. */
  chapter(title: string, explanation?: string): void {
    this.say();
    this.say(this.bold(`[${++this.#chapter}] ${title}`));
    if (explanation) { for (const line of explanation.split("\n")) this.say(`    ${line}`); }
  }

  /** Runs work that is not a user command (starting servers), timing it. */
  async quietly<T>(what: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    this.say(this.dim(`    ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`));
    return result;
  }

  /** Shows text as the content of a file the reader would write. */
  file(name: string, text: string): void {
    this.say(this.dim(`    # ${name}`));
    for (const line of text.trimEnd().split("\n")) this.say(`    ${line}`);
  }

  /** Shows a command that ran elsewhere (a Tekton step, run as its Pod would run it) and its output. */
  ran(shown: string, output: string): void {
    this.say(`    ${this.bold("$")} ${shown}`);
    const text = output.trimEnd();
    for (const line of text === "" ? [] : text.split("\n")) this.say(`      ${line}`);
  }

  /** Runs a command, shows it and its output; throws when it ends otherwise than expected. */
  async command(command: TourCommand): Promise<CommandResult> {
    this.say(`    ${this.bold("$")} ${command.shown}`);
    // Through a shell that joins stderr to stdout, so messages and data keep their order.
    const result = await run("/bin/sh", [
      "-c",
      'exec "$0" "$@" 2>&1',
      command.command,
      ...command.args,
    ], {
      env: this.env,
      cwd: this.cwd,
      ...(command.stdin === undefined ? {} : { stdin: command.stdin }),
    });
    const output = `${result.stdout}${result.stderr}`.trimEnd();
    let elided = false;
    for (const line of output === "" ? [] : output.split("\n")) {
      if (command.show && !command.show(line)) {
        if (!elided) this.say(`      …`);
        elided = true;
        continue;
      }
      elided = false;
      this.say(`      ${line}`);
    }
    const failed = result.code !== 0;
    if (failed !== (command.expectFailure ?? false)) {
      throw new Error(
        `"${command.shown}" ${
          failed ? `failed (exit ${result.code})` : "succeeded but should have been refused"
        }`,
      );
    }
    return result;
  }
}
