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
 * Audits run one at a time; the verifier behind them has its registry rate bounded by the caller
 * (`token_bucket.ts`).
 *
 * @module
 */
import {
  applyObject,
  type KubeClient,
  type KubeObject,
  POLICY_REPORTS,
  Reflector,
  type ResourceType,
} from "../kube/mod.ts";
import type { AuditedImage, AuditFunction, AuditLister } from "./audited.ts";
import { buildPolicyReport, POLICY_REPORT_NAME, REPORT_LABELS, violations } from "./report.ts";
import type { BucketClock } from "./token_bucket.ts";

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
}

type Spec = Record<string, unknown>;

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
  readonly #reflectors: ReadonlyMap<ResourceType, Reflector>;
  /** The fingerprint of each namespace's workloads at its last audit. */
  #audited = new Map<string, string>();
  #workloadsChanged = false;
  #policiesChanged = false;
  #wake: AbortController = new AbortController();

  /** A controller (not running: {@linkcode run} it while leading). */
  constructor(options: ReportControllerOptions) {
    this.#options = options;
    const onChange = () => {
      this.#workloadsChanged = true;
      this.#wake.abort();
    };
    this.#reflectors = new Map(options.workloadTypes.map((type) => [
      type,
      new Reflector(options.client, {
        name: `${type.kind}s`,
        type,
        keep: auditedPart,
        onChange,
        onError: (message) => this.#emit("warn", message),
      }),
    ]));
  }

  #emit(level: "info" | "warn", message: string): void {
    this.#options.onEvent?.(level, message);
  }

  /** The policies, a key Secret or a trust root changed: every namespace is audited again. */
  policyChanged(): void {
    this.#policiesChanged = true;
    this.#wake.abort();
  }

  /** Lists workloads from the reflectors' copies, for the audit. */
  readonly #lister: AuditLister = {
    list: ((type: ResourceType, namespace: string | undefined) => {
      const reflector = [...this.#reflectors].find(([t]) =>
        t.group === type.group && t.plural === type.plural
      )?.[1];
      const items = reflector?.items() ?? [];
      return Promise.resolve(
        namespace ? items.filter((o) => o.metadata.namespace === namespace) : items,
      );
    }) as AuditLister["list"],
  };

  /** Each namespace's fingerprint: its workloads and what decides their audit. */
  #fingerprints(): Map<string, string> {
    const parts = new Map<string, string[]>();
    for (const [type, reflector] of this.#reflectors) {
      for (const object of reflector.items()) {
        const namespace = object.metadata.namespace ?? "";
        const list = parts.get(namespace) ?? [];
        list.push(
          `${type.kind}/${object.metadata.name}/${object.metadata.uid ?? ""}/${
            JSON.stringify(auditedSpec(object))
          }`,
        );
        parts.set(namespace, list);
      }
    }
    return new Map([...parts].map(([ns, list]) => [ns, list.sort().join("\n")]));
  }

  async #sleep(ms: number, signal: AbortSignal): Promise<void> {
    try {
      await this.#options.clock.sleep(Math.max(0, ms), signal);
    } catch {
      // Woken or stopped: the loop looks at why.
    }
  }

  /** Runs until `signal` aborts (leadership lost, or shutdown); stops its watches then. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, resyncMs } = this.#options;
    const debounceMs = this.#options.debounceMs ?? 1000;
    this.#options.observer?.leading?.(true);
    for (const reflector of this.#reflectors.values()) reflector.start();
    try {
      await Promise.race([
        Promise.all([
          ...[...this.#reflectors.values()].map((r) => r.whenSynced),
          this.#options.ready?.(),
        ]),
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
      await Promise.all([...this.#reflectors.values()].map((r) => r.stop()));
    }
  }

  /** Audits every namespace with workloads, and removes the reports of those without. */
  async #auditAll(trigger: AuditTrigger, signal: AbortSignal): Promise<void> {
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
    await this.#auditNamespaces(trigger, [...fingerprints.keys()], fingerprints, signal, true);
    for (const namespace of stale) await this.#remove(namespace);
  }

  /** Audits the namespaces whose workloads changed since their last audit. */
  async #auditChanged(signal: AbortSignal): Promise<void> {
    const fingerprints = this.#fingerprints();
    const changed = [...fingerprints].filter(([ns, f]) => this.#audited.get(ns) !== f)
      .map(([ns]) => ns);
    const gone = [...this.#audited.keys()].filter((ns) => !fingerprints.has(ns));
    if (changed.length > 0) {
      await this.#auditNamespaces("workloads", changed, fingerprints, signal, false);
    }
    for (const namespace of gone) await this.#remove(namespace);
  }

  async #auditNamespaces(
    trigger: AuditTrigger,
    namespaces: readonly string[],
    fingerprints: ReadonlyMap<string, string>,
    signal: AbortSignal,
    all: boolean,
  ): Promise<void> {
    const { clock, observer } = this.#options;
    let images: readonly AuditedImage[];
    try {
      images = namespaces.length === 0
        ? []
        : await this.#options.audit(this.#lister, all ? undefined : namespaces, signal);
    } catch (error) {
      if (signal.aborted) return;
      observer?.audited?.(trigger, "failed");
      this.#emit("warn", `the audit (${trigger}) failed: ${message(error)}`);
      // Audited again at the next change or resync.
      for (const ns of namespaces) this.#audited.delete(ns);
      return;
    }
    if (signal.aborted) return;
    observer?.audited?.(trigger, "done");
    const byNamespace = new Map<string, AuditedImage[]>(namespaces.map((ns) => [ns, []]));
    for (const image of images) byNamespace.get(image.namespace)?.push(image);
    const nowMs = clock.now();
    for (const [namespace, found] of byNamespace) {
      if (signal.aborted) return;
      await this.#write(namespace, found, nowMs);
      this.#audited.set(namespace, fingerprints.get(namespace) ?? "");
    }
    this.#emit(
      "info",
      `audited ${byNamespace.size} namespace(s) (${trigger}): ${images.length} image(s), ${
        violations(images)
      } would be denied`,
    );
  }

  async #write(namespace: string, images: readonly AuditedImage[], nowMs: number): Promise<void> {
    const { client, observer } = this.#options;
    try {
      const previous = await client.read(POLICY_REPORTS, namespace, POLICY_REPORT_NAME);
      const report = buildPolicyReport(namespace, images, {
        nowMs,
        reporter: this.#options.reporter,
        previous,
      });
      const { outcome } = await applyObject(client, POLICY_REPORTS, report, {
        existing: previous ?? null,
      });
      observer?.written?.(outcome === "skipped" ? "unchanged" : outcome);
      observer?.violations?.(namespace, violations(images));
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
