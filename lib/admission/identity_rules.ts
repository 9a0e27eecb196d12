/**
 * The `signedIdentity` rules and keyless identity lists of requirements, parsed (or compiled)
 * once per distinct text and kept in small bounded maps: a policy's rules are checked once,
 * not once a review.
 *
 * @module
 */
import type { Requirement } from "../policy/mod.ts";
import { computeDigest } from "../registry/mod.ts";
import { compileIdentities, type IdentityMatcher } from "../sigstore/mod.ts";
import { type IdentityRule, parseIdentityRule } from "../signature/mod.ts";
import type { TurnScheduler } from "../turns.ts";
import { PolicyConfigError } from "./errors.ts";

/** The most distinct `signedIdentity` rules kept (then the map starts again). */
const MAX_RULES = 1024;
/** The most distinct keyless identity lists kept. */
const MAX_IDENTITY_LISTS = 256;

/** A parsed rule and what identifies it in a cache key. */
export interface ParsedRule {
  readonly rule: IdentityRule;
  readonly id: string;
}

/** A compiled identity list and the digest of its text. */
export interface CompiledIdentities {
  readonly matcher: IdentityMatcher;
  readonly id: string;
}

/** Parses and compiles the identity rules of requirements, through bounded caches. */
export class IdentityRules {
  readonly #rules = new Map<string, ParsedRule>();
  readonly #lists = new Map<string, CompiledIdentities>();
  readonly #turns: TurnScheduler;

  /** `turns`: where a long identity match pauses when the process's shared slice is spent. */
  constructor(turns: TurnScheduler) {
    this.#turns = turns;
  }

  /** The requirement's `signedIdentity` rule; a rule that cannot be used is a PolicyConfigError. */
  rule(requirement: Requirement): ParsedRule {
    const raw = requirement.signedIdentity;
    const text = raw === undefined ? "" : JSON.stringify(raw);
    let parsed = this.#rules.get(text);
    if (parsed === undefined) {
      let rule: IdentityRule;
      try {
        rule = parseIdentityRule(raw);
      } catch (error) {
        throw new PolicyConfigError(errorMessage(error), { cause: error });
      }
      parsed = { rule, id: JSON.stringify(rule) };
      if (this.#rules.size > MAX_RULES) this.#rules.clear();
      this.#rules.set(text, parsed);
    }
    return parsed;
  }

  /** The compiled identities of a keyless requirement (compiled once per distinct list). */
  async identities(
    identities: NonNullable<Requirement["keyless"]>["identities"],
  ): Promise<CompiledIdentities> {
    const text = JSON.stringify(identities);
    let compiled = this.#lists.get(text);
    if (compiled === undefined) {
      let matcher: IdentityMatcher;
      try {
        const turns = this.#turns;
        matcher = compileIdentities(identities, {
          pause: () => turns.due() ? turns.next() : Promise.resolve(),
        });
      } catch (error) {
        throw new PolicyConfigError(errorMessage(error), { cause: error });
      }
      compiled = { matcher, id: await computeDigest(new TextEncoder().encode(text)) };
      if (this.#lists.size > MAX_IDENTITY_LISTS) this.#lists.clear();
      this.#lists.set(text, compiled);
    }
    return compiled;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
