/**
 * Applying, inspecting and removing an installation. Objects are written with `lib/kube`'s
 * server-side apply (field manager `toolkit`, forced): an object whose `resourceVersion` does
 * not move was unchanged, so a second `enable` reports every object unchanged. A certificate
 * rotation changes only the `caBundle` of the webhook configuration, by `lib/kube`'s
 * read-change-replace (an apply of just that field would drop the rest toolkit applied).
 *
 * @module
 */
import {
  applyObject,
  CERTIFICATES,
  CLUSTER_POLICY_REPORTS,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  clusterImagePolicies,
  CONFIG_MAPS,
  CUSTOM_RESOURCE_DEFINITIONS,
  DEPLOYMENTS,
  describeObject,
  FIELD_MANAGER,
  fieldManagers,
  imagePolicies,
  isStatus,
  ISSUERS,
  KubeApiError,
  type KubeClient,
  type KubeObject,
  type ListOptions,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  NAMESPACES,
  NoClusterContextError,
  POD_DISRUPTION_BUDGETS,
  POLICY_REPORTS,
  type ResourceType,
  ROLE_BINDINGS,
  ROLES,
  SECRETS,
  SERVICE_ACCOUNTS,
  SERVICES,
  updateObject,
} from "../kube/mod.ts";
import { API_GROUP } from "../policy/mod.ts";
import { installManifests } from "./manifests.ts";
import {
  POLICY_REPORT_CRD_NAMES,
  POLICY_REPORT_NAME,
  policyReportCrdsForeign,
  REPORT_LABELS,
} from "../reports/mod.ts";
import {
  type InstallOptions,
  MANAGED_BY_LABEL,
  POLICY_CRD_NAMES,
  RELEASE_KEY_SECRET_NAME,
  serviceDnsName,
  TLS_SECRET_NAME,
  WEBHOOK_CONFIGURATION_NAME,
  WEBHOOK_NAME,
} from "./options.ts";
import { DEFAULT_POLICY_NAMES } from "./policies.ts";
import {
  caBundle,
  decodeBase64Text,
  ensureTls,
  readCertificate,
  tlsSecretManifest,
  type WebhookTls,
} from "./tls.ts";

import { InstallError } from "./install_error.ts";
import {
  CLIENT_CA_SECRET_NAME,
  type ClientCa,
  clientCaFromSecret,
  ensureClientCa,
} from "./client_auth.ts";
import { pollUntil } from "../poll.ts";
import { REGISTRIES_D_CONFIG_MAP_NAME } from "./registries_d_config_map.ts";

/** The resources an installation writes (from `lib/kube`'s resource table). */
const INSTALLED_TYPES: readonly ResourceType[] = [
  NAMESPACES,
  SERVICE_ACCOUNTS,
  SECRETS,
  CONFIG_MAPS,
  SERVICES,
  DEPLOYMENTS,
  POD_DISRUPTION_BUDGETS,
  CLUSTER_ROLES,
  CLUSTER_ROLE_BINDINGS,
  ROLES,
  ROLE_BINDINGS,
  CUSTOM_RESOURCE_DEFINITIONS,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  clusterImagePolicies(API_GROUP),
  imagePolicies(API_GROUP),
  ISSUERS,
  CERTIFICATES,
];

const TYPES: ReadonlyMap<string, ResourceType> = new Map(
  INSTALLED_TYPES.map((type) => [type.kind, type]),
);

/** The resource type of an installed kind. */
export function installedType(kind: string): ResourceType {
  const type = TYPES.get(kind);
  if (!type) throw new InstallError(`Cannot install "${kind}": not a kind toolkit installs`);
  return type;
}

/** What happened to one object. */
export interface AppliedObject {
  /** `Deployment "toolkit-system/toolkit-webhook"`, for messages. */
  readonly object: string;
  /** Its resource type. */
  readonly type: ResourceType;
  /** Its namespace, for namespaced types. */
  readonly namespace?: string;
  /** Its name. */
  readonly name: string;
  /**
   * `created`, `configured`, `unchanged`, or `deleted`/`absent` when removing; `failed` when the
   * API server refused it (`error` says why).
   */
  readonly outcome: "created" | "configured" | "unchanged" | "deleted" | "absent" | "failed";
  /** Why it failed. */
  readonly error?: string;
}

/** Which object: its type, namespace and name. */
interface ObjectRef {
  readonly type: ResourceType;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** The result of `ref` with `outcome` (and, failed, `error`). */
function appliedObject(
  ref: ObjectRef,
  outcome: AppliedObject["outcome"],
  error?: unknown,
): AppliedObject {
  return {
    object: describeObject(ref.type, ref.namespace, ref.name),
    type: ref.type,
    ...(ref.type.namespaced && ref.namespace ? { namespace: ref.namespace } : {}),
    name: ref.name,
    outcome,
    ...(error !== undefined
      ? { error: error instanceof Error ? error.message : String(error) }
      : {}),
  };
}

/**
 * Runs one step of a batch: an object the API server refuses becomes a `failed` result and the
 * batch goes on; a cluster that cannot be reached, or refuses the credentials, stops it (every
 * other object would fail the same way).
 */
async function keepGoing(
  ref: ObjectRef,
  step: () => Promise<AppliedObject>,
): Promise<AppliedObject> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof NoClusterContextError) throw error;
    return appliedObject(ref, "failed", error);
  }
}

function refOf(object: KubeObject): ObjectRef {
  return {
    type: installedType(object.kind ?? ""),
    namespace: object.metadata.namespace,
    name: object.metadata.name,
  };
}

/** Server-side applies one object (`lib/kube`'s {@linkcode applyObject}) and says what changed. */
export async function applyOne(client: KubeClient, object: KubeObject): Promise<AppliedObject> {
  const ref = refOf(object);
  const { outcome } = await applyObject(client, ref.type, object);
  return appliedObject(
    ref,
    outcome === "updated" ? "configured" : outcome === "created" ? "created" : "unchanged",
  );
}

/**
 * Applies objects in order, keeping going past an object the API server refuses (its result is
 * `failed`); CRDs are awaited until served before the objects after them.
 */
export async function applyManifests(
  client: KubeClient,
  objects: readonly KubeObject[],
): Promise<AppliedObject[]> {
  const results: AppliedObject[] = [];
  let crdsPending: { name: string; index: number }[] = [];
  for (const object of objects) {
    if (object.kind !== "CustomResourceDefinition" && crdsPending.length > 0) {
      for (const { name, index } of crdsPending) {
        const waited = await keepGoing(results[index]!, async () => {
          await waitEstablished(client, name);
          return results[index]!;
        });
        results[index] = waited;
      }
      crdsPending = [];
    }
    const result = await keepGoing(refOf(object), () => applyOne(client, object));
    if (object.kind === "CustomResourceDefinition" && result.outcome !== "failed") {
      crdsPending.push({ name: object.metadata.name, index: results.length });
    }
    results.push(result);
  }
  return results;
}

/** Waits until the API server serves a CRD's resource (at most 30 s). */
async function waitEstablished(client: KubeClient, name: string): Promise<void> {
  const type = installedType("CustomResourceDefinition");
  await pollUntil(
    async () => {
      const crd = await client.read(type, undefined, name) as
        | KubeObject & { status?: { conditions?: { type: string; status: string }[] } }
        | undefined;
      const established = crd?.status?.conditions?.some((c) =>
        c.type === "Established" && c.status === "True"
      );
      return established ? true : undefined;
    },
    () => new InstallError(`Cannot install the CRD "${name}": it was not established within 30s`),
    {},
    { timeoutMs: 30_000, pollMs: 200 },
  );
}

/** Lists, retrying while the API server's storage for a new CRD is still starting (503). */
async function listWhenReady(
  client: KubeClient,
  type: ResourceType,
  options: ListOptions = {},
): Promise<KubeObject[]> {
  for (let attempt = 0;; attempt++) {
    try {
      return await client.list(type, undefined, options);
    } catch (error) {
      const retry = error instanceof KubeApiError && (error.status >= 500 || error.status === 429);
      if (!retry || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Options of {@link prepareInstall}. */
export interface PrepareOptions {
  /** The current time. */
  readonly now: Date;
  /** Make a new certificate even if the installed one is good. */
  readonly renewTls?: boolean;
  /**
   * Make (or keep) the client CA even when the webhook does not require client certificates yet
   * (`options.clientAuth` always does): the control plane can be given its certificate first.
   */
  readonly clientCa?: boolean;
}

/** The objects to apply and, when one was made, why the certificate is new. */
export interface PreparedInstall {
  /** Every object, in order. */
  readonly objects: KubeObject[];
  /** Why a certificate was made, or undefined when the installed one is kept. */
  readonly tlsRenewed: string | undefined;
  /** The serving certificate installed (undefined with cert-manager). */
  readonly tls?: WebhookTls;
  /** The client CA installed (with `clientAuth`). */
  readonly clientCa?: ClientCa;
  /** Why a client CA was made, or undefined when the installed (or given) one is kept. */
  readonly clientCaRenewed?: string | undefined;
}

/**
 * Builds the objects of an installation, keeping the installed certificate when it is good
 * (read through `client`; without a client a new one is made, as for `--dry-run`).
 */
export async function prepareInstall(
  client: KubeClient | undefined,
  options: InstallOptions,
  prepare: PrepareOptions,
): Promise<PreparedInstall> {
  const ensuredClientCa = options.clientAuth || prepare.clientCa
    ? await ensureClientCa(
      client
        ? await client.read(installedType("Secret"), options.namespace, CLIENT_CA_SECRET_NAME)
        : undefined,
      { now: prepare.now, given: options.clientCaPem },
    )
    : undefined;
  const clientCa = ensuredClientCa
    ? { clientCa: ensuredClientCa.ca, clientCaRenewed: ensuredClientCa.renewed }
    : {};
  // The PolicyReport CRDs are left to whoever installed them already (Kyverno, say).
  const extras = { policyReportCrds: client ? !(await policyReportCrdsForeign(client)) : true };
  if (options.tlsMode === "cert-manager") {
    return {
      objects: installManifests(options, undefined, ensuredClientCa?.ca, extras),
      tlsRenewed: undefined,
      ...clientCa,
    };
  }
  const existing = client
    ? await client.read(installedType("Secret"), options.namespace, TLS_SECRET_NAME)
    : undefined;
  const ensured = await ensureTls(existing, {
    dnsNames: [serviceDnsName(options), ...(webhookUrlHost(options) ?? [])],
    now: prepare.now,
    force: prepare.renewTls ?? false,
  });
  return {
    objects: installManifests(options, ensured, ensuredClientCa?.ca, extras),
    tlsRenewed: ensured.renewed,
    tls: ensured.tls,
    ...clientCa,
  };
}

function webhookUrlHost(options: InstallOptions): string[] | undefined {
  if (!options.webhookUrl) return undefined;
  try {
    return [new URL(options.webhookUrl).hostname.replace(/^\[|\]$/g, "")];
  } catch (error) {
    throw new InstallError(`Cannot use the webhook URL "${options.webhookUrl}": not a URL`, {
      cause: error,
    });
  }
}

/** The state of an installation. */
export interface InstallStatus {
  /** The controller's namespace. */
  readonly namespace: string;
  /** Whether anything of the installation is in this namespace (its namespaced objects). */
  readonly installed: boolean;
  /** Whether the webhook configuration exists and calls this namespace's webhook. */
  readonly enabled: boolean;
  /**
   * The namespace whose webhook the webhook configuration calls, when it calls another one's
   * (enforcement is on, from another installation).
   */
  readonly enabledFrom?: string;
  /** The installed objects and whether each exists. */
  readonly objects: readonly (ObjectRef & { object: string; present: boolean })[];
  /** The Deployment's replicas: wanted and ready. */
  readonly replicas?: { desired: number; ready: number };
  /** The image the Deployment runs. */
  readonly image?: string;
  /**
   * Whether the installed webhook requires a client certificate of the client CA (its
   * Deployment runs it with `--client-ca`: `enable --client-auth` or `--client-ca`); absent
   * without a Deployment.
   */
  readonly clientAuth?: boolean;
  /** Where the API server sends reviews: the Service or a URL. */
  readonly endpoint?: string;
  /** The serving certificate's expiry. */
  readonly certificate?: { notAfter: string; daysLeft: number; names: readonly string[] };
  /** Policy names by namespace (`""` for ClusterImagePolicies). */
  readonly policies: Record<string, string[]>;
}

/** Whether the webhook's Deployment runs it with `--client-ca` (client authentication on). */
function requiresClientCertificates(deployment: object | undefined): boolean {
  const spec = (deployment as { spec?: unknown } | undefined)?.spec as
    | { template?: { spec?: { containers?: { args?: unknown[] }[] } } }
    | undefined;
  return (spec?.template?.spec?.containers?.[0]?.args ?? []).some((arg) =>
    arg === "--client-ca" || (typeof arg === "string" && arg.startsWith("--client-ca="))
  );
}

/** Reads what is installed. */
export async function installationStatus(
  client: KubeClient,
  namespace: string,
  now: Date,
): Promise<InstallStatus> {
  const wanted: [string, string | undefined, string][] = [
    ["Namespace", undefined, namespace],
    ...POLICY_CRD_NAMES.map((name): [string, string | undefined, string] => [
      "CustomResourceDefinition",
      undefined,
      name,
    ]),
    ["ServiceAccount", namespace, WEBHOOK_NAME],
    ["ClusterRole", undefined, WEBHOOK_NAME],
    ["ClusterRoleBinding", undefined, WEBHOOK_NAME],
    ["Role", namespace, WEBHOOK_NAME],
    ["RoleBinding", namespace, WEBHOOK_NAME],
    ["Secret", namespace, TLS_SECRET_NAME],
    ["Secret", namespace, RELEASE_KEY_SECRET_NAME],
    ["ConfigMap", namespace, REGISTRIES_D_CONFIG_MAP_NAME],
    ["Deployment", namespace, WEBHOOK_NAME],
    ["PodDisruptionBudget", namespace, WEBHOOK_NAME],
    ["Service", namespace, WEBHOOK_NAME],
    ["MutatingWebhookConfiguration", undefined, WEBHOOK_CONFIGURATION_NAME],
  ];
  const objects: (ObjectRef & { object: string; present: boolean })[] = [];
  const found: Record<string, KubeObject | undefined> = {};
  for (const [kind, ns, name] of wanted) {
    const type = installedType(kind);
    const object = await client.read(type, ns, name);
    found[`${kind}/${name}`] = object;
    objects.push({
      object: describeObject(type, ns, name),
      type,
      ...(ns ? { namespace: ns } : {}),
      name,
      present: object !== undefined,
    });
  }
  const installed = objects.some((o) => o.namespace === namespace && o.present);
  const deployment = found[`Deployment/${WEBHOOK_NAME}`] as
    | {
      spec?: { replicas?: number; template?: { spec?: { containers?: { image?: string }[] } } };
      status?: { readyReplicas?: number };
    }
    | undefined;
  const secret = found[`Secret/${TLS_SECRET_NAME}`];
  let certificate: InstallStatus["certificate"];
  const crt = (secret?.data as Record<string, string> | undefined)?.["tls.crt"];
  if (crt) {
    const info = readCertificate(decodeBase64Text(crt));
    certificate = {
      notAfter: info.notAfter.toISOString(),
      daysLeft: Math.floor((info.notAfter.getTime() - now.getTime()) / 86_400_000),
      names: info.names,
    };
  }
  const mwc = found[`MutatingWebhookConfiguration/${WEBHOOK_CONFIGURATION_NAME}`] as
    | {
      webhooks?: {
        clientConfig?: {
          url?: string;
          service?: { namespace: string; name: string; path?: string };
        };
        namespaceSelector?: {
          matchExpressions?: { key?: string; operator?: string; values?: string[] }[];
        };
      }[];
    }
    | undefined;
  // Whose webhook it calls: the Service's namespace, or (a URL) the controller's namespace, the
  // first one the configuration exempts by name.
  const owner = mwc?.webhooks?.[0]?.clientConfig?.service?.namespace ??
    mwc?.webhooks?.[0]?.namespaceSelector?.matchExpressions?.find((e) =>
      e.key === "kubernetes.io/metadata.name" && e.operator === "NotIn"
    )?.values?.[0];
  const clientConfig = mwc?.webhooks?.[0]?.clientConfig;
  const endpoint = clientConfig?.url ??
    (clientConfig?.service
      ? `service ${clientConfig.service.namespace}/${clientConfig.service.name}${
        clientConfig.service.path ?? ""
      }`
      : undefined);
  const policies: Record<string, string[]> = {};
  for (const kind of ["ClusterImagePolicy", "ImagePolicy"]) {
    try {
      const items = await listWhenReady(client, installedType(kind));
      for (const item of items) {
        (policies[item.metadata.namespace ?? ""] ??= []).push(item.metadata.name);
      }
    } catch (error) {
      if (!isStatus(error, 404)) throw error;
    }
  }
  return {
    namespace,
    installed,
    enabled: mwc !== undefined && (owner === undefined || owner === namespace),
    ...(mwc !== undefined && owner !== undefined && owner !== namespace
      ? { enabledFrom: owner }
      : {}),
    objects,
    ...(deployment
      ? {
        replicas: {
          desired: deployment.spec?.replicas ?? 0,
          ready: deployment.status?.readyReplicas ?? 0,
        },
        ...(deployment.spec?.template?.spec?.containers?.[0]?.image
          ? { image: deployment.spec.template.spec.containers[0].image }
          : {}),
        clientAuth: requiresClientCertificates(deployment),
      }
      : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(certificate ? { certificate } : {}),
    policies,
  };
}

/** Options of {@link uninstall}. */
export interface UninstallOptions {
  /**
   * Also delete the default policies, the CRDs (and with them every policy), the namespace and
   * toolkit's PolicyReports; the PolicyReport CRDs too when toolkit alone installed them and no
   * other reports are left in them.
   */
  readonly purge?: boolean;
  /** Told why the PolicyReport CRDs stay, when they exist and do. */
  readonly onKept?: (message: string) => void;
}

async function deleteOne(
  client: KubeClient,
  kind: string,
  namespace: string | undefined,
  name: string,
): Promise<AppliedObject> {
  const type = installedType(kind);
  const deleted = await client.delete(type, namespace, name);
  return appliedObject({ type, namespace, name }, deleted ? "deleted" : "absent");
}

/**
 * Removes an installation, the webhook configuration first (so nothing is sent to a webhook
 * that is going away). Policies, key Secrets, the namespace, the CRDs and toolkit's PolicyReports
 * stay unless `purge` (the PolicyReport CRDs only go when toolkit alone installed them and no
 * other report is in them), and
 * so does the client CA (`client_auth.ts`): the control plane's AdmissionConfiguration holds a
 * certificate from it, which a later `enable` keeps valid.
 * An object the API server refuses to delete is reported `failed` and the rest still go, except
 * the webhook configuration: when it cannot be deleted, nothing else is (removing the webhook
 * behind a configuration that stays would make the API server refuse every Pod).
 */
export async function uninstall(
  client: KubeClient,
  namespace: string,
  options: UninstallOptions = {},
): Promise<AppliedObject[]> {
  const steps: [string, string | undefined, string][] = [
    ["MutatingWebhookConfiguration", undefined, WEBHOOK_CONFIGURATION_NAME],
    ["Service", namespace, WEBHOOK_NAME],
    ["PodDisruptionBudget", namespace, WEBHOOK_NAME],
    ["Deployment", namespace, WEBHOOK_NAME],
    ["ConfigMap", namespace, REGISTRIES_D_CONFIG_MAP_NAME],
    ["Secret", namespace, TLS_SECRET_NAME],
    ["ClusterRoleBinding", undefined, WEBHOOK_NAME],
    ["ClusterRole", undefined, WEBHOOK_NAME],
    ["RoleBinding", namespace, WEBHOOK_NAME],
    ["Role", namespace, WEBHOOK_NAME],
    ["ServiceAccount", namespace, WEBHOOK_NAME],
  ];
  const [first, ...rest] = steps;
  const results: AppliedObject[] = [await deleteOne(client, ...first!)];
  const remove = async (kind: string, ns: string | undefined, name: string) => {
    const type = installedType(kind);
    results.push(
      await keepGoing({ type, namespace: ns, name }, () => deleteOne(client, kind, ns, name)),
    );
  };
  for (const [kind, ns, name] of rest) await remove(kind, ns, name);
  for (const kind of ["Issuer", "Certificate"]) {
    try {
      results.push(await deleteOne(client, kind, namespace, WEBHOOK_NAME));
    } catch (error) {
      if (isStatus(error, 404)) continue; // cert-manager is not installed
      if (error instanceof NoClusterContextError) throw error;
      results.push(
        appliedObject(
          { type: installedType(kind), namespace, name: WEBHOOK_NAME },
          "failed",
          error,
        ),
      );
    }
  }
  if (options.purge) {
    for (const name of Object.values(DEFAULT_POLICY_NAMES)) {
      await remove("ClusterImagePolicy", undefined, name);
    }
    await remove("Secret", namespace, RELEASE_KEY_SECRET_NAME);
    for (const name of POLICY_CRD_NAMES) await remove("CustomResourceDefinition", undefined, name);
    await remove("Namespace", undefined, namespace);
    results.push(...await purgePolicyReports(client, options.onKept));
  }
  return results;
}

/** Lists a PolicyReport kind (a CRD just made may still be starting); `[]` when it is not there. */
async function listReports(
  client: KubeClient,
  type: ResourceType,
  labelSelector?: string,
): Promise<KubeObject[]> {
  try {
    return await listWhenReady(client, type, labelSelector ? { labelSelector } : {});
  } catch (error) {
    if (isStatus(error, 404)) return [];
    throw error;
  }
}

/** Whether a PolicyReport is one the report controller writes: its name and toolkit's labels. */
function isToolkits(report: KubeObject): boolean {
  const labels = report.metadata.labels ?? {};
  return report.metadata.name === POLICY_REPORT_NAME &&
    Object.entries(REPORT_LABELS).every(([k, v]) => labels[k] === v);
}

/** Whether toolkit's apply is the only writer of a CRD (the API server's status aside). */
function toolkitsAlone(crd: KubeObject): boolean {
  const writers = fieldManagers(crd).filter((m) => m.subresource !== "status");
  return writers.length > 0 && writers.every((m) => m.manager === FIELD_MANAGER);
}

/**
 * Deletes the PolicyReports the report controller wrote (named `toolkit-image-policy`, with
 * toolkit's labels, in every namespace), then the PolicyReport CRDs when `enable` installed them
 * (toolkit is their only writer, `isForeignCrd` in `lib/reports`) and no other report is left in
 * them: Kyverno's, a policy-reporter's or another tool's reports and CRDs stay.
 */
async function purgePolicyReports(
  client: KubeClient,
  onKept: ((message: string) => void) | undefined,
): Promise<AppliedObject[]> {
  const results: AppliedObject[] = [];
  const selector = Object.entries(REPORT_LABELS).map(([k, v]) => `${k}=${v}`).join(",");
  let ours: KubeObject[];
  try {
    ours = (await listReports(client, POLICY_REPORTS, selector)).filter(isToolkits);
  } catch (error) {
    if (error instanceof NoClusterContextError) throw error;
    return [appliedObject({ type: POLICY_REPORTS, name: POLICY_REPORT_NAME }, "failed", error)];
  }
  for (const report of ours) {
    const ref = {
      type: POLICY_REPORTS,
      namespace: report.metadata.namespace,
      name: report.metadata.name,
    };
    results.push(
      await keepGoing(ref, async () =>
        appliedObject(
          ref,
          await client.delete(POLICY_REPORTS, ref.namespace, ref.name) ? "deleted" : "absent",
        )),
    );
  }
  try {
    results.push(...await purgePolicyReportCrds(client, onKept));
  } catch (error) {
    if (error instanceof NoClusterContextError) throw error;
    results.push(
      appliedObject(
        { type: CUSTOM_RESOURCE_DEFINITIONS, name: POLICY_REPORT_CRD_NAMES[1]! },
        "failed",
        error,
      ),
    );
  }
  return results;
}

/** The PolicyReport CRDs' deletion, when toolkit alone installed them and nothing else is in them. */
async function purgePolicyReportCrds(
  client: KubeClient,
  onKept: ((message: string) => void) | undefined,
): Promise<AppliedObject[]> {
  const results: AppliedObject[] = [];
  const crds = (await Promise.all(
    POLICY_REPORT_CRD_NAMES.map((name) =>
      client.read(CUSTOM_RESOURCE_DEFINITIONS, undefined, name)
    ),
  )).filter((crd): crd is KubeObject => crd !== undefined);
  if (crds.length === 0) return results;
  if (!crds.every(toolkitsAlone)) {
    onKept?.(
      "The PolicyReport CRDs (wgpolicyk8s.io) are kept: toolkit did not install them alone",
    );
    return results;
  }
  const others = [
    ...(await listReports(client, POLICY_REPORTS)),
    ...(await listReports(client, CLUSTER_POLICY_REPORTS)),
  ].filter((r) => !(r.kind === POLICY_REPORTS.kind && isToolkits(r)));
  if (others.length > 0) {
    const first = others[0]!;
    const type = first.kind === CLUSTER_POLICY_REPORTS.kind
      ? CLUSTER_POLICY_REPORTS
      : POLICY_REPORTS;
    const named = describeObject(type, first.metadata.namespace, first.metadata.name);
    onKept?.(
      `The PolicyReport CRDs (wgpolicyk8s.io) are kept: they hold ${others.length} report${
        others.length === 1 ? "" : "s"
      } toolkit did not write (${named}${others.length > 1 ? ", …" : ""})`,
    );
    return results;
  }
  for (const crd of crds) {
    const ref = { type: CUSTOM_RESOURCE_DEFINITIONS, name: crd.metadata.name };
    results.push(
      await keepGoing(
        ref,
        () => deleteOne(client, "CustomResourceDefinition", undefined, ref.name),
      ),
    );
  }
  return results;
}

/** The result of {@link rotateCertificates}. */
export interface RotateResult {
  /** The new certificate's expiry. */
  readonly notAfter: Date;
  /** The new certificate. */
  readonly tls: WebhookTls;
  /** The Secret and webhook configuration updates. */
  readonly objects: AppliedObject[];
  /** Whether the installed webhook requires client certificates (its Deployment's `--client-ca`). */
  readonly clientAuth: boolean;
  /**
   * With {@linkcode clientAuth}, the client CA's certificate (PEM) from its Secret, for a webhook
   * run outside the cluster; undefined when the Secret holds none.
   */
  readonly clientCaPem?: string;
}

/**
 * Makes a new CA and serving certificate, stores them in the TLS Secret and puts the new CA
 * (with the previous one while valid) into the webhook configuration's `caBundle`.
 */
export async function rotateCertificates(
  client: KubeClient,
  namespace: string,
  now: Date,
): Promise<RotateResult> {
  const secretType = installedType("Secret");
  const existing = await client.read(secretType, namespace, TLS_SECRET_NAME);
  const mwcType = installedType("MutatingWebhookConfiguration");
  const mwc = await client.read(mwcType, undefined, WEBHOOK_CONFIGURATION_NAME) as
    | { webhooks?: { clientConfig?: { url?: string } }[] } & KubeObject
    | undefined;
  if (!mwc) {
    throw new InstallError(
      `Cannot rotate the certificates of "${namespace}": image signature enforcement is not enabled (no MutatingWebhookConfiguration "${WEBHOOK_CONFIGURATION_NAME}")`,
    );
  }
  if (mwc.metadata.annotations?.["cert-manager.io/inject-ca-from"]) {
    throw new InstallError(
      `Cannot rotate the certificates of "${namespace}": cert-manager manages them (delete the Secret "${TLS_SECRET_NAME}" to have cert-manager issue a new one)`,
    );
  }
  const url = mwc.webhooks?.[0]?.clientConfig?.url;
  const dnsNames = [`${WEBHOOK_NAME}.${namespace}.svc`];
  if (url) dnsNames.push(new URL(url).hostname.replace(/^\[|\]$/g, ""));
  const ensured = await ensureTls(existing, { dnsNames, now, force: true });
  const objects = [await applyOne(client, tlsSecretManifest(namespace, ensured.tls))];
  const previous = (existing?.data as Record<string, string> | undefined)?.["ca.crt"];
  const bundle = caBundle(ensured.tls, previous ? decodeBase64Text(previous) : undefined, now);
  await updateObject(client, mwcType, undefined, WEBHOOK_CONFIGURATION_NAME, (live) => {
    const webhooks = (live?.webhooks ?? []) as Array<{ clientConfig?: Record<string, unknown> }>;
    return live && {
      ...live,
      webhooks: webhooks.map((w) => ({
        ...w,
        clientConfig: { ...w.clientConfig, caBundle: bundle },
      })),
    };
  });
  objects.push(
    appliedObject(
      { type: mwcType, namespace: undefined, name: WEBHOOK_CONFIGURATION_NAME },
      "configured",
    ),
  );
  const clientAuth = requiresClientCertificates(
    await client.read(installedType("Deployment"), namespace, WEBHOOK_NAME),
  );
  const clientCa = clientAuth
    ? clientCaFromSecret(await client.read(secretType, namespace, CLIENT_CA_SECRET_NAME))
    : undefined;
  return {
    notAfter: ensured.tls.notAfter,
    tls: ensured.tls,
    objects,
    clientAuth,
    ...(clientCa ? { clientCaPem: clientCa.caCertPem } : {}),
  };
}

/** Whether an object was put there by toolkit. */
export function isManaged(object: KubeObject): boolean {
  return object.metadata.labels?.[MANAGED_BY_LABEL] === "toolkit";
}
