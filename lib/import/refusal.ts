/**
 * How an importer refuses a rule from deep inside its conversion: it throws {@linkcode Refusal}
 * with the source field's path and the reason, and the conversion's top catches it and reports
 * the rule refused (a finding of kind "refused").
 *
 * @module
 */

/** A field of the source that cannot be converted: its path and why. */
export class Refusal extends Error {
  constructor(readonly path: string, readonly reason: string) {
    super(reason);
  }
}

/** Throws the {@linkcode Refusal} of `path`. */
export function refuse(path: string, reason: string): never {
  throw new Refusal(path, reason);
}
