/**
 * The keyless flags `verify` and `verify-attestation` share (cosign's names): the identity of
 * `--certificate-identity[-regexp]` and `--certificate-oidc-issuer[-regexp]`, and the trust root
 * of `--trust-root FILE`, each checked here so that a bad flag or file is a usage error naming it.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { readUserFile } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import { RegExpSyntaxError } from "../../lib/linear_regexp.ts";
import type { KeylessIdentity } from "../../lib/policy/mod.ts";
import {
  compileIdentities,
  type IdentityMatcher,
  loadTrustRootParser,
  type TrustRoot,
} from "../../lib/sigstore/mod.ts";

/** The trust root file, in messages (and as `verify`'s ConfigMap name). */
export const TRUST_ROOT_FLAG = "--trust-root";

/** The `--certificate-*` flags. */
export interface CertificateFlags {
  readonly certificateIdentity?: string | undefined;
  readonly certificateIdentityRegexp?: string | undefined;
  readonly certificateOidcIssuer?: string | undefined;
  readonly certificateOidcIssuerRegexp?: string | undefined;
}

/**
 * The keyless identity of the `--certificate-*` flags (one of each pair), and it compiled (a
 * regular expression that cannot be used is a usage error).
 */
export function certificateIdentity(
  flags: CertificateFlags,
): { identity: KeylessIdentity; identities: IdentityMatcher } {
  const pick = (exact: string | undefined, regexp: string | undefined, flag: string) => {
    if ((exact === undefined) === (regexp === undefined)) {
      throw new UsageError(`Keyless verification needs one of --${flag} and --${flag}-regexp`);
    }
    return exact;
  };
  const subject = pick(
    flags.certificateIdentity,
    flags.certificateIdentityRegexp,
    "certificate-identity",
  );
  const issuer = pick(
    flags.certificateOidcIssuer,
    flags.certificateOidcIssuerRegexp,
    "certificate-oidc-issuer",
  );
  const identity: KeylessIdentity = {
    ...(issuer !== undefined ? { issuer } : { issuerRegExp: flags.certificateOidcIssuerRegexp }),
    ...(subject !== undefined ? { subject } : { subjectRegExp: flags.certificateIdentityRegexp }),
  };
  try {
    return { identity, identities: compileIdentities([identity]) };
  } catch (error) {
    if (error instanceof RegExpSyntaxError) throw new UsageError(error.message);
    throw error;
  }
}

/** The `--trust-root` file's bytes and its trust root (a file that is none: a usage error). */
export async function readTrustRootFlag(
  file: string,
  ctx: CommandContext,
): Promise<{ bytes: Uint8Array; trustRoot: TrustRoot }> {
  const bytes = await readUserFile(ctx.io.cwd, file, TRUST_ROOT_FLAG);
  const { InvalidTrustRootError, parseTrustRoot } = await loadTrustRootParser();
  try {
    return { bytes, trustRoot: await parseTrustRoot(bytes, `${TRUST_ROOT_FLAG} "${file}"`) };
  } catch (error) {
    if (error instanceof InvalidTrustRootError) throw new UsageError(error.message);
    throw error;
  }
}
