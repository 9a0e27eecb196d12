/**
 * `toolkit image-security rollout -n NS --enforce|--warn [--force] [--dry-run] [-o json|yaml]`:
 * sets a namespace's mode with its `toolkit.dev/enforcement` label, which the webhook reads in
 * place of its `--mode` there (`lib/admission/source.ts`, `ENFORCEMENT_LABEL`). `--enforce`
 * first audits the namespace as if it were enforced already (`lib/audit`, the webhook's
 * evaluator) and refuses while anything running there would be denied, naming what; `--force`
 * enforces anyway. `--warn` needs no audit.
 *
 * Exit status: 0 when the namespace is (or, with `--dry-run`, would be) in the mode asked for,
 * 1 when the audit refuses or a request fails, 2 on a usage error.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import { printReport } from "../output.ts";
import { namespaceOf } from "../dev/common.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { applyObject, NAMESPACES } from "../../lib/kube/mod.ts";
import { ENFORCEMENT_LABEL } from "../../lib/admission/mod.ts";
import type { ROLLOUT } from "./rollout_command.ts";
import { auditTable, runAudit, startJudge } from "./audit_run.ts";
import { denied } from "../../lib/audit/mod.ts";

/** Runs `rollout`. */
export async function run(
  options: OptionsOf<typeof ROLLOUT>,
  ctx: CommandContext,
): Promise<number> {
  if (options.enforce === options.warn) {
    throw new UsageError("Give one of --enforce or --warn");
  }
  if (options.force && !options.enforce) throw new UsageError("--force goes with --enforce");
  const mode = options.enforce ? "enforce" : "warn";
  using kube = await ctx.kube(options);
  const namespace = namespaceOf(options.namespace, kube);
  const live = await kube.read(NAMESPACES, undefined, namespace);
  if (live === undefined) throw new ToolkitError(`Namespace "${namespace}" does not exist`);
  const before = live.metadata.labels?.[ENFORCEMENT_LABEL];
  const err = (line: string) => void (!options.quiet && ctx.io.stderr.write(`${line}\n`));

  let wouldDeny = 0;
  if (mode === "enforce") {
    // Judged as the webhook will judge it once enforced: the label taken as set already.
    await using judge = await startJudge(options, ctx, kube, { namespace, mode: "enforce" });
    const images = await runAudit(judge, kube, [namespace], ctx, options);
    const failing = images.filter(denied);
    wouldDeny = failing.length;
    if (failing.length > 0) {
      ctx.io.stderr.write(auditTable(failing));
      if (!options.force) {
        throw new ToolkitError(
          `Not enforcing namespace "${namespace}": ${failing.length} running image${
            failing.length === 1 ? "" : "s"
          } would be denied (above); sign them or change the policy, or enforce anyway with --force`,
        );
      }
      err(`Enforcing anyway (--force): ${failing.length} running images would be denied`);
    } else {
      err(`The audit of namespace "${namespace}" finds nothing that would be denied`);
    }
  }

  const ref = { type: NAMESPACES, name: namespace };
  let outcome: string;
  if (before === mode) {
    outcome = "unchanged";
  } else if (options.dryRun) {
    outcome = "would update";
  } else {
    const result = await applyObject(kube, NAMESPACES, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace, labels: { [ENFORCEMENT_LABEL]: mode } },
    }, { existing: live });
    outcome = result.outcome === "unchanged" ? "unchanged" : "updated";
  }
  err(
    outcome === "unchanged"
      ? `Namespace "${namespace}" is already in ${mode} mode`
      : outcome === "updated"
      ? `Namespace "${namespace}" labelled ${ENFORCEMENT_LABEL}=${mode}${
        before ? ` (was ${before})` : ""
      }`
      : `Namespace "${namespace}" would be labelled ${ENFORCEMENT_LABEL}=${mode} (--dry-run)`,
  );
  printReport(ctx.io, options.output, { results: [{ ...ref, outcome }] }, {
    mode,
    ...(before ? { previous: before } : {}),
    ...(mode === "enforce" ? { wouldDeny } : {}),
    dryRun: options.dryRun === true,
  });
  return 0;
}
