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
 * Policies are compiled per scope (the cluster's, or one namespace's ImagePolicies), off the
 * review path and coalesced: a watch event marks its scope; a scope is compiled by at most one
 * compile at a time, from the policies as they are when it starts, validated and compiled in
 * slices of the turn scheduler (`lib/turns.ts`) so that `/healthz` and other namespaces' reviews
 * run between them; a change that arrives meanwhile, or within {@linkcode COMPILE_PAUSE_MS} after
 * it, makes one more compile follow that pause, never a queue (the latest policies win), so that a
 * namespace rewriting its policies without pause is compiled at most 10 times a second.
 * Reviews use the set last published; a compiled scope is published in one step, with a new
 * generation (the verdict memo forgets what it remembered), so every review that starts after
 * that uses it. The window in which a review still sees the policies before a change is the
 * compile in flight, the pause and the compile that follows it; a namespace that rewrites its
 * policies without pause only ever delays its own.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import { kindOf } from "./requirement_kinds.ts";
import {
  type ImagePolicy,
  InvalidPolicyError,
  PolicySet,
  validatePolicyInSlices,
} from "../policy/mod.ts";
import { type Slicer, TurnScheduler } from "../turns.ts";
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
  ENFORCEMENT_LABEL,
  enforcementLabelMode,
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
  /**
   * Cuts the compiles of policies into slices (share the reviews' scheduler so that both take
   * turns). @default a scheduler of its own
   */
  readonly turns?: Slicer;
}

/** A cluster source; {@linkcode start} it, {@linkcode stop} it. */
export interface KubePolicySource extends PolicySource {
  /** Starts the watches. */
  start(): void;
  /**
   * Resolves once the policy and namespace watches have listed and what they listed is compiled
   * (key Secrets follow); {@linkcode PolicySource.ready} is true from then on.
   */
  readonly whenSynced: Promise<void>;
  /** Stops every watch. */
  stop(): Promise<void>;
}

/** The most key Secrets watched. */
export const MAX_KEY_SECRET_WATCHES = 256;

/** The most key Secrets watched for one namespace's ImagePolicies. */
export const MAX_KEY_SECRET_WATCHES_PER_NAMESPACE = 16;

/**
 * How long after a compile of a scope the next one waits (the changes meanwhile are gathered into
 * that one compile): at most 10 compiles a second for a namespace that rewrites its policies
 * without pause. A change after a quiet moment is compiled at once.
 */
export const COMPILE_PAUSE_MS = 100;

/** An object a scope's policies name (a key Secret, a trust root), to watch. */
interface Referenced {
  /** `Secret/<namespace>/<name>` or `ConfigMap/<namespace>/<name>`. */
  readonly id: string;
  readonly namespace: string;
}

/** `the cluster policies` or `namespace "dev"`. */
function describeScope(scope: string): string {
  return scope === "" ? "the cluster" : `namespace "${scope}"`;
}

/** The most distinct policy problems remembered as logged (each is logged once). */
const MAX_REPORTED_PROBLEMS = 1024;

/** Creates the source (not started). */
export function createKubePolicySource(options: KubeSourceOptions): KubePolicySource {
  const { client, group } = options;
  const emit = options.onEvent ?? (() => {});
  const watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
  const turns = options.turns ?? new TurnScheduler();
  const objectTtlMs = options.objectTtlMs ?? 10_000;
  let policySet = new PolicySet([]);
  const problems = new Map<string, string>(); // "" for the cluster scope, else a namespace
  let exempt: ReadonlySet<string> = new Set();
  let modes: ReadonlyMap<string, "enforce" | "warn"> = new Map();
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
    maxBytes: CACHE_BYTES["config-map"],
    strip: stripConfigMap,
    sizeOf: configMapDataBytes,
  });
  const accounts = reads.kind<ServiceAccountData>({
    name: "service-account",
    type: SERVICE_ACCOUNTS,
    maxEntries: 4096,
    maxBytes: CACHE_BYTES["service-account"],
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
    onChange: () => noteChange(true),
  });
  const namespacedPolicies = new Reflector(client, {
    ...common,
    name: `ImagePolicies (${group})`,
    type: imagePolicies(group),
    onChange: () => noteChange(false),
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
        noteChange(false);
      },
    })
    : undefined;
  const enforcement = new Reflector(client, {
    ...common,
    name: "Namespaces with an enforcement mode",
    type: NAMESPACES,
    labelSelector: ENFORCEMENT_LABEL,
    onChange: () => {
      const next = new Map<string, "enforce" | "warn">();
      for (const n of enforcement.items()) {
        const mode = enforcementLabelMode(n.metadata?.labels);
        if (mode !== undefined && n.metadata?.name) next.set(n.metadata.name, mode);
      }
      modes = next;
      generation++;
      noteChange(false);
    },
  });

  /**
   * Each object validated once per version: a change to one policy validates that policy only,
   * and only the scope it belongs to is compiled again (see `compileScope`).
   */
  const validated = new Map<string, { version: string; result: ImagePolicy | string }>();
  /** The version of each ImagePolicy last seen, and its namespace: what tells a change. */
  let seen = new Map<string, { version: string; namespace: string }>();
  /** Scopes (`""`, or a namespace) whose policies changed since the last look. */
  const dirty = new Set<string>();
  let clusterDirty = false;
  let lookQueued = false;
  /**
   * Per scope being compiled, or compiled less than {@linkcode COMPILE_PAUSE_MS} ago: whether a
   * change came meanwhile (one more compile follows), and whether a compile is running.
   */
  const compiling = new Map<string, { again: boolean; busy: boolean }>();
  /** The objects each scope's policies name, to watch (see `referencedObjects`). */
  const referenced = new Map<string, readonly Referenced[]>();
  let settled = false;
  let resolveSettled!: () => void;
  const whenSettled = new Promise<void>((resolve) => (resolveSettled = resolve));

  /** Notes a watch event; the scopes it touched are found once for all events of one turn. */
  function noteChange(cluster: boolean): void {
    if (cluster) clusterDirty = true;
    if (lookQueued) return;
    lookQueued = true;
    queueMicrotask(() => {
      lookQueued = false;
      look();
    });
  }

  /** Finds the scopes that changed (a linear pass, no validation) and compiles each of them. */
  function look(): void {
    if (clusterDirty) {
      clusterDirty = false;
      dirty.add("");
    }
    const next = new Map<string, { version: string; namespace: string }>();
    for (const item of namespacedPolicies.items()) {
      const id = `${item.metadata?.namespace ?? ""}/${item.metadata?.name ?? ""}`;
      const namespace = item.metadata?.namespace || "default";
      const version = `${item.metadata?.uid ?? ""}/${item.metadata?.resourceVersion ?? ""}`;
      const before = seen.get(id);
      if (before === undefined || before.version !== version || version === "/") {
        dirty.add(namespace);
      }
      next.set(id, { version, namespace });
    }
    for (const [id, before] of seen) if (!next.has(id)) dirty.add(before.namespace);
    seen = next;
    for (const scope of dirty) schedule(scope);
    dirty.clear();
    checkSettled();
  }

  /**
   * Compiles `scope` unless it is being compiled; then the running compile is followed by one
   * more (the latest policies win: changes meanwhile are never queued one by one).
   */
  function schedule(scope: string): void {
    const running = compiling.get(scope);
    if (running !== undefined) {
      running.again = true;
      return;
    }
    const state = { again: false, busy: true };
    compiling.set(scope, state);
    void (async () => {
      try {
        for (;;) {
          state.again = false;
          state.busy = true;
          await compileScope(scope);
          state.busy = false;
          checkSettled();
          // Changes during the compile or just after it are gathered, then compiled once.
          await pause(COMPILE_PAUSE_MS);
          if (!state.again || stopped) break;
        }
      } catch (error) {
        emit("error", `Cannot compile the policies of ${describeScope(scope)}: ${String(error)}`);
      } finally {
        compiling.delete(scope);
        checkSettled();
      }
    })();
  }

  /** Sleepers of `pause`, woken when the source stops. */
  const sleepers = new Set<() => void>();
  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });
  }

  /** Ready once the watches have listed and what they listed is compiled. */
  function checkSettled(): void {
    if (settled || !primary.every((r) => r.synced)) return;
    for (const state of compiling.values()) if (state.busy || state.again) return;
    settled = true;
    resolveSettled();
  }

  /**
   * Validates and compiles the policies of one scope as they are now, in slices (other reviews,
   * other namespaces and `/healthz` run between them), then publishes the set with that scope
   * replaced: reviews that start from then on use it; those before used the last one published.
   */
  async function compileScope(scope: string): Promise<void> {
    const items = scope === ""
      ? clusterPolicies.items()
      : namespacedPolicies.items().filter((i) => (i.metadata?.namespace || "default") === scope);
    const valid: ImagePolicy[] = [];
    let problem: string | undefined;
    const ids = new Set<string>();
    for (const item of items) {
      const id = `${item.kind}/${item.metadata?.namespace ?? ""}/${item.metadata?.name ?? ""}`;
      const version = `${item.metadata?.uid ?? ""}/${item.metadata?.resourceVersion ?? ""}`;
      ids.add(id);
      const known = validated.get(id);
      let result: ImagePolicy | string;
      if (known !== undefined && known.version === version && version !== "/") {
        result = known.result;
      } else {
        try {
          result = await validatePolicyInSlices(item, [group], turns);
        } catch (error) {
          result = error instanceof InvalidPolicyError ? error.message : String(error);
        }
        validated.set(id, { version, result });
      }
      if (typeof result !== "string") {
        valid.push(result);
        continue;
      }
      problem ??= result;
      if (scope !== "") {
        // Keep the namespace governed by its ImagePolicies: an empty one stands in for it.
        valid.push({
          kind: "ImagePolicy",
          name: item.metadata?.name ?? "",
          namespace: scope,
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
    const compiled = await PolicySet.compileScope(scope, valid, turns);
    // Published in one step, after the compile: nothing awaits from here on.
    const prefix = scope === "" ? "ClusterImagePolicy//" : `ImagePolicy/${scope}/`;
    for (const id of validated.keys()) {
      if (id.startsWith(prefix) && !ids.has(id)) validated.delete(id);
    }
    policySet = policySet.withScope(compiled);
    if (problem === undefined) problems.delete(scope);
    else problems.set(scope, problem);
    if (valid.length === 0) referenced.delete(scope);
    else referenced.set(scope, referencedObjects(scope, valid));
    reconcileKeyWatches();
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
  function referencedObjects(scope: string, policies: readonly ImagePolicy[]): Referenced[] {
    const found = new Map<string, Referenced>();
    // What one namespace's ImagePolicies may have watched; the cluster's, all there is room for.
    const most = scope === "" ? MAX_KEY_SECRET_WATCHES : MAX_KEY_SECRET_WATCHES_PER_NAMESPACE;
    const want = (id: string, namespace: string) => {
      if (found.size < most && !found.has(id)) found.set(id, { id, namespace });
    };
    for (const policy of policies) {
      const defaultNamespace = policy.kind === "ImagePolicy"
        ? policy.namespace ?? "default"
        : options.controllerNamespace;
      for (const repository of policy.repositories) {
        if (found.size >= most) break;
        for (const requirement of repository.policy.simple?.requirements ?? []) {
          // The kinds that verify signatures are the ones that read keys and trust roots.
          if (kindOf(requirement).needs !== "signature") continue;
          if (requirement.keySecret) {
            const namespace = requirement.keySecretNamespace ?? defaultNamespace;
            want(`Secret/${namespace}/${requirement.keySecret}`, namespace);
          }
          for (const ref of [requirement.trustRootRef, requirement.keyless?.trustRootRef]) {
            if (!ref) continue;
            const namespace = ref.namespace ?? defaultNamespace;
            want(`${ref.kind}/${namespace}/${ref.name}`, namespace);
          }
        }
      }
    }
    return [...found.values()];
  }

  /**
   * Watches what the scopes' policies name: the cluster policies' first, then at most
   * {@linkcode MAX_KEY_SECRET_WATCHES_PER_NAMESPACE} in each namespace,
   * {@linkcode MAX_KEY_SECRET_WATCHES} in all (a cost bounded by the watches, not the policies).
   */
  function reconcileKeyWatches(): void {
    const wanted = new Set<string>();
    const perNamespace = new Map<string, number>();
    const scopes = [
      referenced.get("") ?? [],
      ...[...referenced].filter(([k]) => k !== "").map(([, v]) => v),
    ];
    scopes.forEach((objects, i) => {
      for (const { id, namespace } of objects) {
        if (wanted.size >= MAX_KEY_SECRET_WATCHES) return;
        if (wanted.has(id)) continue;
        // One namespace's policies cannot take every watch (the rest are read when needed).
        const inNamespace = (perNamespace.get(namespace) ?? 0) + 1;
        if (i > 0 && inNamespace > MAX_KEY_SECRET_WATCHES_PER_NAMESPACE) continue;
        perNamespace.set(namespace, inNamespace);
        wanted.add(id);
      }
    });
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
  const primary = [
    clusterPolicies,
    namespacedPolicies,
    enforcement,
    ...(namespaces ? [namespaces] : []),
  ];
  let stopped = false;

  return {
    ready: () => settled,
    policies: () => policySet,
    exemptNamespaces: () => exempt,
    namespaceMode: (namespace) => modes.get(namespace),
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
    whenSynced: whenSettled,
    async stop() {
      stopped = true;
      for (const wake of [...sleepers]) wake();
      await Promise.all([...primary, ...keyWatches.values()].map((r) => r.stop()));
    },
  };
}
