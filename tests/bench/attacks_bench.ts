/**
 * The attacks of issue #33 on the real webhook process, one after another, each against a fresh
 * webhook (and whatever else it needs: registry, API server, hostile servers), with the figures
 * every attack reports (`tests/admission/_attack.ts`): peak resident memory, the longest
 * `/healthz` answer and the longest event-loop stall the webhook saw while it ran, and, for the
 * attacks on other tenants, how many of another namespace's signed images were admitted.
 *
 * The same attack modules back the end-to-end tests (`tests/admission/*_attack_e2e_test.ts`),
 * which assert the bounds that do not depend on the machine's speed; this prints the figures
 * docs/benchmarks.md ("Hostile load", "Budgets that add up") records. Run alone with
 * `deno run -A tests/bench/attacks_bench.ts [NAME…]` (names as printed; none runs them all).
 *
 * @module
 */
import type { AttackFigures } from "../admission/_attack.ts";
import { unauthenticatedAttack } from "../admission/_attack_unauthenticated.ts";
import { hugeReferrersAttack, junkReferrersAttack } from "../admission/_attack_referrers.ts";
import { floodAttack } from "../admission/_attack_flood.ts";
import { deepJsonAttack, heldBodiesAttack, wideJsonAttack } from "../admission/_attack_bodies.ts";
import { hostileKeyAttack } from "../admission/_attack_hostile_key.ts";
import { pullSecretsAttack } from "../admission/_attack_pull_secrets.ts";
import { policyChurnAttack } from "../admission/_attack_policy_churn.ts";

type Attack = () => Promise<AttackFigures | readonly AttackFigures[]>;

/** Every attack, by the name it is run by. */
const ATTACKS: Record<string, Attack> = {
  "held-bodies": heldBodiesAttack,
  "wide-json": wideJsonAttack,
  "deep-json": deepJsonAttack,
  "unauthenticated": unauthenticatedAttack,
  "huge-referrers-16": () => hugeReferrersAttack(16),
  "huge-referrers-128": () => hugeReferrersAttack(128),
  "junk-referrers": () => junkReferrersAttack(),
  "flood": () => floodAttack(),
  "hostile-key": hostileKeyAttack,
  "pull-secrets": async () => (await pullSecretsAttack()).figures,
  "policy-churn": async () => (await policyChurnAttack()).figures,
};

function out(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

function row(figures: AttackFigures): string {
  const cells = [
    figures.name,
    `${figures.peakRssMiB} MiB`,
    `${figures.healthzMaxMs} ms (${figures.healthzOk} ok)`,
    figures.eventLoopMaxStallMs === undefined
      ? "—"
      : `${figures.eventLoopMaxStallMs} ms (own CPU ${figures.eventLoopMaxBusyStallMs ?? "?"} ms)`,
    figures.otherNamespaceAdmitted ?? "—",
    figures.note ?? "",
  ];
  return `| ${cells.join(" | ")} |`;
}

const wanted = Deno.args.length > 0 ? Deno.args : Object.keys(ATTACKS);
const unknown = wanted.filter((name) => !(name in ATTACKS));
if (unknown.length > 0) {
  out(`unknown attack ${unknown.join(", ")}; known: ${Object.keys(ATTACKS).join(", ")}`);
  Deno.exit(2);
}

out("\n## Attacks of issue #33 on the real webhook process (tests/bench/attacks_bench.ts)\n");
out(
  "| attack | peak RSS | /healthz at worst | event-loop stall at worst | other namespace admitted | note |",
);
out("| --- | --- | --- | --- | --- | --- |");
let failed = 0;
for (const name of wanted) {
  try {
    const figures = await ATTACKS[name]!();
    for (const one of Array.isArray(figures) ? figures : [figures as AttackFigures]) {
      out(row(one));
    }
  } catch (error) {
    failed++;
    out(`| ${name} | failed: ${error instanceof Error ? error.message : String(error)} | | | | |`);
  }
}
Deno.exit(failed === 0 ? 0 : 1);
