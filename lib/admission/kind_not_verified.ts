/**
 * The parts of a requirement kind that never verify a signature (`reject`,
 * `insecureAcceptAnything`, and the default for an unknown type): reaching them is a bug,
 * reported as an error that denies.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";
import type { RequirementKind } from "./requirement_kind.ts";

/** A kind was asked to plan or verify, which it never does. */
export class KindMisuseError extends ToolkitError {
  constructor(type: string, what: string) {
    super(`The requirement kind "${type}" does not ${what}`);
    this.name = "KindMisuseError";
  }
}

/** `plan`, `planKey` and `verify` of a kind that decides without signatures: they throw. */
export function notVerified(
  type: string,
  // deno-lint-ignore no-explicit-any
): Pick<RequirementKind<any, never>, "plan" | "planKey" | "verify"> {
  return {
    plan: () => Promise.reject(new KindMisuseError(type, "plan a verification")),
    planKey: () => {
      throw new KindMisuseError(type, "plan a verification");
    },
    verify: () => Promise.reject(new KindMisuseError(type, "verify signatures")),
  };
}

/** `denial` of a kind that never denies by itself. */
export function neverDenies(type: string): (image: string) => string {
  return () => {
    throw new KindMisuseError(type, "deny by itself");
  };
}
