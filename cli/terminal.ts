/**
 * The terminal a command asks its questions on ({@linkcode Terminal}, `ctx.terminal`), and the
 * real one ({@linkcode promptTerminal}): `@clack/prompts`, drawn on stderr so that stdout keeps
 * only data. Questions are asked only when the command's IO is interactive (stdin and stderr are
 * terminals); otherwise callers fail with a clear message saying which flag to give (`askText`
 * does so itself). The prompt library is loaded only when a question is actually asked.
 *
 * @module
 */
import type { CliIO } from "./io.ts";
import { ToolkitError, UsageError } from "../lib/errors.ts";

/** The user cancelled a question (Ctrl-C or Escape). */
export class PromptCancelledError extends ToolkitError {
  /** Creates the error. */
  constructor() {
    super("Cancelled");
    this.name = "PromptCancelledError";
  }
}

/** One choice of a menu. */
export interface Choice<T extends string> {
  /** What the choice returns. */
  readonly value: T;
  /** What the user sees. */
  readonly label: string;
  /** A hint shown next to it. */
  readonly hint?: string;
}

async function clack() {
  const [prompts, process] = await Promise.all([import("@clack/prompts"), import("node:process")]);
  return { prompts, common: { input: process.stdin, output: process.stderr } };
}

function answer<T>(value: T): Exclude<T, symbol> {
  if (typeof value === "symbol") throw new PromptCancelledError();
  return value as Exclude<T, symbol>;
}

/** A question for {@linkcode askText}. */
export interface TextQuestion {
  /** The question shown on the terminal. */
  readonly message: string;
  /** The error message when there is no terminal to ask on, naming the flag to pass. */
  readonly missing: string;
  /** Mask the answer (passwords, tokens). */
  readonly secret?: boolean;
  /** The answer when the user just presses Enter. */
  readonly defaultValue?: string;
}

/** Where a command asks its questions. */
export interface Terminal {
  /**
   * Asks for a value, or fails with a {@linkcode UsageError} saying what is missing when the IO
   * is not interactive.
   */
  askText(question: TextQuestion): Promise<string>;
  /** Shows a menu and returns the value chosen. Only for interactive IO. */
  askChoice<T extends string>(message: string, choices: readonly Choice<T>[]): Promise<T>;
  /** Asks a yes/no question. Only for interactive IO. */
  askConfirm(message: string, initialValue: boolean): Promise<boolean>;
}

/** The real terminal of `io`: `@clack/prompts` on the process's stdin and stderr. */
export function promptTerminal(io: CliIO): Terminal {
  return {
    askText: (question) => askText(io, question),
    askChoice,
    askConfirm,
  };
}

async function askText(io: CliIO, question: TextQuestion): Promise<string> {
  if (!io.interactive) throw new UsageError(`${question.missing} (there is no terminal to ask on)`);
  const { prompts, common } = await clack();
  const required = (
    v: string | undefined,
  ) => (v && v.trim() !== "" ? undefined : "A value is required");
  const { message, defaultValue } = question;
  const value = question.secret
    ? answer(await prompts.password({ ...common, message, validate: required }))
    : answer(
      await prompts.text({
        ...common,
        message,
        ...(defaultValue !== undefined
          ? { defaultValue, placeholder: defaultValue }
          : { validate: required }),
      }),
    );
  return value.trim();
}

async function askChoice<T extends string>(
  message: string,
  choices: readonly Choice<T>[],
): Promise<T> {
  const { prompts, common } = await clack();
  return answer(
    await prompts.select<T>({
      ...common,
      message,
      options: choices.map((c) => ({
        value: c.value,
        label: c.label,
        ...(c.hint ? { hint: c.hint } : {}),
      })) as Parameters<typeof prompts.select<T>>[0]["options"],
    }),
  );
}

async function askConfirm(message: string, initialValue: boolean): Promise<boolean> {
  const { prompts, common } = await clack();
  return answer(await prompts.confirm({ ...common, message, initialValue }));
}
