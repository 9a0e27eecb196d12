/**
 * `toolkit sync [namespace]` (aliases `project`, `namespace`): prepares a namespace for a
 * developer.
 *
 * 1. Creates the namespace, or on OpenShift the project through a ProjectRequest.
 * 2. Copies the ConfigMaps and Secrets labelled `group=catalyst-tools` from the template
 *    namespace (`-t`, default `tools`), without their server-assigned metadata.
 * 3. Copies the template's registry pull secrets (those that exist are left alone) and adds
 *    them to the service account (`-z`, default `default`) once.
 * 4. On OpenShift, grants `system:image-puller` (`--puller`, on by default); with `--argocd`,
 *    lets the Argo CD service accounts manage the namespace; with `--tekton`, adds the
 *    `pipeline` service account to the `privileged` SCC.
 * 5. Sets the namespace of the kubeconfig context in use (`--context`, else the current one) in
 *    the file that defines it, editing only that value.
 *
 * Every write is idempotent and reported: a second run says nothing changed. A copy the API
 * server refuses does not stop the others: each failure is reported with its reason, the rest is
 * done, and the command exits 1 naming the objects that failed.
 *
 * @module
 */
import type { Clock, CommandContext } from "../command.ts";
import { pollUntil } from "../../lib/poll.ts";
import type { OptionsOf } from "../options.ts";
import { grantScc } from "../../lib/openshift/mod.ts";
import type { SYNC } from "./sync_command.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  applyObject,
  type ApplyResult,
  CONFIG_MAPS,
  copyForNamespace,
  countOutcomes,
  describeCounts,
  describeObject,
  isStatus,
  type KubeClient,
  type KubeObject,
  NAMESPACES,
  PROJECT_REQUESTS,
  PROJECTS,
  ROLE_BINDINGS,
  SECRETS,
  SECURITY_CONTEXT_CONSTRAINTS,
  setContextNamespace,
} from "../../lib/kube/mod.ts";
import {
  batchFailed,
  checkNamespaceName,
  type Logger,
  makeLogger,
  printReport,
  requireTemplateNamespace,
  writeEach,
  type WriteFailure,
} from "./common.ts";
import { addImagePullSecrets, copyPullSecrets, planPullSecrets } from "./copy_pull_secrets.ts";
import { ToolkitError } from "../../lib/errors.ts";

/** The label of the ConfigMaps and Secrets that sync copies. */
export const SYNC_SELECTOR = "group=catalyst-tools";

/** How long to wait for the namespace of a new OpenShift project. */
const PROJECT_WAIT_MS = 30_000;

/** The namespace cannot be used: it is being deleted, or the project never appeared. */
export class NamespaceUnavailableError extends ToolkitError {
  /** Creates the error. */
  constructor(namespace: string, detail: string) {
    super(`Cannot sync namespace "${namespace}": ${detail}`);
    this.name = "NamespaceUnavailableError";
  }
}

async function readNamespace(
  client: KubeClient,
  namespace: string,
  openshift: boolean,
): Promise<KubeObject | undefined> {
  try {
    return await client.read(NAMESPACES, undefined, namespace);
  } catch (error) {
    // A developer on OpenShift may see their project but not the namespace.
    if (openshift && isStatus(error, 403)) return await client.read(PROJECTS, undefined, namespace);
    throw error;
  }
}

async function ensureNamespace(
  client: KubeClient,
  namespace: string,
  openshift: boolean,
  log: Logger,
  clock: Clock,
): Promise<ApplyResult> {
  const kind = openshift ? "project" : "namespace";
  log.step(`Checking for existing ${kind}: ${namespace}`);
  const existing = await readNamespace(client, namespace, openshift);
  const type = openshift ? PROJECTS : NAMESPACES;
  if (existing) {
    const phase = (existing.status as { phase?: string } | undefined)?.phase;
    if (phase === "Terminating") {
      throw new NamespaceUnavailableError(
        namespace,
        "it is being deleted; try again when it is gone",
      );
    }
    return { outcome: "unchanged", type, name: namespace, object: existing };
  }
  log.step(`Creating ${kind}: ${namespace}`);
  if (!openshift) {
    const created = await client.create(NAMESPACES, { metadata: { name: namespace } });
    return { outcome: "created", type, name: namespace, object: created };
  }
  await client.create(PROJECT_REQUESTS, { metadata: { name: namespace } });
  // OpenShift makes the namespace of a project request before it answers; wait for it all the
  // same, in case it lags.
  const made = await pollUntil(
    () => readNamespace(client, namespace, true),
    () =>
      new NamespaceUnavailableError(
        namespace,
        `the project was requested but its namespace did not appear within ${
          PROJECT_WAIT_MS / 1000
        } s`,
      ),
    clock,
    { timeoutMs: PROJECT_WAIT_MS, pollMs: 200 },
  );
  return { outcome: "created", type, name: namespace, object: made };
}

function byName(objects: readonly KubeObject[]): Map<string, KubeObject> {
  return new Map(objects.map((o) => [o.metadata.name, o]));
}

function isLabelled(object: KubeObject): boolean {
  return object.metadata.labels?.group === "catalyst-tools";
}

async function copyLabelled(
  client: KubeClient,
  log: Logger,
  from: string,
  to: string,
  configMaps: readonly KubeObject[],
  secrets: readonly KubeObject[],
  fresh: boolean,
): Promise<{ results: ApplyResult[]; failures: WriteFailure[] }> {
  const [liveConfigMaps, liveSecrets] = fresh
    ? [new Map<string, KubeObject>(), new Map<string, KubeObject>()]
    : await Promise.all([
      client.list(CONFIG_MAPS, to, { labelSelector: SYNC_SELECTOR }).then(byName),
      client.list(SECRETS, to, { labelSelector: SYNC_SELECTOR }).then(byName),
    ]);
  const work = [
    ...configMaps.map((o) => ({ type: CONFIG_MAPS, source: o, live: liveConfigMaps })),
    ...secrets.map((o) => ({ type: SECRETS, source: o, live: liveSecrets })),
  ];
  log.step(
    `Copying ${configMaps.length} ConfigMap(s) and ${secrets.length} Secret(s) from ${from}`,
  );
  const { results, failures } = await writeEach(
    work,
    8,
    ({ type, source }) => ({ type, namespace: to, name: source.metadata.name }),
    ({ type, source, live }) =>
      applyObject(client, type, copyForNamespace(type, source, to), {
        existing: live.get(source.metadata.name) ?? (fresh ? null : undefined),
      }),
  );
  for (const r of results) log.result(r);
  for (const f of failures) log.failed(f);
  return { results, failures };
}

async function grantSccPrivileged(
  client: KubeClient,
  namespace: string,
  log: Logger,
): Promise<ApplyResult | undefined> {
  if (!(await client.serves(SECURITY_CONTEXT_CONSTRAINTS))) {
    log.warn("--tekton: this cluster has no SecurityContextConstraints (not OpenShift); skipped");
    return undefined;
  }
  const result = await grantScc(client, "privileged", namespace, "pipeline");
  if (!result) log.warn('--tekton: there is no SecurityContextConstraints "privileged"; skipped');
  return result;
}

function roleBinding(
  namespace: string,
  name: string,
  clusterRole: string,
  group: string,
): KubeObject {
  return {
    metadata: { name, namespace },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: clusterRole },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: group }],
  };
}

/** Runs `sync`. */
export async function run(options: OptionsOf<typeof SYNC>, ctx: CommandContext): Promise<void> {
  const log = makeLogger(options, ctx.io);
  const given = options.namespace;
  if (!given) {
    throw new UsageError(
      `Please give the namespace as the first argument. Run '${ctx.programName} sync --help' for more information`,
    );
  }
  const namespace = checkNamespaceName(given);
  const template = checkNamespaceName(options.templateNamespace, "template namespace");
  const serviceAccount = options.serviceAccount;
  const argocdNamespace = checkNamespaceName(options.argocdNamespace, "Argo CD namespace");

  using client = await ctx.kube(options);
  const openshift = await client.isOpenShift();
  const kind = openshift ? "project" : "namespace";
  log.info(`Setting up ${kind} ${namespace}`);
  log.step(
    `The cluster is ${openshift ? "OpenShift" : "Kubernetes"} (context ${client.context.name})`,
  );

  await requireTemplateNamespace(client, template);

  const results: ApplyResult[] = [];
  // A failed copy does not stop the others: each is reported, and the command exits 1 at the end.
  const failures: WriteFailure[] = [];
  const ns = await ensureNamespace(client, namespace, openshift, log, ctx.clock);
  log.result(ns);
  results.push(ns);

  let pullSecretNames: string[];
  if (namespace === template) {
    log.step(`The namespace is the template namespace: nothing to copy`);
    pullSecretNames = planPullSecrets(await client.list(SECRETS, template)).map((p) =>
      p.source.metadata.name
    );
  } else {
    const [configMaps, allSecrets] = await Promise.all([
      client.list(CONFIG_MAPS, template, { labelSelector: SYNC_SELECTOR }),
      client.list(SECRETS, template),
    ]);
    const secrets = allSecrets.filter((s) =>
      isLabelled(s) && s.type !== "kubernetes.io/service-account-token"
    );
    const fresh = ns.outcome === "created";
    const copiedLabelled = await copyLabelled(
      client,
      log,
      template,
      namespace,
      configMaps,
      secrets,
      fresh,
    );
    results.push(...copiedLabelled.results);
    failures.push(...copiedLabelled.failures);
    const plans = planPullSecrets(allSecrets.filter((s) => !isLabelled(s)));
    log.step(`Copying ${plans.length} pull secret(s) from ${template}`);
    const copied = await copyPullSecrets(client, log, plans, template, namespace);
    results.push(...copied.results);
    failures.push(...copied.failures);
    const failed = new Set(copiedLabelled.failures.map((f) => f.object));
    pullSecretNames = [
      ...secrets.filter((s) =>
        planPullSecrets([s]).length > 0 &&
        !failed.has(describeObject(SECRETS, namespace, s.metadata.name))
      ).map((s) => s.metadata.name),
      ...copied.names,
    ];
  }

  if (pullSecretNames.length > 0) {
    log.step(`Adding pull secrets to service account ${serviceAccount}`);
    const sa = await addImagePullSecrets(client, namespace, serviceAccount, pullSecretNames);
    log.result(sa);
    results.push(sa);
  } else {
    log.step(`No pull secrets to give service account ${serviceAccount}`);
  }

  if (options.puller) {
    if (openshift) {
      log.step(`Adding image-puller permission for service accounts in ${namespace}`);
      const puller = await applyObject(
        client,
        ROLE_BINDINGS,
        roleBinding(
          namespace,
          "image-puller",
          "system:image-puller",
          `system:serviceaccounts:${namespace}`,
        ),
      );
      log.result(puller);
      results.push(puller);
    } else {
      log.step("No image-puller permission on Kubernetes (it is an OpenShift role)");
    }
  }
  if (options.argocd) {
    log.step(
      `Giving the Argo CD service accounts in ${argocdNamespace} permission to manage ${namespace}`,
    );
    const argocd = await applyObject(
      client,
      ROLE_BINDINGS,
      roleBinding(namespace, "argocd-admin", "admin", `system:serviceaccounts:${argocdNamespace}`),
    );
    log.result(argocd);
    results.push(argocd);
  }
  if (options.tekton) {
    log.step("Adding the privileged SCC to the pipeline service account");
    const scc = await grantSccPrivileged(client, namespace, log);
    if (scc) {
      log.result(scc);
      results.push(scc);
    }
  }

  const changed = await setContextNamespace(client.context.file, client.context.name, namespace);
  log.info(
    changed
      ? `Setting current ${kind} to ${namespace} (context ${client.context.name} in ${client.context.file})`
      : `The current ${kind} is already ${namespace}`,
  );
  log.info(
    `${openshift ? "Project" : "Namespace"} ${namespace}: ${
      describeCounts(countOutcomes(results))
    }`,
  );
  printReport(ctx.io, options.output, { results, failures }, { namespace });
  if (failures.length > 0) throw batchFailed(failures, results.length);
}
