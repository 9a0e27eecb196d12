/**
 * The verifier's dispatch over requirement kinds: the signature requirements of a policy
 * planned by their kinds (grouped, in the list's order), and one image verified by each kind in
 * turn, the first denial deciding.
 *
 * @module
 */
import type { Requirement } from "../policy/mod.ts";
import type {
  AnyRequirementKind,
  ImageToVerify,
  KindOutcome,
  KindServices,
  PlanContext,
} from "./requirement_kind.ts";
import { KIND_ORDER, kindOf } from "./requirement_kinds.ts";
import { PolicyConfigError } from "./errors.ts";

/** The plans of one kind's requirements. */
export interface KindPlans {
  readonly kind: AnyRequirementKind;
  readonly plans: readonly unknown[];
}

/**
 * The plans of the requirements that need signatures, by kind in order of verification (kinds
 * without such requirements left out): each requirement's fields checked, what it trusts read.
 */
export async function planKinds(
  requirements: readonly Requirement[],
  context: PlanContext,
  order: readonly AnyRequirementKind[] = KIND_ORDER,
): Promise<KindPlans[]> {
  const groups = order.filter((kind) => kind.needs === "signature").map((kind) => ({
    kind,
    requirements: requirements.filter((r) => kindOf(r) === kind),
  })).filter((group) => group.requirements.length > 0);
  // Exhaustive: a requirement that needs verifying and that no kind of the order verifies is
  // an error, never "no signature requirement, so allowed".
  const unhandled = requirements.find((r) =>
    kindOf(r).needs === "signature" && !groups.some((g) => g.kind === kindOf(r))
  );
  if (unhandled !== undefined) {
    throw new PolicyConfigError(
      `Cannot use ${context.match.source}: its requirement of type "${unhandled.type}" is not verified by this verifier`,
    );
  }
  return await Promise.all(groups.map(async ({ kind, requirements }) => ({
    kind,
    plans: await Promise.all(requirements.map((r) => kind.plan(r, context))),
  })));
}

/** What the verdict of the plans depends on, for the verdict cache. */
export function plansKey(groups: readonly KindPlans[]): string {
  return groups.map(({ kind, plans }) => `${kind.type}:${plans.map(kind.planKey).join("|")}`)
    .join("|");
}

/** Each kind verifies the image in turn; the first denial decides, else their signers add up. */
export async function verifyKinds(
  groups: readonly KindPlans[],
  image: ImageToVerify,
  services: KindServices,
): Promise<KindOutcome> {
  const signers: string[] = [];
  let validUntil: number | undefined;
  let explained: NonNullable<Extract<KindOutcome, { allowed: true }>["explained"]> = {};
  // The kinds that can start their reads do so at once, so that their round trips overlap.
  const prepared = groups.map(({ kind, plans }) => kind.prepare?.(plans, image));
  try {
    for (const [i, { kind, plans }] of groups.entries()) {
      const outcome = await kind.verify(plans, image, services, prepared[i]);
      if (!outcome.allowed) return outcome;
      signers.push(...outcome.signers);
      if (outcome.validUntil !== undefined) {
        validUntil = Math.min(validUntil ?? outcome.validUntil, outcome.validUntil);
      }
      explained = { ...explained, ...outcome.explained };
    }
  } finally {
    for (const p of prepared) p?.[Symbol.dispose]();
  }
  return { allowed: true, signers, validUntil, explained };
}
