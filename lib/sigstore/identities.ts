/**
 * The identities a keyless requirement accepts: who the Fulcio certificate says signed
 * (`subject`: the certificate's URI or e-mail subject alternative name, e.g. a GitHub Actions
 * workflow `https://github.com/org/repo/.github/workflows/release.yml@refs/tags/v1.2.0`) and who
 * vouched for it (`issuer`: the OIDC issuer in the certificate's Fulcio issuer extension, e.g.
 * `https://token.actions.githubusercontent.com`). A certificate is accepted when one entry
 * matches both: each by exact text (`issuer`, `subject`) or by a regular expression
 * (`issuerRegExp`, `subjectRegExp`: Go RE2 syntax, matched in linear time by
 * `lib/linear_regexp.ts`, matching anywhere in the text unless anchored with `^…$`, as cosign
 * and policy-controller read them).
 *
 * @module
 */
import { compileLinearRegExp, type LinearRegExp, RegExpSyntaxError } from "../linear_regexp.ts";
import { type KeylessIdentity, MAX_IDENTITY_STATES } from "../policy/mod.ts";

/** One identity entry as a policy writes it (`keyless.identities[]`). */
export type { KeylessIdentity };

/** The longest exact issuer or subject accepted in a policy. */
export const MAX_IDENTITY_LENGTH = 1024;

/** The most identity entries one requirement may list. */
export const MAX_IDENTITIES = 64;

export { MAX_IDENTITY_STATES };

/** A compiled list of identities. */
export interface IdentityMatcher {
  /**
   * Whether one entry matches both the issuer and the subject. Regular expressions run with
   * `testAsync` (the event loop runs during long work), and answers are remembered for the
   * last certificates seen, so a certificate denied again costs nothing.
   */
  matches(issuer: string | undefined, subject: string | undefined): Promise<boolean>;
  /** The entries, for messages: `issuer "https://…" and subject matching "^https://…"`. */
  readonly description: string;
  /** The states of its regular expressions, in all. */
  readonly states: number;
}

type Test = {
  readonly text: string;
  readonly states: number;
  readonly test: (value: string) => Promise<boolean>;
};

function exact(value: string): Test {
  return {
    text: JSON.stringify(value),
    states: 0,
    test: (candidate) => Promise.resolve(candidate === value),
  };
}

function pattern(re: LinearRegExp, pause: (() => Promise<void>) | undefined): Test {
  return {
    text: `matching ${JSON.stringify(re.source)}`,
    states: re.states,
    test: (candidate) => re.testAsync(candidate, pause),
  };
}

/** How many answers a matcher remembers. */
const REMEMBERED_ANSWERS = 256;

/**
 * Compiles the entries. Each must name the issuer and the subject (exactly or by regular
 * expression, not both); `validatePolicy` reports such mistakes with field paths before this
 * runs, so here they throw.
 *
 * @throws {RegExpSyntaxError} for a regular expression outside the accepted syntax, or when
 * the expressions compile to more than {@linkcode MAX_IDENTITY_STATES} states in all;
 * {@linkcode TypeError} for an entry without an issuer or a subject.
 */
export function compileIdentities(
  identities: readonly KeylessIdentity[],
  options: {
    /** How a long match waits for its next slice (the process's TurnScheduler). */
    readonly pause?: () => Promise<void>;
  } = {},
): IdentityMatcher {
  const compiled = identities.map((identity, index) => {
    const issuer = identity.issuer !== undefined
      ? exact(identity.issuer)
      : identity.issuerRegExp !== undefined
      ? pattern(compileLinearRegExp(identity.issuerRegExp), options.pause)
      : undefined;
    const subject = identity.subject !== undefined
      ? exact(identity.subject)
      : identity.subjectRegExp !== undefined
      ? pattern(compileLinearRegExp(identity.subjectRegExp), options.pause)
      : undefined;
    if (issuer === undefined || subject === undefined) {
      throw new TypeError(`identities[${index}] needs an issuer and a subject`);
    }
    return { issuer, subject };
  });
  const states = compiled.reduce((n, e) => n + e.issuer.states + e.subject.states, 0);
  if (states > MAX_IDENTITY_STATES) {
    throw new RegExpSyntaxError(
      compiled.map((e) => `${e.issuer.text} ${e.subject.text}`).join(", ").slice(0, 80),
      `the identities' regular expressions compile to ${states} states; at most ${MAX_IDENTITY_STATES} are allowed in all`,
    );
  }
  const answers = new Map<string, boolean>();
  return {
    async matches(issuer, subject) {
      if (issuer === undefined || subject === undefined) return false;
      // JSON of the pair: no issuer or subject, whatever characters it holds, gives the key of
      // another pair (`issuer + "\n" + subject` did, for an issuer holding a newline).
      const key = JSON.stringify([issuer, subject]);
      const known = answers.get(key);
      if (known !== undefined) return known;
      let answer = false;
      for (const entry of compiled) {
        if (await entry.issuer.test(issuer) && await entry.subject.test(subject)) {
          answer = true;
          break;
        }
      }
      if (answers.size >= REMEMBERED_ANSWERS) answers.delete(answers.keys().next().value!);
      answers.set(key, answer);
      return answer;
    },
    description: compiled.map((e) => `issuer ${e.issuer.text} and subject ${e.subject.text}`)
      .join("; or "),
    states,
  };
}
