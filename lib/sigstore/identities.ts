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
import { compileLinearRegExp, type LinearRegExp } from "../linear_regexp.ts";

/** One identity entry as a policy writes it (`keyless.identities[]`). */
export interface KeylessIdentity {
  readonly issuer?: string;
  readonly issuerRegExp?: string;
  readonly subject?: string;
  readonly subjectRegExp?: string;
}

/** The longest exact issuer or subject accepted in a policy. */
export const MAX_IDENTITY_LENGTH = 1024;

/** The most identity entries one requirement may list. */
export const MAX_IDENTITIES = 64;

/** A compiled list of identities. */
export interface IdentityMatcher {
  /** Whether one entry matches both the issuer and the subject. */
  matches(issuer: string | undefined, subject: string | undefined): boolean;
  /** The entries, for messages: `issuer https://… and subject ~ ^https://…$`. */
  readonly description: string;
}

type Test = { readonly text: string; readonly test: (value: string) => boolean };

function exact(value: string): Test {
  return { text: JSON.stringify(value), test: (candidate) => candidate === value };
}

function pattern(re: LinearRegExp): Test {
  return { text: `matching ${JSON.stringify(re.source)}`, test: (candidate) => re.test(candidate) };
}

/**
 * Compiles the entries. Each must name the issuer and the subject (exactly or by regular
 * expression, not both); `validatePolicy` reports such mistakes with field paths before this
 * runs, so here they throw.
 *
 * @throws {RegExpSyntaxError} for a regular expression outside the accepted syntax;
 * {@linkcode TypeError} for an entry without an issuer or a subject.
 */
export function compileIdentities(identities: readonly KeylessIdentity[]): IdentityMatcher {
  const compiled = identities.map((identity, index) => {
    const issuer = identity.issuer !== undefined
      ? exact(identity.issuer)
      : identity.issuerRegExp !== undefined
      ? pattern(compileLinearRegExp(identity.issuerRegExp))
      : undefined;
    const subject = identity.subject !== undefined
      ? exact(identity.subject)
      : identity.subjectRegExp !== undefined
      ? pattern(compileLinearRegExp(identity.subjectRegExp))
      : undefined;
    if (issuer === undefined || subject === undefined) {
      throw new TypeError(`identities[${index}] needs an issuer and a subject`);
    }
    return { issuer, subject };
  });
  return {
    matches(issuer, subject) {
      if (issuer === undefined || subject === undefined) return false;
      return compiled.some((entry) => entry.issuer.test(issuer) && entry.subject.test(subject));
    },
    description: compiled.map((e) => `issuer ${e.issuer.text} and subject ${e.subject.text}`)
      .join("; or "),
  };
}
