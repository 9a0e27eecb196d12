/**
 * `toolkit image-security verify-attestation IMAGE --type T (--key FILE | --key-secret NS/NAME |
 * --trust-root FILE --certificate-identity[-regexp] … --certificate-oidc-issuer[-regexp] …)
 * [--policy FILE]`: reads the image's attestations from its registry as the webhook does (the
 * `.att` tag and the bundle referrers, lib/registry's bounds), verifies each with the key (PEM:
 * cosign's; OpenPGP: toolkit's simple-signing keys) as the `attestation` requirement does
 * (lib/sigstore), or keyless with a trust root and an identity (cosign's flag names; the log entry
 * required, as for a keyless requirement), and prints the verified statements of the predicate
 * type. With `--policy`,
 * each statement is also checked against the CEL conditions of the file, compiled and bounded
 * as the webhook compiles them, and which held is printed.
 *
 * Exits 0 when an attestation of the type verifies (and, with `--policy`, meets every
 * condition); 1 otherwise, with the reasons; 2 for flags or files that cannot be used.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { makeLogger } from "../dev/common.ts";
import type { OptionsOf } from "../options.ts";
import { printData } from "../output.ts";
import { readKeyAs, readUserFile } from "./files.ts";
import { certificateIdentity, readTrustRootFlag } from "./keyless_flags.ts";
import { registryAccess } from "./registry_access.ts";
import type { VERIFY_ATTESTATION } from "./verify_attestation_command.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { formatReference, parseReference } from "../../lib/image/mod.ts";
import { SECRETS } from "../../lib/kube/mod.ts";
import { parseYaml } from "../../lib/yaml.ts";
import { decodeBase64 } from "../../lib/base64.ts";
import { openCosignSignatures, type StoredCosignSignature } from "../../lib/registry/mod.ts";
import { InvalidKeyError, type PublicKey, readPublicKeys } from "../../lib/signature/mod.ts";
import {
  type AttestationTrust,
  isPemPublicKey,
  loadAttestationVerification,
  readSigstorePublicKeys,
  type SigstoreTrust,
  type VerifiedAttestation,
} from "../../lib/sigstore/mod.ts";
import { CelLimitError, ConditionInputs } from "../../lib/cel/mod.ts";
import {
  API_GROUP,
  type AttestationCondition,
  compileAttestationCondition,
  InvalidPolicyError,
  loadAttestationConditions,
  PORTIERIS_API_GROUP,
  predicateTypeURI,
  validatePolicy,
} from "../../lib/policy/mod.ts";

type Options = OptionsOf<typeof VERIFY_ATTESTATION>;

/** The key text of `--key` or `--key-secret`, and where it came from. */
async function keyText(options: Options, ctx: CommandContext): Promise<[Uint8Array, string]> {
  if ((options.key === undefined) === (options.keySecret === undefined)) {
    throw new UsageError(
      "Name the key with --key FILE or --key-secret NAMESPACE/NAME (one of them), or a trust root with --trust-root FILE",
    );
  }
  if (options.key !== undefined) {
    return [await readUserFile(ctx.io.cwd, options.key, "--key"), `--key ${options.key}`];
  }
  const match = /^([a-z0-9-]{1,63})\/([a-z0-9.-]{1,253})$/.exec(options.keySecret!);
  if (match === null) throw new UsageError("--key-secret is NAMESPACE/NAME of a Secret");
  const [, namespace, name] = match as unknown as [string, string, string];
  using client = await ctx.kube(options);
  const secret = await client.read(SECRETS, namespace, name) as
    | { data?: Record<string, string> }
    | undefined;
  const entry = secret?.data?.key;
  if (entry === undefined) {
    throw new ToolkitError(
      `Cannot read key Secret "${namespace}/${name}": ${
        secret === undefined ? "it does not exist" : 'it has no "key" entry'
      }`,
    );
  }
  return [decodeBase64(entry), `Secret ${namespace}/${name}`];
}

/** The keyless trust of `--trust-root` and the `--certificate-*` flags. */
async function keylessTrust(options: Options, ctx: CommandContext): Promise<SigstoreTrust> {
  const { identities } = certificateIdentity(options);
  const { trustRoot } = await readTrustRootFlag(options.trustRoot!, ctx);
  return { keyless: { trustRoot, identities }, tlog: "required" };
}

/** The keys of the key text: PEM (cosign) or OpenPGP. */
async function keys(bytes: Uint8Array, where: string) {
  if (isPemPublicKey(bytes)) {
    try {
      return { pem: await readSigstorePublicKeys(new TextDecoder().decode(bytes)), pgp: [] };
    } catch (error) {
      if (error instanceof InvalidKeyError) {
        throw new UsageError(`Cannot use ${where}: ${error.message}`, { cause: error });
      }
      throw error;
    }
  }
  const pgp: PublicKey[] = await readKeyAs(() => readPublicKeys(bytes));
  return { pem: [], pgp };
}

/** The conditions of `--policy` that apply to `predicateType`. */
async function conditionsOf(
  options: Options,
  ctx: CommandContext,
  predicateType: string,
): Promise<AttestationCondition[] | undefined> {
  if (options.policy === undefined) return undefined;
  const text = new TextDecoder().decode(await readUserFile(ctx.io.cwd, options.policy, "--policy"));
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new UsageError(`Cannot read --policy "${options.policy}": it is not YAML or JSON`, {
      cause: error,
    });
  }
  await loadAttestationConditions();
  let listed: unknown[];
  const object = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  if (Array.isArray(raw)) listed = raw;
  else if (object.kind === "ClusterImagePolicy" || object.kind === "ImagePolicy") {
    let policy;
    try {
      policy = validatePolicy(raw, [API_GROUP, PORTIERIS_API_GROUP]);
    } catch (error) {
      if (error instanceof InvalidPolicyError) throw new UsageError(error.message);
      throw error;
    }
    listed = policy.repositories.flatMap((r) => r.policy.simple?.requirements ?? [])
      .filter((r) => r.type === "attestation" && r.predicateType === predicateType)
      .flatMap((r) => r.conditions ?? []);
  } else if (Array.isArray(object.conditions)) listed = object.conditions;
  else {
    throw new UsageError(
      `Cannot read --policy "${options.policy}": it is neither a list of conditions, an attestation requirement nor an image policy`,
    );
  }
  return listed.map((item, i) => {
    const c = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof c.name !== "string" || typeof c.expression !== "string") {
      throw new UsageError(
        `Cannot read --policy "${options.policy}": condition ${i + 1} has no name and expression`,
      );
    }
    const condition: AttestationCondition = {
      name: c.name,
      expression: c.expression,
      ...(typeof c.message === "string" ? { message: c.message } : {}),
    };
    try {
      compileAttestationCondition(condition);
    } catch (error) {
      if (error instanceof CelLimitError) throw new UsageError(error.message);
      throw error;
    }
    return condition;
  });
}

/** One condition's outcome over one statement. */
interface ConditionOutcome {
  readonly name: string;
  readonly held: boolean;
  readonly message?: string;
  readonly reason?: string;
}

function checkConditions(
  conditions: readonly AttestationCondition[],
  attestation: VerifiedAttestation,
  all: readonly VerifiedAttestation[],
): ConditionOutcome[] {
  const attestations: Record<string, unknown[]> = {};
  for (const a of all) (attestations[a.predicateType] ??= []).push(a.statement);
  const statement = attestation.statement;
  const inputs = new ConditionInputs({
    statement,
    predicate: statement.predicate ?? null,
    subject: statement.subject ?? null,
    predicateType: attestation.predicateType,
    attestations,
  });
  return conditions.map((c) => {
    const result = compileAttestationCondition(c).evaluate(inputs);
    if (!result.ok) return { name: c.name, held: false, reason: result.reason };
    return {
      name: c.name,
      held: result.value,
      ...(!result.value && c.message ? { message: c.message } : {}),
    };
  });
}

/** Runs `verify-attestation`. */
export async function run(options: Options, ctx: CommandContext): Promise<number> {
  const format = options.output;
  if (options.type === undefined) throw new UsageError("Name the predicate type with --type");
  const predicateType = predicateTypeURI(options.type);
  if (predicateType === undefined) {
    throw new UsageError(
      `--type "${options.type}" is neither a URI nor one of cosign's short names`,
    );
  }
  const ref = parseReference(options.image);
  let trust: AttestationTrust;
  let where: string;
  const clock = () => new Date(ctx.clock.now());
  if (options.trustRoot !== undefined) {
    if (options.key !== undefined || options.keySecret !== undefined) {
      throw new UsageError(
        "--trust-root is for keyless attestations: leave out --key and --key-secret",
      );
    }
    trust = { sigstore: await keylessTrust(options, ctx), clock };
    where = `--trust-root ${options.trustRoot}`;
  } else {
    const [bytes, from] = await keyText(options, ctx);
    const { pem, pgp } = await keys(bytes, from);
    trust = {
      sigstore: pem.length > 0 ? { keys: pem, tlog: "optional" as const } : undefined,
      openpgp: pgp,
      clock,
    };
    where = `the keys of ${from}`;
  }
  const conditions = await conditionsOf(options, ctx, predicateType);
  const log = makeLogger(options, ctx.io);
  const image = formatReference(ref);
  log.step(`Verifying the attestations of ${image} of type ${predicateType} with ${where}`);

  using access = await registryAccess(ref, options, ctx);
  const digest = ref.digest ?? await access.client.resolveDigest(ref);
  const stored: StoredCosignSignature[] = [];
  let skipped: readonly string[];
  {
    using source = openCosignSignatures(access.client, ref, digest, { attestations: true });
    for await (const attestation of source.signatures()) stored.push(attestation);
    skipped = [...source.skipped];
  }
  const { verifyAttestation } = await loadAttestationVerification();

  const verified: VerifiedAttestation[] = [];
  const refused: string[] = [...skipped];
  for (const attestation of stored) {
    const result = await verifyAttestation(attestation, trust, digest);
    if (result.verified) verified.push(result.attestation);
    else refused.push(result.reason);
  }
  const ofType = verified.filter((a) => a.predicateType === predicateType);
  const results = ofType.map((a) => {
    const outcomes = conditions ? checkConditions(conditions, a, verified) : undefined;
    return {
      format: a.format,
      where: a.where,
      signedBy: a.signer,
      ...(outcomes ? { conditions: outcomes, satisfied: outcomes.every((o) => o.held) } : {}),
      statement: a.statement,
    };
  });
  const ok = results.some((r) => r.satisfied !== false);
  const reason = ofType.length === 0
    ? stored.length === 0
      ? `no attestation of the image exists`
      : `no attestation of type ${predicateType} is verified with ${where}`
    : ok
    ? undefined
    : `no attestation of type ${predicateType} meets every condition of --policy`;
  printData(
    ctx.io.stdout,
    format,
    {
      verified: ok,
      image,
      digest,
      predicateType,
      attestations: results,
      ...(reason ? { reason, refused } : {}),
    },
    () =>
      results.map((r) =>
        `Verified attestation of ${predicateType} for ${image} (${digest}): ${r.where}, signed by ${r.signedBy}\n` +
        (r.conditions ?? []).map((c) =>
          `  condition "${c.name}": ${
            c.held ? "true" : c.reason ?? `false${c.message ? `: ${c.message}` : ""}`
          }\n`
        ).join("") +
        `${JSON.stringify(r.statement, null, 2)}\n`
      ).join(""),
  );
  if (ok) return 0;
  ctx.io.stderr.write(
    `${image} (${digest}) is not verified: ${reason}${
      refused.length ? ` (${[...new Set(refused)].join("; ")})` : ""
    }\n`,
  );
  return 1;
}
