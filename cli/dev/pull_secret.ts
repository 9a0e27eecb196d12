/**
 * `toolkit pull-secret [namespace]`: copies the registry pull secrets of the template namespace
 * (`-t`, default `default`, where IBM Cloud puts them) into the namespace (the positional, else
 * the context's), skipping those that exist, and adds them to the service account (`-z`,
 * default `default`) once. `--dev` labels the namespace as a development namespace.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { PULL_SECRET } from "./pull_secret_command.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  applyObject,
  type ApplyResult,
  countOutcomes,
  describeCounts,
  NAMESPACES,
  SECRETS,
} from "../../lib/kube/mod.ts";
import {
  batchFailed,
  checkNamespaceName,
  makeLogger,
  printReport,
  requireNamespace,
  requireTemplateNamespace,
  type WriteFailure,
} from "./common.ts";
import { addImagePullSecrets, copyPullSecrets, planPullSecrets } from "./copy_pull_secrets.ts";

/** The label `--dev` puts on the namespace. */
export const DEVELOPMENT_LABEL = "cloudnativetoolkit.dev/development";

/** Runs `pull-secret`. */
export async function run(
  options: OptionsOf<typeof PULL_SECRET>,
  ctx: CommandContext,
): Promise<void> {
  const log = makeLogger(options, ctx.io);
  const given = options.namespace;
  if (given) checkNamespaceName(given);
  const template = checkNamespaceName(options.templateNamespace, "template namespace");
  const serviceAccount = options.serviceAccount;
  using client = await ctx.kube(options);
  const namespace = given ?? client.namespace;
  if (!namespace) {
    throw new UsageError(
      "Please give the namespace as the first argument, or set one in the kubeconfig context",
    );
  }
  log.info(`Setting up pull secrets in ${namespace}`);
  await requireTemplateNamespace(client, template);
  await requireNamespace(client, namespace);

  log.step(`Reading the pull secrets of namespace ${template}`);
  const plans = planPullSecrets(await client.list(SECRETS, template));
  const results: ApplyResult[] = [];
  // A failed copy does not stop the others: each is reported, and the command exits 1 at the end.
  const failures: WriteFailure[] = [];
  if (plans.length === 0) {
    log.warn(`No pull secrets in namespace ${template}`);
  } else {
    log.step(`Copying ${plans.length} pull secret(s) from ${template}`);
    const copied = await copyPullSecrets(client, log, plans, template, namespace);
    results.push(...copied.results);
    failures.push(...copied.failures);
    log.step(`Adding the pull secrets to service account ${serviceAccount}`);
    const sa = await addImagePullSecrets(client, namespace, serviceAccount, copied.names);
    log.result(sa);
    results.push(sa);
  }
  if (options.dev) {
    log.step(`Marking namespace ${namespace} as a development namespace`);
    const marked = await applyObject(client, NAMESPACES, {
      metadata: { name: namespace, labels: { [DEVELOPMENT_LABEL]: "true" } },
    });
    log.result(marked);
    results.push(marked);
  }
  log.info(`Pull secrets in ${namespace}: ${describeCounts(countOutcomes(results))}`);
  printReport(ctx.io, options.output, { results, failures }, { namespace });
  if (failures.length > 0) throw batchFailed(failures, results.length);
}
