/**
 * What `image-security audit` and `rollout` share: the flags that say what to judge by (the
 * cluster's policies, read as the webhook reads them, or policy files before they are applied),
 * the webhook's evaluator built on them, one audit run with progress on stderr, and the table.
 *
 * With `--policy FILE…` the policies (and the key Secrets and Namespaces of the files) come from
 * the files; everything else (pull Secrets, ServiceAccounts, key Secrets the files do not hold,
 * exempt and labelled Namespaces) still comes from the cluster, as the webhook would read it once
 * the files are applied.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { clientTimeoutMs, observedContextFetch } from "../network.ts";
import { resolvePath } from "./files.ts";
import { readPolicyFiles, readRegistriesD } from "./local_config.ts";
import { certDirCertificates } from "./registry_access.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import {
  clusterImagePolicies,
  CONFIG_MAPS,
  type KubeClient,
  NAMESPACES,
  type ResourceType,
  SECRETS,
  SERVICE_ACCOUNTS,
} from "../../lib/kube/mod.ts";
import { API_GROUP, PolicySet, PORTIERIS_API_GROUP } from "../../lib/policy/mod.ts";
import {
  type AdmissionEvaluator,
  type ConfigMapData,
  createAdmissionEvaluator,
  createImageVerifier,
  createKubePolicySource,
  enforcementLabelMode,
  type EnforcementMode,
  type ExemptLabel,
  filePolicySource,
  type KubePolicySource,
  type NoMatchAction,
  parseExemptLabel,
  type PolicySource,
  PolicySourceError,
  type SecretData,
  type ServiceAccountData,
} from "../../lib/admission/mod.ts";
import { type AuditedImage, auditVerifier, auditWorkloads } from "../../lib/audit/mod.ts";

/**
 * The flags both commands declare. `--mode` is audit's alone: rollout audits one namespace, whose
 * mode it assumes.
 */
export const AUDIT_FLAGS = {
  policy: {
    type: "array",
    describe:
      "Judge by the policies (and key Secrets) of these files instead of the cluster's, before they are applied",
  },
  "controller-namespace": {
    type: "string",
    default: "toolkit-system",
    describe:
      "The webhook's namespace: always exempt, and where ClusterImagePolicy key Secrets are",
  },
  "no-match": {
    type: "string",
    choices: ["deny", "allow", "warn"],
    default: "deny",
    describe: "The webhook's --no-match: what happens to images no policy matches",
  },
  "policy-group": {
    type: "string",
    choices: [API_GROUP, PORTIERIS_API_GROUP],
    default: API_GROUP,
    describe: "The API group of the cluster's policies (the webhook's --policy-group)",
  },
  "exempt-namespace-label": {
    type: "string",
    default: "toolkit.dev/image-security=exempt",
    describe: 'Namespaces with this label are not checked ("" for none)',
  },
  "insecure-registry": {
    type: "array",
    describe: "Reach this registry over plain HTTP (repeatable)",
  },
  "registries.d": {
    type: "string",
    default: "/etc/containers/registries.d",
    describe: "Directory of registries.d files that configure lookaside signature stores",
  },
  "cert-dir": { type: "string", describe: "Directory of CA certificates (*.crt) for registries" },
  "max-verifications": {
    type: "number",
    default: 8,
    describe: "The most image verifications (registry work) in flight at once",
  },
} as const;

/** The options of {@linkcode AUDIT_FLAGS}, and the network ones. */
export interface AuditRunOptions {
  readonly policy: readonly string[];
  readonly controllerNamespace: string;
  /** `audit --mode`; `rollout` has none (the one namespace it audits has its mode assumed). */
  readonly mode?: string;
  readonly noMatch: string;
  readonly policyGroup: string;
  readonly exemptNamespaceLabel: string;
  readonly insecureRegistry: readonly string[];
  readonly "registries.d": string;
  readonly certDir: string | undefined;
  readonly maxVerifications: number;
  readonly requestTimeout?: number;
  readonly verbose?: boolean;
  readonly quiet?: boolean;
}

/** The time one workload's review may take, waiting for verification slots included. */
const AUDIT_BUDGET_MS = 120_000;

/** Policies from files, everything else from the cluster. */
function filesOverCluster(files: PolicySource, cluster: PolicySource): PolicySource {
  return {
    ready: () => cluster.ready(),
    policies: () => files.policies(),
    exemptNamespaces: () => cluster.exemptNamespaces(),
    namespaceMode: (namespace) => cluster.namespaceMode?.(namespace),
    generation: () => (files.generation?.() ?? 0) + (cluster.generation?.() ?? 0),
    async secret(namespace, name, options) {
      return await files.secret(namespace, name, options) ??
        await cluster.secret(namespace, name, options);
    },
    async configMap(namespace, name) {
      return await files.configMap(namespace, name) ?? await cluster.configMap(namespace, name);
    },
    serviceAccount: (namespace, name) => cluster.serviceAccount(namespace, name),
  };
}

/** A running judge: the evaluator and the source it reads; stop it when done. */
export interface AuditJudge extends AsyncDisposable {
  readonly evaluator: AdmissionEvaluator;
}

/** Builds the webhook's evaluator on the cluster's policies, or on `--policy` files. */
export async function startJudge(
  options: AuditRunOptions,
  ctx: CommandContext,
  kube: KubeClient,
  /** Namespaces whose mode is taken as this one (what `rollout --enforce` would make them). */
  assume?: { readonly namespace: string; readonly mode: EnforcementMode },
): Promise<AuditJudge> {
  let exemptLabel: ExemptLabel | undefined;
  try {
    exemptLabel = parseExemptLabel(options.exemptNamespaceLabel);
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const registriesD = await readRegistriesD(ctx.io.cwd, options["registries.d"]);
  const files = options.policy.filter((f) => f !== "").map((f) => resolvePath(ctx.io.cwd, f));
  const fromFiles: PolicySource | undefined = files.length > 0
    ? filePolicySource(await readPolicyFiles(files), { exemptLabel })
    : undefined;
  let cluster: KubePolicySource | undefined;
  let source: PolicySource;
  if (fromFiles) {
    source = filesOverCluster(fromFiles, await clusterSnapshot(kube, exemptLabel));
  } else {
    if (!await kube.serves(clusterImagePolicies(options.policyGroup))) {
      throw new ToolkitError(
        `The cluster serves no ClusterImagePolicies of ${options.policyGroup}: enable image security first, or judge by policy files with --policy FILE`,
      );
    }
    const failed = Promise.withResolvers<never>();
    cluster = createKubePolicySource({
      client: kube,
      group: options.policyGroup,
      controllerNamespace: options.controllerNamespace,
      exemptLabel,
      onEvent: (level, message) => {
        // Before the policies are read, a failure ends the command (the webhook would retry).
        if (level !== "info" && !cluster?.ready()) {
          failed.reject(new ToolkitError(`Cannot read the cluster's policies: ${message}`));
        } else if (level !== "info" && !options.quiet) ctx.io.stderr.write(`${message}\n`);
      },
    });
    cluster.start();
    try {
      await Promise.race([cluster.whenSynced, failed.promise]);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    source = cluster;
  }
  try {
    if (assume) {
      const inner = source;
      source = {
        ...bind(inner),
        namespaceMode: (namespace) =>
          namespace === assume.namespace ? assume.mode : inner.namespaceMode?.(namespace),
      };
    }
    const verifier = auditVerifier(createImageVerifier({
      source,
      clusterKeyNamespace: options.controllerNamespace,
      insecureRegistries: options.insecureRegistry.filter((s) => s !== ""),
      caCerts: await certDirCertificates(options, ctx.io.cwd),
      registriesD,
      flightTimeoutMs: AUDIT_BUDGET_MS,
      requestTimeoutMs: clientTimeoutMs(options),
      fetch: observedContextFetch(ctx, options),
      verdictCache: { ttlMs: 3_600_000, maxEntries: 10_000 },
      digestCache: { ttlMs: 3_600_000, maxEntries: 10_000 },
      now: ctx.clock.now,
    }));
    const evaluator = createAdmissionEvaluator({
      source,
      verifier,
      settings: {
        mode: options.mode === "warn" ? "warn" : "enforce",
        noMatch: options.noMatch as NoMatchAction,
        controllerNamespace: options.controllerNamespace,
        budgetMs: AUDIT_BUDGET_MS,
        maxVerificationsInFlight: Math.max(1, options.maxVerifications),
      },
    });
    return { evaluator, [Symbol.asyncDispose]: async () => await cluster?.stop() };
  } catch (error) {
    await cluster?.stop();
    throw error;
  }
}

/**
 * The cluster's part when the policies come from files: its Namespaces' labels as they are now
 * (exemptions, modes), and the Secrets, ConfigMaps and ServiceAccounts the verifier asks for,
 * each read once.
 */
async function clusterSnapshot(
  kube: KubeClient,
  exemptLabel: ExemptLabel | undefined,
): Promise<PolicySource> {
  const namespaces = await kube.list(NAMESPACES, undefined);
  const exempt = new Set<string>();
  const modes = new Map<string, "enforce" | "warn">();
  for (const n of namespaces) {
    const labels = n.metadata.labels ?? {};
    if (exemptLabel && labels[exemptLabel.key] === exemptLabel.value) exempt.add(n.metadata.name);
    const mode = enforcementLabelMode(labels);
    if (mode) modes.set(n.metadata.name, mode);
  }
  const reads = new Map<string, Promise<unknown>>();
  const read = <T>(type: ResourceType, namespace: string, name: string): Promise<T | undefined> => {
    const key = `${type.plural}/${namespace}/${name}`;
    let found = reads.get(key);
    if (found === undefined) {
      found = kube.read(type, namespace, name).catch((error) => {
        reads.delete(key);
        throw new PolicySourceError(
          `Cannot read ${type.kind} "${namespace}/${name}": ${(error as Error).message}`,
          { cause: error },
        );
      });
      reads.set(key, found);
    }
    return found as Promise<T | undefined>;
  };
  const policies = new PolicySet([]);
  return {
    ready: () => true,
    policies: () => policies,
    exemptNamespaces: () => exempt,
    namespaceMode: (namespace) => modes.get(namespace),
    secret: (namespace, name) => read<SecretData>(SECRETS, namespace, name),
    configMap: (namespace, name) => read<ConfigMapData>(CONFIG_MAPS, namespace, name),
    serviceAccount: (namespace, name) =>
      read<ServiceAccountData>(SERVICE_ACCOUNTS, namespace, name),
  };
}

/** The methods of a source, bound, so that one may be replaced. */
function bind(source: PolicySource): PolicySource {
  return {
    ready: () => source.ready(),
    policies: () => source.policies(),
    exemptNamespaces: () => source.exemptNamespaces(),
    ...(source.namespaceMode ? { namespaceMode: (n: string) => source.namespaceMode!(n) } : {}),
    ...(source.generation ? { generation: () => source.generation!() } : {}),
    ...(source.policyProblem ? { policyProblem: (n: string) => source.policyProblem!(n) } : {}),
    secret: (namespace, name, options) => source.secret(namespace, name, options),
    configMap: (namespace, name) => source.configMap(namespace, name),
    serviceAccount: (namespace, name) => source.serviceAccount(namespace, name),
  };
}

/** Runs the audit, telling progress on stderr when it takes a while (not with `--quiet`). */
export async function runAudit(
  judge: AuditJudge,
  kube: KubeClient,
  namespaces: readonly string[] | undefined,
  ctx: CommandContext,
  options: Pick<AuditRunOptions, "quiet">,
): Promise<readonly AuditedImage[]> {
  let last = ctx.clock.now();
  let told = false;
  const result = await auditWorkloads({ kube, evaluator: judge.evaluator }, {
    ...(namespaces ? { namespaces } : {}),
    onProgress: (done, total) => {
      if (options.quiet) return;
      const now = ctx.clock.now();
      // A short audit says nothing; a long one tells where it is about once a second.
      if (done < total && now - last < 1000) return;
      if (done === total && !told) return;
      last = now;
      told = true;
      ctx.io.stderr.write(`audited ${done} of ${total} workloads\n`);
    },
  });
  return result;
}

/** The table of `audit`: namespace, workload, container, image, verdict, reason. */
export function auditTable(images: readonly AuditedImage[]): string {
  const rows = [
    ["NAMESPACE", "WORKLOAD", "CONTAINER", "IMAGE", "VERDICT", "REASON"],
    ...images.map((i) => [
      i.namespace,
      `${i.workload.kind}/${i.workload.name}`,
      i.container,
      i.image,
      i.verdict,
      i.verdict === "pass" ? "" : i.message.replace(/^policy denied the request: /, ""),
    ]),
  ];
  const widths = rows[0]!.map((_, c) => c === 5 ? 0 : Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r.map((cell, c) => (c === 5 ? cell : cell.padEnd(widths[c]!))).join("  ").trimEnd()
  ).join("\n") + "\n";
}
