/**
 * A terminal for tests (`ctx.terminal`) that answers from a script instead of a person, and
 * records each question. It stands in for `@clack/prompts` on a real terminal; the command's IO
 * must say it is interactive, as a command asks only then.
 *
 * @module
 */
import {
  type Choice,
  PromptCancelledError,
  type Terminal,
  type TextQuestion,
} from "../../cli/terminal.ts";

/** An answer that is the user pressing Ctrl-C (or Escape) at the question. */
export const CANCEL: unique symbol = Symbol("Ctrl-C");

/** One scripted answer: text or a menu's value, yes/no, or {@linkcode CANCEL}. */
export type ScriptedAnswer = string | boolean | typeof CANCEL;

/** A scripted {@linkcode Terminal}: `asked` holds each question's message, in order. */
export interface ScriptedTerminal extends Terminal {
  /** The messages of the questions asked so far. */
  readonly asked: string[];
}

/**
 * A terminal giving `answers` in order: a string for a text question or a menu (the value of the
 * choice), a boolean for a yes/no question. A question beyond the script, or an answer of the
 * wrong kind, fails the test; {@linkcode CANCEL} cancels the question as Ctrl-C does.
 */
export function scriptedTerminal(answers: readonly ScriptedAnswer[]): ScriptedTerminal {
  const asked: string[] = [];
  const next = (message: string, kind: "string" | "boolean"): string | boolean => {
    asked.push(message);
    const answer = answers[asked.length - 1];
    if (answer === CANCEL) throw new PromptCancelledError();
    const actual = typeof answer === "boolean"
      ? "boolean"
      : typeof answer === "string"
      ? "string"
      : "none";
    if (actual !== kind) {
      throw new Error(`the script has no ${kind} answer for question ${asked.length}: ${message}`);
    }
    return answer!;
  };
  return {
    asked,
    askText: (question: TextQuestion) =>
      Promise.resolve(next(question.message, "string") as string),
    askChoice: <T extends string>(message: string, choices: readonly Choice<T>[]) => {
      const value = next(message, "string");
      const choice = choices.find((c) => c.value === value);
      if (!choice) throw new Error(`"${value}" is not a choice of: ${message}`);
      return Promise.resolve(choice.value);
    },
    askConfirm: (message: string) => Promise.resolve(next(message, "boolean") as boolean),
  };
}
