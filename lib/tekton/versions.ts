/**
 * Which Tekton the cluster runs: the newest Pipelines version it serves (`tekton.dev` v1, else
 * v1beta1, else v1alpha1) and the newest Triggers version (`triggers.tekton.dev` v1beta1, else
 * v1alpha1), found by API discovery, and the resource types of the Tekton kinds toolkit reads and
 * writes at those versions. igc wrote v1alpha1 whatever the cluster served, and did nothing at all
 * on clusters that no longer serve it.
 *
 * @module
 */
import type { KubeClient, ResourceType } from "../kube/mod.ts";
import { ToolkitError } from "../errors.ts";

/** The Pipelines versions toolkit speaks, newest first. */
export const PIPELINES_VERSIONS = ["v1", "v1beta1", "v1alpha1"] as const;
/** The Triggers versions toolkit speaks, newest first. */
export const TRIGGERS_VERSIONS = ["v1beta1", "v1alpha1"] as const;

/** A served Pipelines version. */
export type PipelinesVersion = (typeof PIPELINES_VERSIONS)[number];
/** A served Triggers version. */
export type TriggersVersion = (typeof TRIGGERS_VERSIONS)[number];

/** The Tekton kinds at the versions the cluster serves. */
export interface TektonApis {
  /** `tekton.dev` version. */
  readonly pipelinesVersion: PipelinesVersion;
  /** `triggers.tekton.dev` version. */
  readonly triggersVersion: TriggersVersion;
  readonly pipelines: ResourceType;
  readonly tasks: ResourceType;
  readonly pipelineRuns: ResourceType;
  readonly triggerTemplates: ResourceType;
  readonly triggerBindings: ResourceType;
  readonly eventListeners: ResourceType;
}

/** The cluster serves no version of Tekton Pipelines or Triggers that toolkit speaks. */
export class TektonNotInstalledError extends ToolkitError {
  /** Creates the error for the missing API group. */
  constructor(group: "tekton.dev" | "triggers.tekton.dev", served: readonly string[]) {
    const what = group === "tekton.dev" ? "Tekton Pipelines" : "Tekton Triggers";
    super(
      served.length === 0
        ? `The cluster serves no ${group} API: install ${what} (https://tekton.dev/docs/installation/)`
        : `The cluster serves ${group} ${served.join(", ")}, none of which toolkit speaks (${
          (group === "tekton.dev" ? PIPELINES_VERSIONS : TRIGGERS_VERSIONS).join(", ")
        }): upgrade ${what}`,
    );
    this.name = "TektonNotInstalledError";
  }
}

function tektonType(
  group: string,
  version: string,
  plural: string,
  kind: string,
): ResourceType {
  return { group, version, plural, kind, namespaced: true };
}

/** The Tekton resource types at the given versions. */
export function tektonApisAt(
  pipelinesVersion: PipelinesVersion,
  triggersVersion: TriggersVersion,
): TektonApis {
  const p = (plural: string, kind: string) =>
    tektonType("tekton.dev", pipelinesVersion, plural, kind);
  const t = (plural: string, kind: string) =>
    tektonType("triggers.tekton.dev", triggersVersion, plural, kind);
  return {
    pipelinesVersion,
    triggersVersion,
    pipelines: p("pipelines", "Pipeline"),
    tasks: p("tasks", "Task"),
    pipelineRuns: p("pipelineruns", "PipelineRun"),
    triggerTemplates: t("triggertemplates", "TriggerTemplate"),
    triggerBindings: t("triggerbindings", "TriggerBinding"),
    eventListeners: t("eventlisteners", "EventListener"),
  };
}

/**
 * The Tekton kinds at the newest versions the cluster serves.
 *
 * @throws {TektonNotInstalledError} when Pipelines or Triggers is not served at a version
 *   toolkit speaks.
 */
export async function discoverTektonApis(client: KubeClient): Promise<TektonApis> {
  const [pipelinesVersion, triggers] = await Promise.all([
    discoverPipelinesVersion(client),
    client.discovery.servedVersions("triggers.tekton.dev"),
  ]);
  const triggersVersion = TRIGGERS_VERSIONS.find((v) => triggers.includes(v));
  if (!triggersVersion) throw new TektonNotInstalledError("triggers.tekton.dev", triggers);
  return tektonApisAt(pipelinesVersion, triggersVersion);
}

/**
 * The newest Pipelines version the cluster serves (Triggers not needed: for installing Tasks).
 *
 * @throws {TektonNotInstalledError} when Pipelines is not served at a version toolkit speaks.
 */
export async function discoverPipelinesVersion(client: KubeClient): Promise<PipelinesVersion> {
  const served = await client.discovery.servedVersions("tekton.dev");
  const version = PIPELINES_VERSIONS.find((v) => served.includes(v));
  if (!version) throw new TektonNotInstalledError("tekton.dev", served);
  return version;
}
