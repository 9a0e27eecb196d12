/**
 * `toolkit image-security verify IMAGE --key FILE | --trust-root FILE …`: checks the image with
 * the webhook's image verifier (lib/admission), as a policy of one requirement built from the
 * flags, so the same digest resolution (a digest reference is not resolved again), the same
 * signature lookups, verdicts and messages apply:
 *
 * - `--key` with armoured OpenPGP keys: a `signedBy` requirement (simple signing, from the
 *   registry's signature extension or the lookaside store of registries.d);
 * - `--key` with PEM public keys (`cosign.pub`): a keyed `sigstoreSigned` requirement, cosign
 *   signatures in either storage format from the image's registry (`--tlog required` with
 *   `--trust-root` also requires a log entry signed by one of its logs);
 * - `--trust-root trusted_root.json` without `--key`, with `--certificate-identity[-regexp]` and
 *   `--certificate-oidc-issuer[-regexp]` (cosign's flag names): a keyless `sigstoreSigned`
 *   requirement. Nothing but the registry is contacted: the trust root is the file.
 *
 * Exits 0 when one signature verifies and prints what was verified; exits 1 with the reason
 * otherwise (an image that cannot be checked included); 2 for flags that do not make a
 * requirement.
 *
 * @module
 */
import { makeLogger } from "../dev/common.ts";
import type { CommandContext } from "../command.ts";
import { clientTimeoutMs, networkAdvice, observedContextFetch } from "../network.ts";
import type { OptionsOf } from "../options.ts";
import type { VERIFY } from "./verify_command.ts";
import { printData } from "../output.ts";
import { readKeyAs, readUserFile } from "./files.ts";
import { certificateIdentity, readTrustRootFlag, TRUST_ROOT_FLAG } from "./keyless_flags.ts";
import { registryFlags } from "./registry_access.ts";
import { describeError, UsageError } from "../../lib/errors.ts";
import { formatReference, parseReference } from "../../lib/image/mod.ts";
import {
  InvalidIdentityRuleError,
  InvalidKeyError,
  parseIdentityRule,
  readPublicKeys,
} from "../../lib/signature/mod.ts";
import { isPemPublicKey, readSigstorePublicKeys } from "../../lib/sigstore/mod.ts";
import {
  ANONYMOUS,
  createImageVerifier,
  DEFAULT_TRUST_ROOT_ENTRY,
  filePolicySource,
  type ImageVerdict,
  type PolicyDocuments,
  sigstoreKeySet,
  trustedKeys,
} from "../../lib/admission/mod.ts";
import type { PolicyMatch, Requirement, SignedIdentity } from "../../lib/policy/mod.ts";

/** The key file, in messages and as the requirement's `keySecret`. */
const KEY_FLAG = "--key";

type Options = OptionsOf<typeof VERIFY>;

/** What the flags ask for: the requirement, and the documents and key sources it reads. */
interface Plan {
  readonly requirement: Requirement;
  readonly documents: PolicyDocuments;
  readonly keys?: Parameters<typeof createImageVerifier>[0]["keys"];
  readonly sigstoreKeys?: Parameters<typeof createImageVerifier>[0]["sigstoreKeys"];
  readonly source: string;
}

const NO_DOCUMENTS: PolicyDocuments = {
  policies: [],
  secrets: [],
  serviceAccounts: [],
  namespaces: [],
};

/** Reads `--trust-root` (checked here, so that a bad file is named) as a ConfigMap document. */
async function trustRootDocuments(options: Options, ctx: CommandContext) {
  const { bytes } = await readTrustRootFlag(options.trustRoot!, ctx);
  return {
    ...NO_DOCUMENTS,
    configMaps: [{
      metadata: { name: TRUST_ROOT_FLAG },
      data: { [DEFAULT_TRUST_ROOT_ENTRY]: new TextDecoder().decode(bytes) },
    }],
  };
}

async function plan(
  options: Options,
  ctx: CommandContext,
  signedIdentity: SignedIdentity | undefined,
): Promise<Plan> {
  const identity = signedIdentity ? { signedIdentity } : {};
  const tlog = options.tlog as Requirement["tlog"] | undefined;
  const keyless = options.certificateIdentity ?? options.certificateIdentityRegexp ??
    options.certificateOidcIssuer ?? options.certificateOidcIssuerRegexp;
  if (options.key === undefined) {
    if (options.trustRoot === undefined) {
      throw new UsageError("Name the key with --key FILE, or a trust root with --trust-root FILE");
    }
    const identities = [certificateIdentity(options).identity];
    return {
      requirement: {
        type: "sigstoreSigned",
        keyless: { trustRootRef: { kind: "ConfigMap", name: TRUST_ROOT_FLAG }, identities },
        ...(tlog ? { tlog } : {}),
        ...identity,
      },
      documents: await trustRootDocuments(options, ctx),
      source: `${TRUST_ROOT_FLAG} ${options.trustRoot}`,
    };
  }
  if (keyless !== undefined) {
    throw new UsageError("The --certificate-* flags are for keyless verification: leave out --key");
  }
  const bytes = await readUserFile(ctx.io.cwd, options.key, KEY_FLAG);
  const where = `${KEY_FLAG} "${options.key}"`;
  if (!isPemPublicKey(bytes)) {
    if (options.trustRoot !== undefined || tlog !== undefined) {
      throw new UsageError(
        "--trust-root and --tlog are for cosign signatures: give a PEM public key with --key",
      );
    }
    const keys = await trustedKeys(await readKeyAs(() => readPublicKeys(bytes)));
    return {
      requirement: { type: "signedBy", keySecret: KEY_FLAG, ...identity },
      documents: NO_DOCUMENTS,
      keys: { keys: () => Promise.resolve(keys) },
      source: `${KEY_FLAG} ${options.key}`,
    };
  }
  let keys;
  try {
    keys = await sigstoreKeySet(await readSigstorePublicKeys(new TextDecoder().decode(bytes)));
  } catch (error) {
    if (error instanceof InvalidKeyError) {
      throw new UsageError(`Cannot use ${where}: ${error.message}`, { cause: error });
    }
    throw error;
  }
  if (tlog === "required" && options.trustRoot === undefined) {
    throw new UsageError("--tlog required with --key needs --trust-root FILE (the logs' keys)");
  }
  return {
    requirement: {
      type: "sigstoreSigned",
      keySecret: KEY_FLAG,
      ...(tlog ? { tlog } : {}),
      ...(options.trustRoot !== undefined
        ? { trustRootRef: { kind: "ConfigMap", name: TRUST_ROOT_FLAG } }
        : {}),
      ...identity,
    },
    documents: options.trustRoot !== undefined
      ? await trustRootDocuments(options, ctx)
      : NO_DOCUMENTS,
    sigstoreKeys: { sigstoreKeys: () => Promise.resolve(keys) },
    source: `${KEY_FLAG} ${options.key}`,
  };
}

/** Verifies `ref` with the webhook's verifier, as the one requirement of the flags. */
async function verifyImage(
  options: Options,
  ctx: CommandContext,
  ref: ReturnType<typeof parseReference>,
  planned: Plan,
  registryErrors: unknown[],
): Promise<ImageVerdict> {
  const flags = await registryFlags(ref, options, ctx.io.cwd);
  const log = makeLogger(options, ctx.io);
  log.step(
    `Verifying ${
      formatReference(ref)
    }: a ${planned.requirement.type} requirement, keys of ${planned.source}`,
  );
  log.step(
    `Registry ${ref.domain} over ${
      flags.insecureRegistries.includes(ref.domain) ? "plain HTTP (--tls-verify=false)" : "HTTPS"
    }; lookaside configuration from ${flags.registriesDir}`,
  );
  const verifier = createImageVerifier({
    observer: {
      registryError: (error) => {
        registryErrors.push(error);
        log.step(`A registry request failed: ${describeError(error)}`);
      },
    },
    source: filePolicySource(planned.documents),
    clusterKeyNamespace: "",
    ...(planned.keys ? { keys: planned.keys } : {}),
    ...(planned.sigstoreKeys ? { sigstoreKeys: planned.sigstoreKeys } : {}),
    insecureRegistries: flags.insecureRegistries,
    caCerts: flags.caCerts,
    registriesD: flags.registriesD,
    requestTimeoutMs: clientTimeoutMs(options),
    fetch: observedContextFetch(ctx, options),
    flightTimeoutMs: 120_000,
    verdictCache: { ttlMs: 60_000, maxEntries: 1 },
    digestCache: { ttlMs: 60_000, maxEntries: 1 },
    explain: true,
  });
  const match: PolicyMatch = {
    policy: { simple: { requirements: [planned.requirement] } },
    pattern: formatReference(ref),
    source: planned.source,
    kind: "ClusterImagePolicy",
    name: KEY_FLAG,
  };
  const credentials = flags.credentials
    ? { ...ANONYMOUS, id: "flags", store: flags.credentials }
    : ANONYMOUS;
  return await verifier.verify({
    reference: ref,
    match,
    namespace: "",
    credentials: () => Promise.resolve(credentials),
  });
}

/** The `signedIdentity` of the flags, or undefined when they name none. */
function signedIdentityOf(options: Options): SignedIdentity | undefined {
  const flags = {
    type: options.identityRule ?? "",
    ...(options.identityReference ? { dockerReference: options.identityReference } : {}),
    ...(options.identityRepository ? { dockerRepository: options.identityRepository } : {}),
    ...(options.prefix ? { prefix: options.prefix } : {}),
    ...(options.signedPrefix ? { signedPrefix: options.signedPrefix } : {}),
  };
  try {
    parseIdentityRule(flags);
  } catch (error) {
    if (error instanceof InvalidIdentityRuleError) throw new UsageError(error.message);
    throw error;
  }
  // Valid, as parseIdentityRule just said: the policy field it reads.
  return options.identityRule === undefined ? undefined : flags as unknown as SignedIdentity;
}

/** What one accepted signature says, for printing. */
function described(verdict: Extract<ImageVerdict, { allowed: true }>) {
  const simple = verdict.accepted?.[0];
  if (simple !== undefined) {
    return {
      data: {
        identity: simple.dockerReference,
        signedBy: simple.keyFingerprint,
        ...(simple.creator ? { creator: simple.creator } : {}),
        ...(simple.timestamp ? { timestamp: new Date(simple.timestamp * 1000).toISOString() } : {}),
        store: verdict.store,
      },
      text: `identity ${simple.dockerReference}, signed by ${simple.keyFingerprint}${
        simple.timestamp ? ` on ${new Date(simple.timestamp * 1000).toISOString()}` : ""
      }`,
    };
  }
  const cosign = verdict.acceptedCosign?.[0];
  if (cosign === undefined) return undefined;
  const format = cosign.format === "legacy" ? "cosign signature (.sig tag)" : "sigstore bundle";
  return {
    data: {
      format: cosign.format,
      ...(cosign.dockerReference ? { identity: cosign.dockerReference } : {}),
      signedBy: cosign.signer,
      ...(cosign.keyId ? { keyId: cosign.keyId } : {}),
      ...(cosign.subject ? { subject: cosign.subject, issuer: cosign.issuer } : {}),
      ...(cosign.signedAt ? { signedAt: cosign.signedAt.toISOString() } : {}),
      store: cosign.where,
    },
    text: `${format}${
      cosign.dockerReference ? `, identity ${cosign.dockerReference}` : ""
    }, signed by ${cosign.signer}${
      cosign.signedAt ? `, logged at ${cosign.signedAt.toISOString()}` : ""
    }`,
  };
}

/** Runs `verify`. */
export async function run(options: Options, ctx: CommandContext): Promise<number> {
  const format = options.output;
  const ref = parseReference(options.image);
  const planned = await plan(options, ctx, signedIdentityOf(options));
  const registryErrors: unknown[] = [];
  const verdict = await verifyImage(options, ctx, ref, planned, registryErrors);
  const image = formatReference(ref);
  const digest = verdict.digest;
  const what = verdict.allowed ? described(verdict) : undefined;
  if (verdict.allowed && what !== undefined) {
    printData(
      ctx.io.stdout,
      format,
      { verified: true, image, digest, ...what.data },
      () => `Verified ${image}: digest ${digest}, ${what.text}\n`,
    );
    return 0;
  }
  // Only an allowed verdict with the signature it accepted verifies the image.
  const reason = verdict.allowed ? "no signature was accepted" : verdict.reason;
  if (format !== "text") {
    printData(ctx.io.stdout, format, {
      verified: false,
      image,
      ...(digest ? { digest } : {}),
      reason,
    }, () => "");
  }
  ctx.io.stderr.write(`${image}${digest ? ` (${digest})` : ""} is not verified: ${reason}\n`);
  // What to do about a registry that could not be reached (plain HTTP, no answer in time).
  const advice = registryErrors.map(networkAdvice).find((a) => a !== undefined);
  if (advice) ctx.io.stderr.write(`${advice}\n`);
  return 1;
}
