/**
 * `toolkit image-security audit [-n NS | -A] [--policy FILE…] [-o json|yaml]`: which images of
 * the running workloads the webhook would deny if they were created now (`lib/audit`, the
 * webhook's own evaluator), as a table or as data. Progress on stderr for long scans.
 *
 * Exit status: 0 when nothing would be denied (warn verdicts included), 1 when an image would
 * be (`fail` or `error`), 2 on a usage error or a policy file that does not validate.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import { printData } from "../output.ts";
import { namespaceOf } from "../dev/common.ts";
import { UsageError } from "../../lib/errors.ts";
import type { AUDIT } from "./audit_command.ts";
import { auditTable, runAudit, startJudge } from "./audit_run.ts";
import { denied } from "../../lib/audit/mod.ts";

/** Runs `audit`. */
export async function run(options: OptionsOf<typeof AUDIT>, ctx: CommandContext): Promise<number> {
  if (options.allNamespaces && options.namespace) {
    throw new UsageError("Give either -n NAMESPACE or -A, not both");
  }
  using kube = await ctx.kube(options);
  const namespaces = options.allNamespaces ? undefined : [namespaceOf(options.namespace, kube)];
  await using judge = await startJudge(options, ctx, kube);
  const images = await runAudit(judge, kube, namespaces, ctx, options);
  const failing = images.filter(denied);
  printData(
    ctx.io.stdout,
    options.output,
    { namespaces: namespaces ?? "all", denied: failing.length, images },
    () => images.length === 0 ? "" : auditTable(images),
  );
  if (!options.quiet) {
    const workloads = new Set(images.map((i) =>
      i.workload.uid ?? `${i.namespace}/${i.workload.kind}/${i.workload.name}`
    )).size;
    const where = namespaces ? `namespace "${namespaces[0]}"` : "all namespaces";
    ctx.io.stderr.write(
      images.length === 0
        ? `No workload images in ${where}\n`
        : `${images.length} images of ${workloads} workloads in ${where}: ${failing.length} would be denied\n`,
    );
  }
  return failing.length > 0 ? 1 : 0;
}
