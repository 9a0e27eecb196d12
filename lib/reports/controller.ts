/**
 * The report controller: while this replica leads (`lease.ts`), it keeps one PolicyReport per
 * namespace (`report.ts`) equal to the audit of that namespace's running workloads.
 *
 * - It lists and watches the workloads (`lib/kube`'s reflectors over the audited kinds) and audits
 *   from those copies, so an audit lists nothing from the API server.
 * - A change of a workload's images (or of the set of workloads) in a namespace re-audits that
 *   namespace, after `debounceMs` so that a rollout's burst of events is one audit; a Pod's status
 *   changing is not a change.
 * - A change of the policies, key Secrets or trust roots ({@linkcode ReportController.policyChanged},
 *   from the policy source's watches) re-audits every namespace, debounced too.
 * - Every `resyncMs` it re-audits every namespace anyway: what no watch tells (a signature deleted
 *   from a registry, a certificate or key that expired) shows within one period.
 * - A namespace with no workloads left loses its report; reports are written by server-side apply
 *   (an unchanged audit writes nothing new).
 *
 * Audits run one namespace at a time, each report built as its audit goes (`ReportBuilder`: at most
 * 1000 results held); the verifier behind them has its registry rate bounded by the caller
 * (`token_bucket.ts`). The copies of the workloads are bounded in bytes (`workload_copies.ts`,
 * `maxCopyBytes`): a namespace that does not fit is not held, and its report is one `error` result
 * naming the bound.
 *
 * @module
 */
import {
  applyObject,
  type KubeClient,
  type KubeObject,
  NAMESPACES,
  POLICY_REPORTS,
  Reflector,
  type ResourceType,
} from "../kube/mod.ts";
import { REPORTS_BYTES } from "../admission/mod.ts";
import { formatBytes } from "../read_budget.ts";
import type { AuditedImage, AuditFunction, AuditLister } from "./audited.ts";
import { POLICY_REPORT_NAME, REPORT_LABELS, ReportBuilder } from "./report.ts";
import type { BucketClock } from "./token_bucket.ts";
import { WorkloadCopies, type WorkloadCopyStats } from "./workload_copies.ts";

/** Why an audit ran. */
export type AuditTrigger = "start" | "workloads" | "policies" | "resync";

/** Counts for metrics. */
export interface ReportObserver {
  /** An audit ran (`namespaces`: how many it covered), or failed. */
  audited?(trigger: AuditTrigger, outcome: "done" | "failed"): void;
  /** The images of `namespace` that would be denied now (`fail` and `error` verdicts). */
  violations?(namespace: string, count: number): void;
  /** `namespace` has no report any more. */
  removed?(namespace: string): void;
  /** A report was written: created, updated, unchanged or deleted. */
  written?(outcome: "created" | "updated" | "unchanged" | "deleted" | "failed"): void;
  /** This replica leads (true) or stands by (false). */
  leading?(leading: boolean): void;
  /** What the copies of the workloads hold now (read when the metrics are rendered). */
  copies?(stats: () => WorkloadCopyStats): void;
}

/** How the controller works. */
export interface ReportControllerOptions {
  /** The API server (reports are written with it; workloads watched through it). */
  readonly client: KubeClient;
  /** The workload kinds to watch and audit (`lib/audit`'s `AUDITED_TYPES`). */
  readonly workloadTypes: readonly ResourceType[];
  /** Audits namespaces (`lib/audit`'s `auditWorkloads` with the controller's evaluator). */
  readonly audit: AuditFunction;
  /** The replica's identity, written on each report. */
  readonly reporter: string;
  /** The time and the waits. */
  readonly clock: BucketClock;
  /** The period of the full re-audit, in ms. */
  readonly resyncMs: number;
  /** How long changes are gathered before an audit, in ms. @default 1000 */
  readonly debounceMs?: number;
  /** Resolves when the policies are loaded (the first audit waits for it). */
  readonly ready?: () => Promise<void>;
  /** Counts for metrics. */
  readonly observer?: ReportObserver;
  /** Told of audits and failures. */
  readonly onEvent?: (level: "info" | "warn", message: string) => void;
  /**
   * The byte bound of the copies of the workloads (`workload_copies.ts`).
   * @default `REPORTS_BYTES.workloadCopies` (`lib/admission/memory_budget.ts`)
   */
  readonly maxCopyBytes?: number;
  /** Called before each pass of audits (the audits' memory of verdicts starts afresh). */
  readonly startPass?: () => void;
}

type Spec = Record<string, unknown>;

/** The `message` of the one result of a namespace whose workloads did not fit the copies' bound. */
export function copiesBoundMessage(maxBytes: number): string {
  return `not audited: the report controller's copies of the cluster's workloads reached their ` +
    `bound of ${formatBytes(maxBytes)}; this namespace's workloads are not held ` +
    `(docs/admission.md, PolicyReports)`;
}

/** The fingerprint of a namespace whose copies are refused. */
const REFUSED = "refused";

/** A 53-bit hash of a text (cyrb53): fingerprints hold two numbers a namespace, not its text. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** What of a workload decides its audit: its pod template's images, account and pull Secrets. */
function auditedSpec(object: KubeObject): unknown {
  const spec = (object as { spec?: Spec }).spec ?? {};
  const template = (spec.template as { spec?: Spec } | undefined)?.spec ??
    ((spec.jobTemplate as { spec?: { template?: { spec?: Spec } } } | undefined)?.spec?.template
      ?.spec) ??
    spec;
  const images = (list: unknown) =>
    Array.isArray(list) ? list.map((c) => `${c?.name}=${c?.image}`) : [];
  const volumes = Array.isArray(template.volumes)
    ? template.volumes.filter((v) => v?.image).map((v) => `${v.name}=${v.image?.reference}`)
    : [];
  return [
    images(template.containers),
    images(template.initContainers),
    images(template.ephemeralContainers),
    volumes,
    template.serviceAccountName ?? "",
    template.imagePullSecrets ?? [],
    (object.metadata.ownerReferences as unknown[] | undefined)?.length ?? 0,
  ];
}

/** The fields of a pod spec an audit reads: image sites, their names, the pull credentials. */
function podSpecPart(spec: unknown): unknown {
  if (typeof spec !== "object" || spec === null) return spec;
  const s = spec as Spec;
  const named = (list: unknown, pick: (item: Spec) => Spec) =>
    Array.isArray(list)
      ? list.map((item) => typeof item === "object" && item !== null ? pick(item as Spec) : item)
      : list;
  // Every item stays, in its place: a site's field path (`spec.volumes[2]`) is the webhook's.
  const container = (c: Spec) => ({ name: c.name, image: c.image });
  const part: Spec = {
    containers: named(s.containers, container),
    initContainers: named(s.initContainers, container),
    ephemeralContainers: named(s.ephemeralContainers, container),
    volumes: named(s.volumes, (v) => (v.image === undefined ? { name: v.name } : {
      name: v.name,
      image: v.image,
    })),
    serviceAccountName: s.serviceAccountName,
    serviceAccount: s.serviceAccount,
    imagePullSecrets: s.imagePullSecrets,
  };
  for (const key of Object.keys(part)) if (part[key] === undefined) delete part[key];
  return part;
}

/**
 * What of a workload the controller keeps: its name, namespace, uid, labels and owners, and of its
 * pod spec (a Pod's, a template's, a CronJob's job template's) only what an audit reads — the
 * image sites, their names and the pull credentials. Its status, managed fields, annotations and
 * the rest of its spec (environment, resources, probes: most of a Pod's size) are not held.
 */
export function auditedPart(object: KubeObject): KubeObject {
  const m = object.metadata;
  const metadata = Object.fromEntries(
    Object.entries({
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      labels: m.labels,
      ownerReferences: m.ownerReferences,
      deletionTimestamp: m.deletionTimestamp,
    }).filter(([, v]) => v !== undefined),
  ) as KubeObject["metadata"];
  const spec = (object as { spec?: Spec }).spec;
  let kept: Spec | undefined;
  if (spec && typeof spec === "object") {
    const template = spec.template as { metadata?: unknown; spec?: unknown } | undefined;
    const jobTemplate = spec.jobTemplate as
      | { spec?: { template?: { metadata?: unknown; spec?: unknown } } }
      | undefined;
    if (template && typeof template === "object") {
      kept = {
        ...(spec.replicas !== undefined ? { replicas: spec.replicas } : {}),
        template: { spec: podSpecPart(template.spec) },
      };
    } else if (jobTemplate && typeof jobTemplate === "object") {
      kept = {
        jobTemplate: {
          spec: { template: { spec: podSpecPart(jobTemplate.spec?.template?.spec) } },
        },
      };
    } else {
      kept = podSpecPart(spec) as Spec;
    }
  }
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata,
    ...(kept ? { spec: kept } : {}),
  } as KubeObject;
}

/** A running controller (one per leadership term). */
export class ReportController {
  readonly #options: ReportControllerOptions;
  #reflectors: ReadonlyMap<ResourceType, Reflector>;
  #copies: WorkloadCopies;
  /** The fingerprint of each namespace's workloads at its last audit (`refused` when refused). */
  #audited = new Map<string, string>();
  /**
   * The names of the copies of this pass by namespace and kind (counted with each copy): an audit
   * reads the copies held when it runs, and no copy let go is kept alive by the index.
   */
  #index = new Map<string, Map<ResourceType, string[]>>();
  #workloadsChanged = false;
  #policiesChanged = false;
  #wake: AbortController = new AbortController();

  /** A controller (not running: {@linkcode run} it while leading). */
  constructor(options: ReportControllerOptions) {
    this.#options = options;
    const { copies, reflectors } = this.#makeCopies();
    this.#copies = copies;
    this.#reflectors = reflectors;
    options.observer?.copies?.(() => this.#copies.stats());
  }

  /** The reflectors and the accounting of their copies, within the bound. */
  #makeCopies(): { copies: WorkloadCopies; reflectors: ReadonlyMap<ResourceType, Reflector> } {
    const options = this.#options;
    const maxBytes = options.maxCopyBytes ?? REPORTS_BYTES.workloadCopies;
    const onChange = () => {
      this.#workloadsChanged = true;
      this.#wake.abort();
    };
    const reflectors = new Map<ResourceType, Reflector>();
    const copies = new WorkloadCopies(maxBytes, (namespace) => {
      for (const reflector of reflectors.values()) {
        reflector.drop((copy) => (copy.metadata.namespace ?? "") === namespace);
      }
      this.#emit(
        "warn",
        `the copies of the workloads reached their bound of ${
          formatBytes(maxBytes)
        }: namespace "${namespace}" is not audited (its report says so)`,
      );
      onChange();
    });
    for (const type of options.workloadTypes) {
      reflectors.set(
        type,
        new Reflector(options.client, {
          name: `${type.kind}s`,
          type,
          keep: (object) => copies.admit(auditedPart(object)),
          onDrop: (copy) => copies.release(copy),
          onChange,
          onError: (message) => this.#emit("warn", message),
        }),
      );
    }
    return { copies, reflectors };
  }

  #emit(level: "info" | "warn", message: string): void {
    this.#options.onEvent?.(level, message);
  }

  /** The policies, a key Secret or a trust root changed: every namespace is audited again. */
  policyChanged(): void {
    this.#policiesChanged = true;
    this.#wake.abort();
  }

  /** Lists workloads from the copies, by this pass's index of their names, for the audit. */
  readonly #lister: AuditLister = {
    list: ((type: ResourceType, namespace: string | undefined) => {
      const found: KubeObject[] = [];
      for (const [t, reflector] of this.#reflectors) {
        if (t.group !== type.group || t.plural !== type.plural) continue;
        const namespaces = namespace === undefined ? [...this.#index.keys()] : [namespace];
        for (const ns of namespaces) {
          for (const name of this.#index.get(ns)?.get(t) ?? []) {
            const copy = reflector.get(ns, name);
            if (copy !== undefined) found.push(copy);
          }
        }
      }
      return Promise.resolve(found);
    }) as AuditLister["list"],
  };

  /**
   * Each namespace's fingerprint (a hash of its workloads and what decides their audit, the same
   * whatever their order), and this pass's index of the copies by namespace and kind.
   */
  #fingerprints(): Map<string, string> {
    const sums = new Map<string, { a: number; b: number; n: number }>();
    const index = new Map<string, Map<ResourceType, string[]>>();
    for (const [type, reflector] of this.#reflectors) {
      for (const object of reflector.items()) {
        const namespace = object.metadata.namespace ?? "";
        const text = `${type.kind}/${object.metadata.name}/${object.metadata.uid ?? ""}/${
          JSON.stringify(auditedSpec(object))
        }`;
        const sum = sums.get(namespace) ?? { a: 0, b: 0, n: 0 };
        sum.a = (sum.a + hash53(text)) % Number.MAX_SAFE_INTEGER;
        sum.b = (sum.b + hash53(`${text.length}:${text}`)) % Number.MAX_SAFE_INTEGER;
        sum.n++;
        sums.set(namespace, sum);
        let byKind = index.get(namespace);
        if (byKind === undefined) index.set(namespace, byKind = new Map());
        const list = byKind.get(type);
        if (list === undefined) byKind.set(type, [object.metadata.name]);
        else list.push(object.metadata.name);
      }
    }
    this.#index = index;
    const fingerprints = new Map(
      [...sums].map(([ns, { a, b, n }]) => [ns, `${n}:${a.toString(36)}:${b.toString(36)}`]),
    );
    for (const ns of this.#copies.refusedNamespaces()) fingerprints.set(ns, REFUSED);
    return fingerprints;
  }

  async #sleep(ms: number, signal: AbortSignal): Promise<void> {
    try {
      await this.#options.clock.sleep(Math.max(0, ms), signal);
    } catch {
      // Woken or stopped: the loop looks at why.
    }
  }

  async #startCopies(signal: AbortSignal): Promise<void> {
    for (const reflector of this.#reflectors.values()) reflector.start();
    await Promise.race([
      Promise.all([...this.#reflectors.values()].map((r) => r.whenSynced)),
      new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true })),
    ]);
  }

  /**
   * Namespaces were refused and half the bound is free again (workloads went away): the copies are
   * listed afresh, so that those namespaces are held again if they fit now.
   */
  async #retryRefused(signal: AbortSignal): Promise<void> {
    const copies = this.#copies;
    if (copies.refusedNamespaces().length === 0 || copies.bytes > copies.maxBytes / 2) return;
    await Promise.all([...this.#reflectors.values()].map((r) => r.stop()));
    const next = this.#makeCopies();
    this.#copies = next.copies;
    this.#reflectors = next.reflectors;
    await this.#startCopies(signal);
  }

  /** Runs until `signal` aborts (leadership lost, or shutdown); stops its watches then. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, resyncMs } = this.#options;
    const debounceMs = this.#options.debounceMs ?? 1000;
    this.#options.observer?.leading?.(true);
    try {
      await Promise.race([
        Promise.all([this.#startCopies(signal), this.#options.ready?.()]),
        new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true })),
      ]);
      let trigger: AuditTrigger = "start";
      let nextResync = clock.now();
      while (!signal.aborted) {
        if (trigger === "start" || this.#policiesChanged || clock.now() >= nextResync) {
          const why: AuditTrigger = trigger === "start"
            ? "start"
            : this.#policiesChanged
            ? "policies"
            : "resync";
          if (why === "resync") await this.#retryRefused(signal);
          this.#policiesChanged = false;
          this.#workloadsChanged = false;
          await this.#auditAll(why, signal);
          nextResync = clock.now() + resyncMs;
        } else if (this.#workloadsChanged) {
          this.#workloadsChanged = false;
          await this.#auditChanged(signal);
        }
        trigger = "workloads";
        if (signal.aborted) break;
        if (!this.#workloadsChanged && !this.#policiesChanged) {
          // Wait for a change or the resync.
          this.#wake = new AbortController();
          const wait = AbortSignal.any([signal, this.#wake.signal]);
          await this.#sleep(nextResync - clock.now(), wait);
          if (signal.aborted) break;
        }
        // Gather what else changes for debounceMs (changes during an audit too): a burst of
        // changes, or a stream of them, is one audit per debounceMs at most.
        if (this.#workloadsChanged || this.#policiesChanged) {
          await this.#sleep(debounceMs, signal);
        }
      }
    } finally {
      this.#options.observer?.leading?.(false);
      this.#index = new Map();
      await Promise.all([...this.#reflectors.values()].map((r) => r.stop()));
    }
  }

  /** Refused namespaces that were deleted since are refused no more (their reports go). */
  async #forgetDeletedRefused(): Promise<void> {
    for (const namespace of this.#copies.refusedNamespaces()) {
      try {
        if (await this.#options.client.read(NAMESPACES, undefined, namespace) === undefined) {
          this.#copies.forgetRefusal(namespace);
        }
      } catch (error) {
        this.#emit("warn", `the Namespace "${namespace}" could not be read: ${message(error)}`);
      }
    }
  }

  /** Audits every namespace with workloads, and removes the reports of those without. */
  async #auditAll(trigger: AuditTrigger, signal: AbortSignal): Promise<void> {
    await this.#forgetDeletedRefused();
    const fingerprints = this.#fingerprints();
    let stale: string[] = [];
    try {
      const reports = await this.#options.client.list(POLICY_REPORTS, undefined, {
        labelSelector: Object.entries(REPORT_LABELS).map(([k, v]) => `${k}=${v}`).join(","),
      });
      stale = reports
        .filter((r) => r.metadata.name === POLICY_REPORT_NAME)
        .map((r) => r.metadata.namespace ?? "")
        .filter((ns) => !fingerprints.has(ns));
    } catch (error) {
      this.#emit("warn", `the PolicyReports could not be listed: ${message(error)}`);
    }
    for (const ns of this.#audited.keys()) {
      if (!fingerprints.has(ns) && !stale.includes(ns)) stale.push(ns);
    }
    await this.#auditNamespaces(trigger, [...fingerprints.keys()], fingerprints, signal);
    for (const namespace of stale) await this.#remove(namespace);
  }

  /** Audits the namespaces whose workloads changed since their last audit. */
  async #auditChanged(signal: AbortSignal): Promise<void> {
    const fingerprints = this.#fingerprints();
    const changed = [...fingerprints].filter(([ns, f]) => this.#audited.get(ns) !== f)
      .map(([ns]) => ns);
    const gone = [...this.#audited.keys()].filter((ns) => !fingerprints.has(ns));
    if (changed.length > 0) {
      await this.#auditNamespaces("workloads", changed, fingerprints, signal);
    }
    for (const namespace of gone) await this.#remove(namespace);
  }

  /** Audits `namespaces` one at a time, each report built as its audit goes, and writes them. */
  async #auditNamespaces(
    trigger: AuditTrigger,
    namespaces: readonly string[],
    fingerprints: ReadonlyMap<string, string>,
    signal: AbortSignal,
  ): Promise<void> {
    const { clock, observer } = this.#options;
    this.#options.startPass?.();
    let images = 0;
    let denied = 0;
    let failed = 0;
    for (const namespace of namespaces) {
      if (signal.aborted) return;
      const fingerprint = fingerprints.get(namespace) ?? "";
      const builder = new ReportBuilder(namespace, {
        nowMs: clock.now(),
        reporter: this.#options.reporter,
      });
      if (fingerprint === REFUSED) {
        builder.add([refusedImage(namespace, this.#copies.maxBytes)]);
      } else {
        try {
          await this.#options.audit(this.#lister, namespace, signal, (found) => builder.add(found));
        } catch (error) {
          if (signal.aborted) return;
          failed++;
          this.#emit("warn", `the audit (${trigger}) of "${namespace}" failed: ${message(error)}`);
          // Audited again at the next change or resync.
          this.#audited.delete(namespace);
          continue;
        }
      }
      if (signal.aborted) return;
      images += builder.total;
      denied += builder.summary.fail + builder.summary.error;
      await this.#write(namespace, builder);
      this.#audited.set(namespace, fingerprint);
    }
    this.#index = new Map();
    observer?.audited?.(trigger, failed === 0 ? "done" : "failed");
    this.#emit(
      "info",
      `audited ${namespaces.length} namespace(s) (${trigger}): ${images} image(s), ${denied} ` +
        `would be denied${failed > 0 ? `, ${failed} namespace(s) failed` : ""}`,
    );
  }

  async #write(namespace: string, builder: ReportBuilder): Promise<void> {
    const { client, observer } = this.#options;
    try {
      const previous = await client.read(POLICY_REPORTS, namespace, POLICY_REPORT_NAME);
      const report = builder.build(previous);
      const { outcome } = await applyObject(client, POLICY_REPORTS, report, {
        existing: previous ?? null,
      });
      observer?.written?.(outcome === "skipped" ? "unchanged" : outcome);
      observer?.violations?.(namespace, builder.summary.fail + builder.summary.error);
    } catch (error) {
      observer?.written?.("failed");
      this.#emit(
        "warn",
        `the PolicyReport of namespace "${namespace}" was not written: ${message(error)}`,
      );
    }
  }

  async #remove(namespace: string): Promise<void> {
    const { client, observer } = this.#options;
    this.#audited.delete(namespace);
    try {
      if (await client.delete(POLICY_REPORTS, namespace, POLICY_REPORT_NAME)) {
        observer?.written?.("deleted");
      }
      observer?.removed?.(namespace);
    } catch (error) {
      observer?.written?.("failed");
      this.#emit(
        "warn",
        `the PolicyReport of namespace "${namespace}" was not deleted: ${message(error)}`,
      );
    }
  }
}

/** The one result of a namespace whose copies are refused: an `error` naming the bound. */
function refusedImage(namespace: string, maxBytes: number): AuditedImage {
  return {
    namespace,
    workload: { kind: "Namespace", name: namespace },
    container: "",
    image: "",
    verdict: "error",
    message: copiesBoundMessage(maxBytes),
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
