/**
 * The {@linkcode PolicySource} of a cluster: watches (list+watch, no API call per review) of
 * ClusterImagePolicies and ImagePolicies of the configured group, of the namespaces that carry
 * the exemption label, and of each Secret a policy names as a key Secret and each ConfigMap or
 * Secret it names as a sigstore trust root (one field-selected watch per object, reconciled when
 * the policies change). Pull Secrets, store Secrets and ServiceAccounts are per workload
 * namespace: they are read when needed and kept for a short time.
 *
 * A policy that does not validate is not dropped (which could let its namespace fall back to
 * the cluster policies): its scope is denied with the validation error until it is fixed.
 *
 * @module
 */
import { type ImagePolicy, InvalidPolicyError, PolicySet, validatePolicy } from "../policy/mod.ts";
import {
  clusterImagePolicies,
  CONFIG_MAPS,
  imagePolicies,
  type KubeClient,
  NAMESPACES,
  Reflector,
  SECRETS,
  SERVICE_ACCOUNTS,
} from "../kube/mod.ts";
import {
  configMapDataBytes,
  MAX_OBJECT_BYTES,
  MAX_SERVICE_ACCOUNT_BYTES,
  OnDemandReads,
  SECRET_CACHE_BYTES,
  stripConfigMap,
  stripSecret,
  stripServiceAccount,
} from "./object_reads.ts";
import {
  type ConfigMapData,
  type ExemptLabel,
  type PolicySource,
  type SecretData,
  secretDataBytes,
  type ServiceAccountData,
} from "./source.ts";

/** How the cluster source watches. */
export interface KubeSourceOptions {
  /** The client of the API server (`lib/kube`). */
  readonly client: KubeClient;
  /** The API group of the policies (`toolkit.dev` or `portieris.cloud.ibm.com`). */
  readonly group: string;
  /** The controller's namespace: where ClusterImagePolicy key Secrets are by default. */
  readonly controllerNamespace: string;
  /** The namespace label that exempts a namespace, if any. */
  readonly exemptLabel?: ExemptLabel | undefined;
  /** How long pull Secrets and ServiceAccounts read on demand are kept. @default 10000 */
  readonly objectTtlMs?: number;
  /** Receives remarks: watch failures, invalid policies. */
  readonly onEvent?: (level: "info" | "warn" | "error", message: string) => void;
  /** Called when the policies or key Secrets change. */
  readonly onChange?: () => void;
  /** How long the server keeps a watch open, in seconds. @default 300 */
  readonly watchTimeoutSeconds?: number;
}

/** A cluster source; {@linkcode start} it, {@linkcode stop} it. */
export interface KubePolicySource extends PolicySource {
  /** Starts the watches. */
  start(): void;
  /** Resolves once the policy and namespace watches have listed (key Secrets follow). */
  readonly whenSynced: Promise<void>;
  /** Stops every watch. */
  stop(): Promise<void>;
}

/** The most key Secrets watched. */
export const MAX_KEY_SECRET_WATCHES = 256;

/** The most key Secrets watched for one namespace's ImagePolicies. */
export const MAX_KEY_SECRET_WATCHES_PER_NAMESPACE = 16;

/** The most distinct policy problems remembered as logged (each is logged once). */
const MAX_REPORTED_PROBLEMS = 1024;

/** Creates the source (not started). */
export function createKubePolicySource(options: KubeSourceOptions): KubePolicySource {
  const { client, group } = options;
  const emit = options.onEvent ?? (() => {});
  const watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
  const objectTtlMs = options.objectTtlMs ?? 10_000;
  let policySet = new PolicySet([]);
  let problems = new Map<string, string>(); // "" for the cluster scope, else a namespace
  let exempt: ReadonlySet<string> = new Set();
  const keyWatches = new Map<string, Reflector>();
  // Keyed by names from requests: bounded by count and by the bytes of what each one holds (its
  // data, not its name); reads in flight come from one pool of bytes (see OnDemandReads).
  const reads = new OnDemandReads(client, objectTtlMs);
  const secrets = reads.kind<SecretData>({
    name: "secret",
    type: SECRETS,
    maxEntries: 4096,
    maxBytes: SECRET_CACHE_BYTES,
    strip: stripSecret,
    sizeOf: (secret) => secretDataBytes(secret),
  });
  const configMaps = reads.kind<ConfigMapData>({
    name: "config-map",
    type: CONFIG_MAPS,
    maxEntries: 256,
    maxBytes: SECRET_CACHE_BYTES,
    strip: stripConfigMap,
    sizeOf: configMapDataBytes,
  });
  const accounts = reads.kind<ServiceAccountData>({
    name: "service-account",
    type: SERVICE_ACCOUNTS,
    maxEntries: 4096,
    maxBytes: 1024 * 1024,
    strip: stripServiceAccount,
    sizeOf: (account) =>
      (account.imagePullSecrets ?? []).reduce((n, r) => n + (r.name?.length ?? 0) + 16, 0),
  });
  const reported = new Set<string>();
  /** Changes whenever anything this source answers may have (see PolicySource.generation). */
  let generation = 0;
  const changed = () => {
    generation++;
    options.onChange?.();
  };

  const common = { watchTimeoutSeconds, onError: (m: string) => emit("warn", m) };
  const clusterPolicies = new Reflector(client, {
    ...common,
    name: `ClusterImagePolicies (${group})`,
    type: clusterImagePolicies(group),
    onChange: () => scheduleRebuild(),
  });
  const namespacedPolicies = new Reflector(client, {
    ...common,
    name: `ImagePolicies (${group})`,
    type: imagePolicies(group),
    onChange: () => scheduleRebuild(),
  });
  const namespaces = options.exemptLabel
    ? new Reflector(client, {
      ...common,
      name: "exempt Namespaces",
      type: NAMESPACES,
      labelSelector: `${options.exemptLabel.key}=${options.exemptLabel.value}`,
      onChange: () => {
        exempt = new Set(namespaces!.items().map((n) => n.metadata?.name ?? ""));
        generation++;
      },
    })
    : undefined;

  /**
   * Each object validated once per version: a change to one policy validates that policy only,
   * and the policy set compiles only the group it belongs to (see PolicySet's `previous`).
   */
  let validated = new Map<string, { version: string; result: ImagePolicy | string }>();

  let rebuildQueued = false;
  /** Rebuilds once for all the changes of one turn (a watch delivers many events at once). */
  function scheduleRebuild(): void {
    if (rebuildQueued) return;
    rebuildQueued = true;
    queueMicrotask(() => {
      rebuildQueued = false;
      rebuild();
    });
  }

  function rebuild(): void {
    const valid: ImagePolicy[] = [];
    const nextProblems = new Map<string, string>();
    const nextValidated = new Map<string, { version: string; result: ImagePolicy | string }>();
    for (const item of [...clusterPolicies.items(), ...namespacedPolicies.items()]) {
      const id = `${item.kind}/${item.metadata?.namespace ?? ""}/${item.metadata?.name ?? ""}`;
      const version = `${item.metadata?.uid ?? ""}/${item.metadata?.resourceVersion ?? ""}`;
      const known = validated.get(id);
      let result: ImagePolicy | string;
      if (known !== undefined && known.version === version && version !== "/") {
        result = known.result;
      } else {
        try {
          result = validatePolicy(item, [group]);
        } catch (error) {
          result = error instanceof InvalidPolicyError ? error.message : String(error);
        }
      }
      nextValidated.set(id, { version, result });
      if (typeof result !== "string") {
        valid.push(result);
        continue;
      }
      const namespace = item.kind === "ImagePolicy" ? item.metadata?.namespace ?? "default" : "";
      if (!nextProblems.has(namespace)) nextProblems.set(namespace, result);
      if (namespace !== "") {
        // Keep the namespace governed by its ImagePolicies: an empty one stands in for it.
        valid.push({
          kind: "ImagePolicy",
          name: item.metadata?.name ?? "",
          namespace,
          repositories: [],
        });
      }
      if (!reported.has(result)) {
        // Each problem is logged once; the memory of what was logged is bounded.
        if (reported.size >= MAX_REPORTED_PROBLEMS) reported.clear();
        reported.add(result);
        emit("error", result);
      }
    }
    validated = nextValidated;
    policySet = new PolicySet(valid, policySet);
    problems = nextProblems;
    reconcileKeyWatches(valid);
    changed();
  }

  /**
   * `Secret/<namespace>/<name>` or `ConfigMap/<namespace>/<name>` of each object the policies
   * name (key Secrets; sigstore trust roots), to watch so that a rotated key or trust root takes
   * effect at once: the cluster policies' first, then at most
   * {@linkcode MAX_KEY_SECRET_WATCHES_PER_NAMESPACE} for each namespace,
   * {@linkcode MAX_KEY_SECRET_WATCHES} in all. An object beyond that is read when a review needs
   * it, and kept for `objectTtlMs`.
   */
  function referencedObjects(policies: readonly ImagePolicy[]): Set<string> {
    const wanted = new Set<string>();
    const perNamespace = new Map<string, number>();
    const want = (policy: ImagePolicy, id: string, namespace: string) => {
      if (wanted.has(id) || wanted.size >= MAX_KEY_SECRET_WATCHES) return;
      // One namespace's policies cannot take every watch (the rest are read when needed).
      const inNamespace = (perNamespace.get(namespace) ?? 0) + 1;
      if (policy.kind === "ImagePolicy" && inNamespace > MAX_KEY_SECRET_WATCHES_PER_NAMESPACE) {
        return;
      }
      perNamespace.set(namespace, inNamespace);
      wanted.add(id);
    };
    for (const policy of policies) {
      const defaultNamespace = policy.kind === "ImagePolicy"
        ? policy.namespace ?? "default"
        : options.controllerNamespace;
      for (const repository of policy.repositories) {
        for (const requirement of repository.policy.simple?.requirements ?? []) {
          if (requirement.type !== "signedBy" && requirement.type !== "sigstoreSigned") continue;
          if (requirement.keySecret) {
            const namespace = requirement.keySecretNamespace ?? defaultNamespace;
            want(policy, `Secret/${namespace}/${requirement.keySecret}`, namespace);
          }
          for (const ref of [requirement.trustRootRef, requirement.keyless?.trustRootRef]) {
            if (!ref) continue;
            const namespace = ref.namespace ?? defaultNamespace;
            want(policy, `${ref.kind}/${namespace}/${ref.name}`, namespace);
          }
        }
      }
    }
    return wanted;
  }

  function reconcileKeyWatches(policies: readonly ImagePolicy[]): void {
    const wanted = referencedObjects(policies);
    for (const [id, reflector] of keyWatches) {
      if (!wanted.has(id)) {
        keyWatches.delete(id);
        void reflector.stop();
      }
    }
    for (const id of wanted) {
      if (keyWatches.has(id)) continue;
      const [kind, namespace, name] = id.split("/") as [string, string, string];
      const reflector = new Reflector(client, {
        ...common,
        name: kind === "Secret"
          ? `key Secret "${namespace}/${name}"`
          : `ConfigMap "${namespace}/${name}"`,
        type: kind === "Secret" ? SECRETS : CONFIG_MAPS,
        namespace,
        fieldSelector: `metadata.name=${name}`,
        onChange: changed,
      });
      keyWatches.set(id, reflector);
      if (started) reflector.start();
    }
  }

  let started = false;
  const primary = [clusterPolicies, namespacedPolicies, ...(namespaces ? [namespaces] : [])];
  const whenSynced = Promise.all(primary.map((r) => r.whenSynced)).then(() => {});

  return {
    ready: () => primary.every((r) => r.synced),
    policies: () => policySet,
    exemptNamespaces: () => exempt,
    generation: () => generation,
    policyProblem(namespace) {
      return policySet.hasImagePolicies(namespace) ? problems.get(namespace) : problems.get("");
    },
    secret(namespace, name, options) {
      const watched = keyWatches.get(`Secret/${namespace}/${name}`);
      if (watched?.synced) {
        return Promise.resolve(watched.get(namespace, name) as SecretData | undefined);
      }
      return secrets.read(
        namespace,
        name,
        options?.maxBytes ?? MAX_OBJECT_BYTES,
        () => generation++,
      );
    },
    configMap(namespace, name) {
      const watched = keyWatches.get(`ConfigMap/${namespace}/${name}`);
      if (watched?.synced) {
        return Promise.resolve(watched.get(namespace, name) as ConfigMapData | undefined);
      }
      return configMaps.read(namespace, name, MAX_OBJECT_BYTES, () => generation++);
    },
    serviceAccount(namespace, name) {
      return accounts.read(namespace, name, MAX_SERVICE_ACCOUNT_BYTES, () => generation++);
    },
    start() {
      if (started) return;
      started = true;
      for (const r of primary) r.start();
      for (const r of keyWatches.values()) r.start();
    },
    whenSynced,
    async stop() {
      await Promise.all([...primary, ...keyWatches.values()].map((r) => r.stop()));
    },
  };
}
