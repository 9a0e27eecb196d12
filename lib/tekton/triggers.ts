/**
 * The Tekton Triggers objects that connect pushes to one branch of one repository to a pipeline,
 * built as plain objects (nothing here talks to a cluster):
 *
 * - a TriggerTemplate whose PipelineRun runs the pipeline with `git-url`, `git-revision`,
 *   `scan-image: "false"` (and any other fixed params) as the `pipeline` ServiceAccount;
 * - its own TriggerBinding, reading the commit and the clone URL from the flavour's payload;
 * - the trigger of the namespace's EventListener `tekton`: first the flavour's secret check,
 *   then a CEL filter on the event header, `refs/heads/<branch>` (Bitbucket: the change's branch)
 *   and the repository's name, compared without ASCII case as the hosts compare names;
 * - the webhook Secret the secret check reads.
 *
 * The TriggerTemplate, TriggerBinding and trigger share one name derived from the repository and
 * the branch ({@linkcode triggerName}), so every repository and branch has its own objects
 * (igc shared one TriggerBinding per namespace) and running again replaces them. Everything is
 * labelled `app: <pipeline>`, except the EventListener, which pipelines share (`app: tekton`).
 *
 * Triggers `v1beta1` objects reference the core interceptors as ClusterInterceptors with params;
 * `v1alpha1` ones use the older fields (`github:`, `gitlab:`, `bitbucket:`, `cel:`), which every
 * Triggers release serving only v1alpha1 accepts and later releases convert. The PipelineRun is
 * `tekton.dev/v1` (`taskRunTemplate.serviceAccountName`) or `v1beta1` (`serviceAccountName`).
 * Values in CEL are written by {@linkcode celString}, so a branch or repository with quotes or
 * backslashes cannot change the filter.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { ToolkitError } from "../errors.ts";
import { quoteInput } from "../quote.ts";
import type { GitFlavour } from "../githost/mod.ts";
import type { KubeObject } from "../kube/mod.ts";
import { celString } from "./cel_string.ts";
import { TRIGGER_FLAVOURS, type TriggerFlavour } from "./trigger_flavours.ts";

/** The Triggers API versions toolkit writes. */
export type TriggersApiVersion = "triggers.tekton.dev/v1beta1" | "triggers.tekton.dev/v1alpha1";
/** The Pipelines API versions of the PipelineRun toolkit writes. */
export type PipelinesApiVersion = "tekton.dev/v1" | "tekton.dev/v1beta1" | "tekton.dev/v1alpha1";

/** The namespace's one EventListener. */
export const EVENT_LISTENER_NAME = "tekton";
/** The ServiceAccount of the EventListener and of the PipelineRuns. */
export const PIPELINE_SERVICE_ACCOUNT = "pipeline";
/** The TriggerTemplate params (and PipelineRun params) the binding fills. */
export const GIT_URL_PARAM = "git-url";
/** See {@linkcode GIT_URL_PARAM}. */
export const GIT_REVISION_PARAM = "git-revision";
/** Fixed PipelineRun params added unless overridden. */
export const DEFAULT_PIPELINE_PARAMS: Readonly<Record<string, string>> = { "scan-image": "false" };

/** What the trigger objects of one repository and branch are built from. */
export interface TriggerInput {
  /** The pipeline the PipelineRuns run (a Kubernetes name); also the `app` label. */
  readonly pipelineName: string;
  /** The namespace of the pipeline, the EventListener and these objects. */
  readonly namespace: string;
  readonly flavour: GitFlavour;
  /** `owner/repo`; GitLab `group/sub/repo`. */
  readonly repoPath: string;
  readonly branch: string;
  /** The Secret holding the webhook secret, and its key. */
  readonly secretName: string;
  readonly secretKey: string;
  /** The newest Triggers version the cluster serves. */
  readonly triggersApiVersion: TriggersApiVersion;
  /** The newest Pipelines version the cluster serves, for the PipelineRun. */
  readonly pipelinesApiVersion: PipelinesApiVersion;
  /**
   * Fixed PipelineRun params (the template's answers), added to {@linkcode DEFAULT_PIPELINE_PARAMS}
   * and overriding it; `git-url` and `git-revision` come from the push and cannot be set here.
   */
  readonly pipelineParams?: Readonly<Record<string, string>>;
}

/** An interceptor of an EventListener trigger, in either API version's shape. */
export type TriggerInterceptor = Readonly<Record<string, unknown>>;

/** One trigger of an EventListener. */
export interface EventListenerTrigger {
  readonly name: string;
  readonly interceptors?: readonly TriggerInterceptor[];
  readonly bindings?: readonly Readonly<Record<string, unknown>>[];
  readonly template?: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

/** An EventListener as toolkit reads and writes it. */
export interface EventListener extends KubeObject {
  spec?: {
    serviceAccountName?: string;
    triggers?: EventListenerTrigger[];
    [field: string]: unknown;
  };
}

/** The objects of one repository and branch. */
export interface TriggerObjects {
  /** The shared name of the template, the binding and the trigger. */
  readonly name: string;
  readonly triggerTemplate: KubeObject;
  readonly triggerBinding: KubeObject;
  /** The trigger to put into the EventListener with {@linkcode upsertTrigger}. */
  readonly trigger: EventListenerTrigger;
  /**
   * Names of triggers this one replaces: the name igc gave the same repository and branch
   * (`owner-repo-branch`), whose trigger checked no secret.
   */
  readonly supersedes: readonly string[];
}

/** Input the trigger builders refuse (an empty branch, a name Kubernetes would refuse). */
export class TriggerInputError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TriggerInputError";
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
const NAME_LIMIT = 63;
const HASH_LENGTH = 8;

function lowerAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * The name of the trigger objects of `branch` of `repoPath`: a readable part (lowercase ASCII
 * letters and digits of `<repo>-<branch>`, dashes between) and 8 hex digits of the SHA-256 of
 * the repository (ASCII case folded, as the hosts fold it) and the exact branch, so names never
 * collide when the readable part does (`a/b-c` and `a-b/c`, `Main` and `main`). At most 63
 * characters: a DNS label, and a label value (the sink labels PipelineRuns with it).
 */
export function triggerName(repoPath: string, branch: string): string {
  const hash = createHash("sha256").update(`${lowerAscii(repoPath)}\n${branch}`).digest("hex")
    .slice(0, HASH_LENGTH);
  const readable = lowerAscii(`${repoPath}-${branch}`).replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "").slice(0, NAME_LIMIT - HASH_LENGTH - 1).replace(/-+$/, "");
  return readable === "" ? `trigger-${hash}` : `${readable}-${hash}`;
}

/** The name igc gave the trigger of `branch` of `repoPath` (first `/` made `-`). */
export function igcTriggerName(repoPath: string, branch: string): string {
  return `${repoPath.replace("/", "-")}-${branch}`;
}

function checkText(what: string, value: string): void {
  if (value === "") throw new TriggerInputError(`The ${what} is empty`);
  if (!value.isWellFormed()) {
    throw new TriggerInputError(`The ${what} is not well-formed Unicode text`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new TriggerInputError(`The ${what} contains control characters`);
  }
}

function checkSecretRef(name: string, key: string): void {
  if (!DNS_SUBDOMAIN.test(name) || name.length > 253) {
    throw new TriggerInputError(`The Secret name "${quoteInput(name)}" is not a Kubernetes name`);
  }
  if (!SECRET_KEY.test(key) || key.length > 253) {
    throw new TriggerInputError(`The Secret key "${quoteInput(key)}" is not a valid key`);
  }
}

function checkInput(input: TriggerInput): void {
  if (!Object.hasOwn(TRIGGER_FLAVOURS, input.flavour)) {
    throw new TriggerInputError(`Unknown git host flavour "${quoteInput(input.flavour)}"`);
  }
  if (!DNS_LABEL.test(input.pipelineName) || input.pipelineName.length > NAME_LIMIT) {
    throw new TriggerInputError(
      `The pipeline name "${quoteInput(input.pipelineName)}" is not a Kubernetes name ` +
        "(at most 63 lowercase letters, digits and dashes)",
    );
  }
  if (!DNS_LABEL.test(input.namespace) || input.namespace.length > NAME_LIMIT) {
    throw new TriggerInputError(
      `The namespace "${quoteInput(input.namespace)}" is not a Kubernetes name`,
    );
  }
  checkText("repository path", input.repoPath);
  const segments = input.repoPath.split("/");
  if (segments.length < 2 || segments.some((segment) => segment.trim() === "")) {
    throw new TriggerInputError(
      `The repository path "${
        quoteInput(input.repoPath)
      }" is not owner/name (GitLab: group/…/name)`,
    );
  }
  checkText("branch", input.branch);
  checkSecretRef(input.secretName, input.secretKey);
  if (
    input.triggersApiVersion !== "triggers.tekton.dev/v1beta1" &&
    input.triggersApiVersion !== "triggers.tekton.dev/v1alpha1"
  ) {
    throw new TriggerInputError(
      `Unsupported Triggers API version "${quoteInput(input.triggersApiVersion)}"`,
    );
  }
  if (
    input.pipelinesApiVersion !== "tekton.dev/v1" &&
    input.pipelinesApiVersion !== "tekton.dev/v1beta1"
  ) {
    throw new TriggerInputError(
      `Unsupported Tekton Pipelines API version "${quoteInput(input.pipelinesApiVersion)}"`,
    );
  }
  for (const name of Object.keys(input.pipelineParams ?? {})) {
    if (name === GIT_URL_PARAM || name === GIT_REVISION_PARAM) {
      throw new TriggerInputError(`The param "${name}" comes from the push and cannot be fixed`);
    }
  }
}

function labels(input: TriggerInput): Record<string, string> {
  return { app: input.pipelineName };
}

/**
 * The CEL filter of a push of `flavour` to `branch` of `repoPath`: the event header, the
 * flavour's push guards, the ref and the repository name (ASCII case folded on both sides).
 */
export function pushFilter(flavour: GitFlavour, repoPath: string, branch: string): string {
  const f: TriggerFlavour = TRIGGER_FLAVOURS[flavour];
  return [
    `header.match(${celString(f.eventHeader)}, ${celString(f.pushEvent)})`,
    ...f.pushGuards,
    `${f.refPath} == ${celString(f.refValue(branch))}`,
    `${f.repositoryNamePath}.lowerAscii() == ${celString(lowerAscii(repoPath))}`,
  ].join(" && ");
}

/**
 * The CEL filter that checks the URL token of a Gogs delivery against key `secretKey` of Secret
 * `secretName` (in the EventListener's namespace).
 */
export function urlTokenFilter(
  queryParameter: string,
  secretName: string,
  secretKey: string,
): string {
  const param = celString(queryParameter);
  return `${param} in requestURL.parseURL().query && ` +
    `requestURL.parseURL().query[${param}].compareSecret(${celString(secretKey)}, ` +
    `${celString(secretName)})`;
}

function clusterInterceptor(name: string, params: Record<string, unknown>): TriggerInterceptor {
  return {
    ref: { name, kind: "ClusterInterceptor" },
    params: Object.entries(params).map(([param, value]) => ({ name: param, value })),
  };
}

/** The interceptors of the trigger: the secret check, then the push filter. */
export function triggerInterceptors(input: TriggerInput): TriggerInterceptor[] {
  const f = TRIGGER_FLAVOURS[input.flavour];
  const filter = pushFilter(input.flavour, input.repoPath, input.branch);
  const secretRef = { secretName: input.secretName, secretKey: input.secretKey };
  const v1alpha1 = input.triggersApiVersion === "triggers.tekton.dev/v1alpha1";
  const check = f.secretCheck;
  let secretCheck: TriggerInterceptor;
  if (check.kind === "interceptor") {
    secretCheck = v1alpha1
      ? { [check.interceptor]: { secretRef, eventTypes: [f.pushEvent] } }
      : clusterInterceptor(check.interceptor, { secretRef, eventTypes: [f.pushEvent] });
  } else {
    const tokenFilter = urlTokenFilter(check.queryParameter, input.secretName, input.secretKey);
    secretCheck = v1alpha1
      ? { cel: { filter: tokenFilter } }
      : clusterInterceptor("cel", { filter: tokenFilter });
  }
  const pushCheck = v1alpha1 ? { cel: { filter } } : clusterInterceptor("cel", { filter });
  return [secretCheck, pushCheck];
}

function pipelineRun(input: TriggerInput): Record<string, unknown> {
  const params = [
    { name: GIT_URL_PARAM, value: `$(tt.params.${GIT_URL_PARAM})` },
    { name: GIT_REVISION_PARAM, value: `$(tt.params.${GIT_REVISION_PARAM})` },
    ...Object.entries({ ...DEFAULT_PIPELINE_PARAMS, ...input.pipelineParams }).map((
      [name, value],
    ) => ({ name, value })),
  ];
  const account = input.pipelinesApiVersion === "tekton.dev/v1"
    ? { taskRunTemplate: { serviceAccountName: PIPELINE_SERVICE_ACCOUNT } }
    : { serviceAccountName: PIPELINE_SERVICE_ACCOUNT };
  return {
    apiVersion: input.pipelinesApiVersion,
    kind: "PipelineRun",
    // A generated name: every push makes a new run.
    metadata: { generateName: `${input.pipelineName}-`, labels: labels(input) },
    spec: { pipelineRef: { name: input.pipelineName }, params, ...account },
  };
}

/** The TriggerTemplate, TriggerBinding and EventListener trigger of one repository and branch. */
export function buildTriggerObjects(input: TriggerInput): TriggerObjects {
  checkInput(input);
  const f = TRIGGER_FLAVOURS[input.flavour];
  const name = triggerName(input.repoPath, input.branch);
  const metadata = () => ({ name, namespace: input.namespace, labels: labels(input) });
  const triggerTemplate: KubeObject = {
    apiVersion: input.triggersApiVersion,
    kind: "TriggerTemplate",
    metadata: metadata(),
    spec: {
      params: [
        { name: GIT_URL_PARAM, description: "The URL to clone the repository from" },
        { name: GIT_REVISION_PARAM, description: "The commit that was pushed" },
      ],
      resourcetemplates: [pipelineRun(input)],
    },
  };
  const triggerBinding: KubeObject = {
    apiVersion: input.triggersApiVersion,
    kind: "TriggerBinding",
    metadata: metadata(),
    spec: {
      params: [
        { name: GIT_URL_PARAM, value: `$(${f.repositoryUrlPath})` },
        { name: GIT_REVISION_PARAM, value: `$(${f.revisionPath})` },
      ],
    },
  };
  const trigger: EventListenerTrigger = {
    name,
    interceptors: triggerInterceptors(input),
    bindings: [{ kind: "TriggerBinding", ref: name }],
    template: { ref: name },
  };
  const legacy = igcTriggerName(input.repoPath, input.branch);
  return {
    name,
    triggerTemplate,
    triggerBinding,
    trigger,
    supersedes: legacy === name ? [] : [legacy],
  };
}

/** What the webhook Secret is made of. */
export interface WebhookSecretInput {
  readonly name: string;
  readonly namespace: string;
  readonly key: string;
  /** The secret shared with the git host. Never printed or logged. */
  readonly value: string;
  /** The `app` label. */
  readonly pipelineName: string;
}

/** The Secret holding the webhook secret the trigger's secret check reads. */
export function webhookSecret(input: WebhookSecretInput): KubeObject {
  checkSecretRef(input.name, input.key);
  if (input.value === "") throw new TriggerInputError("The webhook secret is empty");
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: input.name, namespace: input.namespace, labels: { app: input.pipelineName } },
    type: "Opaque",
    stringData: { [input.key]: input.value },
  };
}

/** Where {@linkcode upsertTrigger} creates a missing EventListener. */
export interface EventListenerTarget {
  readonly namespace: string;
  readonly triggersApiVersion: TriggersApiVersion;
  /** Names of other triggers to remove (see {@linkcode TriggerObjects.supersedes}). */
  readonly replacing?: readonly string[];
}

/**
 * The EventListener with `trigger` in it: a trigger of the same name (or one named in
 * `target.replacing`) is replaced in place, other triggers are kept in their order, and a new
 * trigger is appended. Without an existing listener, a new EventListener `tekton` running as the
 * `pipeline` ServiceAccount. `existing` is not changed; its metadata (resourceVersion) is kept for
 * the update.
 */
export function upsertTrigger(
  existing: EventListener | undefined,
  trigger: EventListenerTrigger,
  target: EventListenerTarget,
): EventListener {
  if (!existing) {
    return {
      apiVersion: target.triggersApiVersion,
      kind: "EventListener",
      metadata: {
        name: EVENT_LISTENER_NAME,
        namespace: target.namespace,
        labels: { app: EVENT_LISTENER_NAME },
      },
      spec: { serviceAccountName: PIPELINE_SERVICE_ACCOUNT, triggers: [trigger] },
    };
  }
  const replaced = new Set([trigger.name, ...(target.replacing ?? [])]);
  const triggers: EventListenerTrigger[] = [];
  let placed = false;
  for (const current of existing.spec?.triggers ?? []) {
    if (!replaced.has(current.name)) triggers.push(current);
    else if (!placed) {
      triggers.push(trigger);
      placed = true;
    }
  }
  if (!placed) triggers.push(trigger);
  return {
    ...existing,
    apiVersion: existing.apiVersion ?? target.triggersApiVersion,
    kind: existing.kind ?? "EventListener",
    spec: {
      ...existing.spec,
      serviceAccountName: existing.spec?.serviceAccountName ?? PIPELINE_SERVICE_ACCOUNT,
      triggers,
    },
  };
}
