/**
 * The verifier's dispatch over requirement kinds: the signature requirements of a policy
 * planned by their kinds (grouped by kind and by their rule for multi-platform indexes, in the
 * list's order), and one image verified by each group in turn, the first denial deciding. A
 * group whose rule is not `index` is verified through the image's platform scope
 * (`platform_scope.ts`), the same for every kind.
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
import {
  type PlatformRule,
  platformRuleKey,
  platformRuleOf,
  type PlatformScope,
} from "./platform_scope.ts";
import { PolicyConfigError } from "./errors.ts";

/** The plans of one kind's requirements under one rule for indexes. */
export interface KindPlans {
  readonly kind: AnyRequirementKind;
  readonly plans: readonly unknown[];
  /** What must be signed when the image is an index. @default `{ multiArch: "index" }` */
  readonly rule?: PlatformRule;
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
  const groups = order.filter((kind) => kind.needs === "signature").flatMap((kind) => {
    const byRule = new Map<string, { rule: PlatformRule; requirements: Requirement[] }>();
    for (const r of requirements) {
      if (kindOf(r) !== kind) continue;
      const rule = platformRuleOf(r);
      const key = platformRuleKey(rule);
      const group = byRule.get(key) ?? { rule, requirements: [] };
      group.requirements.push(r);
      byRule.set(key, group);
    }
    return [...byRule.values()].map((group) => ({ kind, ...group }));
  });
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
  return await Promise.all(groups.map(async ({ kind, rule, requirements }) => ({
    kind,
    plans: await Promise.all(requirements.map((r) => kind.plan(r, context))),
    ...(rule.multiArch === "index" ? {} : { rule }),
  })));
}

/** What the verdict of the plans depends on, for the verdict cache. */
export function plansKey(groups: readonly KindPlans[]): string {
  return groups.map(({ kind, plans, rule }) => {
    const ruleKey = rule === undefined ? "" : platformRuleKey(rule);
    return `${kind.type}${ruleKey === "" ? "" : `@${ruleKey}`}:${
      plans.map(kind.planKey).join("|")
    }`;
  }).join("|");
}

/**
 * Each group verifies the image in turn (through `scope` when its rule is not `index`); the
 * first denial decides, else their signers and notes add up.
 */
export async function verifyKinds(
  groups: readonly KindPlans[],
  image: ImageToVerify,
  services: KindServices,
  scope?: PlatformScope,
): Promise<KindOutcome> {
  const signers: string[] = [];
  const notes: string[] = [];
  let validUntil: number | undefined;
  let explained: NonNullable<Extract<KindOutcome, { allowed: true }>["explained"]> = {};
  // The kinds that can start their reads do so at once, so that their round trips overlap (for
  // the image itself: a group verified through its platforms reads theirs in the scope).
  const prepared = groups.map(({ kind, plans, rule }) =>
    rule === undefined || rule.multiArch === "index" ? kind.prepare?.(plans, image) : undefined
  );
  try {
    for (const [i, { kind, plans, rule }] of groups.entries()) {
      let outcome: KindOutcome;
      if (rule === undefined || rule.multiArch === "index") {
        outcome = await kind.verify(plans, image, services, prepared[i]);
      } else if (scope === undefined) {
        // Never the index's verdict in place of the platforms' the policy asks for.
        outcome = {
          allowed: false,
          cause: "error",
          reason:
            `multiArch: ${rule.multiArch} needs the image's platform manifests, not read here`,
        };
      } else {
        outcome = await scope.verify(kind, plans, rule, image, services);
      }
      if (!outcome.allowed) return outcome;
      signers.push(...outcome.signers);
      for (const note of outcome.notes ?? []) if (!notes.includes(note)) notes.push(note);
      if (outcome.validUntil !== undefined) {
        validUntil = Math.min(validUntil ?? outcome.validUntil, outcome.validUntil);
      }
      explained = { ...explained, ...outcome.explained };
    }
  } finally {
    for (const p of prepared) p?.[Symbol.dispose]();
  }
  return {
    allowed: true,
    signers,
    validUntil,
    explained,
    ...(notes.length > 0 ? { notes } : {}),
  };
}
