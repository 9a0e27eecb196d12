/**
 * The `attestation` requirement kind: an in-toto attestation of the digest, of the requirement's
 * predicate type, signed with what the requirement trusts (the PEM or OpenPGP keys of
 * `keySecret`, or keyless Fulcio identities of a trust root), whose statement satisfies every
 * CEL condition of the requirement.
 *
 * The attestations are read from the image's registry as cosign stores them (the `.att` tag, the
 * bundle referrers; lib/registry's reader with its bounds, `attestations: true`), every one
 * verified with the requirement's trust by lib/sigstore (`verify_attestation.ts`); the
 * conditions see one verified statement of the predicate type at a time, and in `attestations`
 * every verified statement of the image by predicate type, so that one condition can bind
 * several (an SBOM and the provenance). The conditions are compiled and cost-checked when the
 * policy is planned (lib/policy's `attestation_conditions.ts`, lib/cel's bounds); one that does
 * not compile makes the policy unusable, naming the condition.
 *
 * Denials name the predicate type and what failed:
 * `attestation <type>: condition "<name>" is false[: <message>]`,
 * `attestation <type>: no attestation of type <type> exists`,
 * `attestation <type>: no attestation of type <type> is signed by a key of Secret <ns>/<name> (…)`.
 *
 * @module
 */
import type { CelCondition } from "../cel/mod.ts";
import { CelLimitError, ConditionInputs } from "../cel/mod.ts";
import {
  type AttestationCondition,
  type AttestationRequirement,
  compileAttestationCondition,
  loadAttestationConditions,
} from "../policy/mod.ts";
import {
  type CosignSignatureSource,
  openCosignSignatures,
  type StoredCosignSignature,
} from "../registry/mod.ts";
import type { PublicKey } from "../signature/mod.ts";
import {
  type AttestationTrust,
  loadAttestationVerification,
  type SigstoreTrust,
  type VerifiedAttestation,
} from "../sigstore/mod.ts";
import { PolicyConfigError } from "./errors.ts";
import type { TrustedKeys } from "./keys.ts";
import type { SigstoreKeys } from "./sigstore_material.ts";
import { neverDenies } from "./kind_not_verified.ts";
import type {
  ImageToVerify,
  KindOutcome,
  KindServices,
  PlanContext,
  RequirementKind,
} from "./requirement_kind.ts";

/** An `attestation` requirement, ready to verify with. */
export interface AttestationPlan {
  readonly predicateType: string;
  /** PEM keys or keyless. */
  readonly sigstore: SigstoreTrust | undefined;
  /** OpenPGP keys. */
  readonly openpgp: readonly PublicKey[];
  /** What signs, for denials: `a key of Secret ns/name`, `an accepted identity (…)`. */
  readonly signedBy: string;
  readonly conditions: readonly {
    readonly spec: AttestationCondition;
    readonly cel: CelCondition;
  }[];
  /** Identifies the trust (the attestations verified with it are shared by plans). */
  readonly trustId: string;
  /** Identifies what the verdict depends on, for the cache key. */
  readonly id: string;
}

function unusable(context: PlanContext, detail: string, cause?: unknown): never {
  throw new PolicyConfigError(
    `Cannot use ${context.match.source}: an attestation requirement of "${context.match.pattern}" ${detail}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * The PEM and OpenPGP keys of the requirement's Secret, and why a reader refused it: through
 * the attestation key source (PEM, OpenPGP or both in one read); without it (keys given apart,
 * as the CLI does), through each of the two readers.
 */
async function secretKeys(
  services: KindServices,
  namespace: string,
  name: string,
): Promise<{ pem?: SigstoreKeys | undefined; pgp?: TrustedKeys | undefined; refused: string[] }> {
  if (services.attestationKeys !== undefined) {
    return { ...await services.attestationKeys.attestationKeys(namespace, name), refused: [] };
  }
  const [pem, pgp] = await Promise.allSettled([
    services.sigstoreKeys.sigstoreKeys(namespace, name),
    services.keys.keys(namespace, name),
  ]);
  const pemKeys = pem.status === "fulfilled" ? pem.value : undefined;
  const pgpKeys = pgp.status === "fulfilled" ? pgp.value : undefined;
  if (!pemKeys?.keys.length && !pgpKeys?.keys.length) {
    if (pem.status === "rejected" && !(pem.reason instanceof PolicyConfigError)) throw pem.reason;
    if (pgp.status === "rejected" && !(pgp.reason instanceof PolicyConfigError)) throw pgp.reason;
  }
  const refused = [pem, pgp].filter((r) => r.status === "rejected").map((r) =>
    (r as PromiseRejectedResult).reason.message
  );
  return { pem: pemKeys, pgp: pgpKeys, refused };
}

async function keyedTrust(requirement: AttestationRequirement, context: PlanContext) {
  const { services, policyNamespace } = context;
  const namespace = requirement.keySecretNamespace || policyNamespace;
  const name = requirement.keySecret!;
  const { pem: pemKeys, pgp: pgpKeys, refused } = await secretKeys(services, namespace, name);
  if (!pemKeys?.keys.length && !pgpKeys?.keys.length) {
    unusable(
      context,
      `has no usable key in Secret ${namespace}/${name} (PEM or OpenPGP public keys)${
        refused.length ? `: ${refused.join("; ")}` : ""
      }`,
    );
  }
  const tlog = requirement.tlog ?? "optional";
  const trustRoot = requirement.trustRootRef
    ? await services.sigstoreMaterial.trustRoot(requirement.trustRootRef, policyNamespace)
    : undefined;
  if (tlog === "required" && trustRoot === undefined) {
    unusable(context, "with tlog: required has no trustRootRef");
  }
  const sigstore: SigstoreTrust | undefined = pemKeys?.keys.length
    ? { keys: pemKeys.keys, tlog, trustRoot }
    : undefined;
  return {
    sigstore,
    openpgp: pgpKeys?.keys ?? [],
    signedBy: `a key of Secret ${namespace}/${name}`,
    trustId: `key:${pemKeys?.id ?? "-"}/${pgpKeys?.id ?? "-"}/${tlog}/${trustRoot?.id ?? "-"}`,
  };
}

/** `attestation`. */
export const attestationKind: RequirementKind<AttestationRequirement, AttestationPlan> = {
  type: "attestation",
  needs: "signature",
  denial: neverDenies("attestation"),
  async plan(requirement, context) {
    const { services, policyNamespace } = context;
    if (!requirement.predicateType) unusable(context, "has no predicateType");
    if (requirement.conditions?.length) await loadAttestationConditions();
    const conditions = (requirement.conditions ?? []).map((spec) => {
      try {
        return { spec, cel: compileAttestationCondition(spec) };
      } catch (error) {
        if (error instanceof CelLimitError) {
          unusable(context, `is refused: ${error.message}`, error);
        }
        throw error;
      }
    });
    let trust: Pick<AttestationPlan, "sigstore" | "openpgp" | "signedBy" | "trustId">;
    if (requirement.keySecret) {
      trust = await keyedTrust(requirement, context);
    } else if (requirement.keyless) {
      const trustRoot = await services.sigstoreMaterial.trustRoot(
        requirement.keyless.trustRootRef,
        policyNamespace,
      );
      const identities = await services.identityRules.identities(requirement.keyless.identities);
      const tlog = requirement.tlog ?? "required";
      trust = {
        sigstore: { keyless: { trustRoot, identities: identities.matcher }, tlog },
        openpgp: [],
        signedBy: `an accepted identity (${identities.matcher.description})`,
        trustId: `keyless:${trustRoot.id}/${identities.id}/${tlog}`,
      };
    } else {
      unusable(context, "has neither keySecret nor keyless");
    }
    const conditionsId = JSON.stringify(
      conditions.map(({ spec }) => [spec.name, spec.expression, spec.message ?? ""]),
    );
    return {
      predicateType: requirement.predicateType,
      ...trust,
      conditions,
      id: `${trust.trustId}/${requirement.predicateType}/${conditionsId}`,
    };
  },
  planKey: (plan) => plan.id,
  // The attestations are read while the signature kinds verify: their round trips overlap the
  // signatures' (a bundle's manifest and blob beside the signature's), never follow them.
  prepare: (_plans, image) => readAttestations(image),
  async verify(plans, image, services, prepared): Promise<KindOutcome> {
    const { digest, signal } = image;
    using opened = prepared === undefined ? readAttestations(image) : undefined;
    const { source, stored: reading } = (prepared ?? opened) as AttestationsRead;
    const stored = await reading;
    const { verifyAttestation, claimedPredicateType } = await loadAttestationVerification();
    // The attestations verified with each trust, shared by the plans that have it.
    const byTrust = new Map<string, Promise<Verified>>();
    const verifiedWith = (plan: AttestationPlan) => {
      let verified = byTrust.get(plan.trustId);
      if (verified === undefined) {
        verified = (async () => {
          const trust: AttestationTrust = {
            sigstore: plan.sigstore,
            openpgp: plan.openpgp,
            clock: services.clock,
          };
          const accepted: VerifiedAttestation[] = [];
          const refused: { claimed: string | undefined; reason: string }[] = [];
          for (const attestation of stored) {
            if (services.turns.due()) await services.turns.next();
            signal.throwIfAborted();
            const result = await verifyAttestation(attestation, trust, digest);
            if (result.verified) {
              accepted.push(result.attestation);
            } else {
              const claimed = claimedPredicateType(attestation);
              refused.push({ claimed, reason: result.reason });
            }
          }
          return verifiedOf(accepted, refused);
        })();
        byTrust.set(plan.trustId, verified);
      }
      return verified;
    };
    const signers: string[] = [];
    let validUntil: number | undefined;
    for (const plan of plans) {
      const outcome = await judge(plan, await verifiedWith(plan), source.skipped, services);
      if (!outcome.allowed) return outcome;
      signers.push(...outcome.signers);
      // An OpenPGP key or signature that expires ends the verdict's validity.
      const until = outcome.validUntil;
      if (until !== undefined) validUntil = Math.min(validUntil ?? until, until);
    }
    return { allowed: true, signers, ...(validUntil === undefined ? {} : { validUntil }) };
  },
};

/** The attestations of an image being read, every one (as the verification uses them all). */
interface AttestationsRead extends Disposable {
  readonly source: CosignSignatureSource;
  readonly stored: Promise<StoredCosignSignature[]>;
}

/** Opens the image's attestations and reads them all at once, within the reader's bounds. */
function readAttestations(image: ImageToVerify): AttestationsRead {
  const source = openAttestations(image);
  const stored = (async () => {
    const all: StoredCosignSignature[] = [];
    for await (const attestation of source.signatures()) all.push(attestation);
    return all;
  })();
  stored.catch(() => {}); // awaited by verify, or abandoned with the source
  return { source, stored, [Symbol.dispose]: () => source[Symbol.dispose]() };
}

function openAttestations(image: ImageToVerify): CosignSignatureSource {
  const { digest, signal, budget, listings } = image;
  return openCosignSignatures(image.client, image.reference, digest, {
    signal,
    budget,
    listings,
    attestations: true,
  });
}

interface Verified {
  readonly accepted: readonly VerifiedAttestation[];
  readonly refused: readonly { readonly claimed: string | undefined; readonly reason: string }[];
  /**
   * `attestations` (every accepted statement by predicate type) as the conditions see it:
   * converted once for every plan of the trust and every candidate, when first needed.
   */
  readonly shared: () => ConditionInputs;
}

function verifiedOf(
  accepted: readonly VerifiedAttestation[],
  refused: Verified["refused"],
): Verified {
  let shared: ConditionInputs | undefined;
  return {
    accepted,
    refused,
    shared: () => {
      if (shared === undefined) {
        const attestations: Record<string, unknown[]> = {};
        for (const a of accepted) (attestations[a.predicateType] ??= []).push(a.statement);
        shared = new ConditionInputs({ attestations });
      }
      return shared;
    },
  };
}

/** The verdict of one plan over the attestations verified with its trust. */
async function judge(
  plan: AttestationPlan,
  verified: Verified,
  skipped: readonly string[],
  services: KindServices,
): Promise<KindOutcome> {
  const type = plan.predicateType;
  const deny = (reason: string): KindOutcome => ({
    allowed: false,
    reason: `attestation ${type}: ${reason}`,
    cause: "policy",
  });
  const candidates = verified.accepted.filter((a) => a.predicateType === type);
  if (candidates.length === 0) {
    const claimed = verified.refused.filter((r) => r.claimed === type || r.claimed === undefined);
    if (claimed.length === 0) {
      return deny(
        `no attestation of type ${type} exists${
          skipped.length ? ` (${[...new Set(skipped)].join("; ")})` : ""
        }`,
      );
    }
    return deny(
      `no attestation of type ${type} is signed by ${plan.signedBy} (${
        [...new Set(claimed.map((r) => r.reason))].join("; ")
      })`,
    );
  }
  const shared = verified.shared();
  let firstFailure: string | undefined;
  for (const candidate of candidates) {
    const failure = await failingCondition(plan, candidate, shared, services);
    if (failure === undefined) {
      const until = candidate.validUntil?.getTime();
      return {
        allowed: true,
        signers: [candidate.signer],
        ...(until === undefined ? {} : { validUntil: until }),
      };
    }
    firstFailure ??= failure;
  }
  return deny(firstFailure!);
}

/** The first condition `attestation` does not satisfy, described; undefined when all hold. */
async function failingCondition(
  plan: AttestationPlan,
  attestation: VerifiedAttestation,
  shared: ConditionInputs,
  services: KindServices,
): Promise<string | undefined> {
  const statement = attestation.statement;
  const variables = new ConditionInputs({
    statement,
    predicate: statement.predicate ?? null,
    subject: statement.subject ?? null,
    predicateType: attestation.predicateType,
  }, shared);
  for (const { spec, cel } of plan.conditions) {
    // Each evaluation is bounded by its runtime limit; the next waits for a turn once the
    // process's shared slice is spent.
    if (services.turns.due()) await services.turns.next();
    const result = cel.evaluate(variables);
    if (!result.ok) return `condition "${spec.name}" cannot be evaluated: ${result.reason}`;
    if (!result.value) {
      return `condition "${spec.name}" is false${spec.message ? `: ${spec.message}` : ""}`;
    }
  }
  return undefined;
}
