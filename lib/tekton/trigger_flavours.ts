/**
 * What a Tekton trigger must know about each git-host flavour's push webhook: the header that
 * names the event and its push value, where the payload holds the pushed ref, the new commit,
 * the repository's clone URL and its name, and what proves that a delivery comes from the host
 * (the webhook secret, and the interceptor that checks it).
 *
 * The secret checks, decided from the sources of Tekton Triggers v0.34.0's core interceptors:
 *
 * - GitHub, GitHub Enterprise and Gitea sign the body with HMAC-SHA256 in
 *   `X-Hub-Signature-256: sha256=<hex>` (Gitea sends GitHub's headers beside its own): the `github`
 *   ClusterInterceptor checks it, and its `eventTypes` checks `X-GitHub-Event`.
 * - GitLab sends the secret itself in `X-Gitlab-Token`: the `gitlab` ClusterInterceptor compares it
 *   (in constant time), and its `eventTypes` checks `X-Gitlab-Event`.
 * - Bitbucket Cloud (since 2023, when the hook has a secret) signs the body with HMAC-SHA256 in
 *   `X-Hub-Signature: sha256=<hex>`, the header Bitbucket Server uses too: the `bitbucket`
 *   ClusterInterceptor reads that header and checks it with go-github's `ValidateSignature`, which
 *   accepts the `sha256=` prefix; its `eventTypes` checks `X-Event-Key` (`repo:push` on Cloud;
 *   Bitbucket Server's push is `repo:refs_changed`, which these triggers do not handle).
 * - Gogs signs the body with HMAC-SHA256 as bare hex in `X-Gogs-Signature`, which no core
 *   interceptor reads, and Tekton's CEL has no HMAC function, so the signature cannot be checked;
 *   Gogs no longer puts the secret in the payload either. What protects a Gogs listener is a token
 *   in the hook's URL: the hook is registered at `<listener URL>?toolkit-token=<secret>`
 *   ({@linkcode webhookUrlFor}), and the `cel` ClusterInterceptor compares that query parameter
 *   with the webhook Secret (`compareSecret`, Tekton's constant-time comparison) before any other
 *   filter runs. The token travels in the URL, so the listener must be reached over HTTPS, and
 *   whoever can read the hook's settings on Gogs can read the token (as they can read its secret).
 *
 * @module
 */
import type { GitFlavour } from "../githost/mod.ts";

/** A core ClusterInterceptor of Tekton Triggers that checks a webhook secret. */
export type SecretInterceptor = "github" | "gitlab" | "bitbucket";

/** How the EventListener checks that a delivery carries the webhook secret. */
export type SecretCheck =
  /** A core interceptor with `secretRef` and `eventTypes: [<push event>]`. */
  | { readonly kind: "interceptor"; readonly interceptor: SecretInterceptor }
  /** The `cel` interceptor compares a query parameter of the delivery URL with the Secret. */
  | { readonly kind: "url-token"; readonly queryParameter: string };

/** The facts of one flavour's push webhook. */
export interface TriggerFlavour {
  /** The header that names the event (`X-GitHub-Event`). */
  readonly eventHeader: string;
  /** Its value for a push (`push`, GitLab's `Push Hook`, Bitbucket's `repo:push`). */
  readonly pushEvent: string;
  /** The CEL path of the pushed ref (`body.ref`). */
  readonly refPath: string;
  /** What {@linkcode refPath} holds for a push to `branch` (`refs/heads/<branch>`). */
  readonly refValue: (branch: string) => string;
  /**
   * CEL clauses a push must also meet: it updates a branch and does not delete it (a deletion
   * has no commit to build).
   */
  readonly pushGuards: readonly string[];
  /** The payload path (CEL and TriggerBinding) of the commit the branch now points to. */
  readonly revisionPath: string;
  /** The payload path of the URL to clone the repository from. */
  readonly repositoryUrlPath: string;
  /** The payload path of the repository's `owner/name` (GitLab: `group/sub/name`). */
  readonly repositoryNamePath: string;
  /** What checks the webhook secret. */
  readonly secretCheck: SecretCheck;
  /** How the host delivers the secret, for people and docs. */
  readonly secretDelivery: string;
}

/** The query parameter of a Gogs hook URL that carries the webhook secret. */
export const URL_TOKEN_PARAMETER = "toolkit-token";

// The after-push commit id is all zeros when a push deletes the branch (SHA-1 or SHA-256).
const NOT_A_DELETION = "!body.after.matches('^0+$')";

const GITHUB: TriggerFlavour = {
  eventHeader: "X-GitHub-Event",
  pushEvent: "push",
  refPath: "body.ref",
  refValue: (branch) => `refs/heads/${branch}`,
  pushGuards: [NOT_A_DELETION],
  // igc read `body.head_commit.id`, which is null when a push deletes the branch; `after` is
  // the commit the ref points to after the push.
  revisionPath: "body.after",
  repositoryUrlPath: "body.repository.clone_url",
  repositoryNamePath: "body.repository.full_name",
  secretCheck: { kind: "interceptor", interceptor: "github" },
  secretDelivery: "HMAC-SHA256 of the body in `X-Hub-Signature-256: sha256=<hex>`",
};

/** Every flavour's push webhook facts. */
export const TRIGGER_FLAVOURS: Readonly<Record<GitFlavour, TriggerFlavour>> = {
  github: GITHUB,
  ghe: GITHUB,
  gitlab: {
    eventHeader: "X-Gitlab-Event",
    pushEvent: "Push Hook",
    refPath: "body.ref",
    refValue: (branch) => `refs/heads/${branch}`,
    pushGuards: [NOT_A_DELETION],
    revisionPath: "body.checkout_sha",
    // `repository` is GitLab's deprecated copy of `project`.
    repositoryUrlPath: "body.project.git_http_url",
    repositoryNamePath: "body.project.path_with_namespace",
    secretCheck: { kind: "interceptor", interceptor: "gitlab" },
    secretDelivery: "the secret itself in `X-Gitlab-Token`",
  },
  gitea: {
    eventHeader: "X-Gitea-Event",
    pushEvent: "push",
    refPath: "body.ref",
    refValue: (branch) => `refs/heads/${branch}`,
    pushGuards: [NOT_A_DELETION],
    revisionPath: "body.after",
    repositoryUrlPath: "body.repository.clone_url",
    repositoryNamePath: "body.repository.full_name",
    // Gitea sends GitHub's event and signature headers beside its own.
    secretCheck: { kind: "interceptor", interceptor: "github" },
    secretDelivery: "HMAC-SHA256 of the body in `X-Hub-Signature-256: sha256=<hex>` " +
      "(and `X-Gitea-Signature: <hex>`)",
  },
  gogs: {
    eventHeader: "X-Gogs-Event",
    pushEvent: "push",
    refPath: "body.ref",
    refValue: (branch) => `refs/heads/${branch}`,
    pushGuards: [NOT_A_DELETION],
    revisionPath: "body.after",
    repositoryUrlPath: "body.repository.clone_url",
    repositoryNamePath: "body.repository.full_name",
    secretCheck: { kind: "url-token", queryParameter: URL_TOKEN_PARAMETER },
    secretDelivery: "HMAC-SHA256 of the body as bare hex in `X-Gogs-Signature` (no Tekton " +
      `interceptor checks it); toolkit adds the secret to the hook URL as \`?${URL_TOKEN_PARAMETER}=\``,
  },
  bitbucket: {
    eventHeader: "X-Event-Key",
    pushEvent: "repo:push",
    refPath: "body.push.changes[0].new.name",
    refValue: (branch) => branch,
    // `new` is null when the change deletes the branch; tags are changes of type `tag`.
    pushGuards: [
      "body.push.changes[0].new != null",
      "body.push.changes[0].new.type == 'branch'",
    ],
    revisionPath: "body.push.changes[0].new.target.hash",
    repositoryUrlPath: "body.repository.links.html.href",
    repositoryNamePath: "body.repository.full_name",
    secretCheck: { kind: "interceptor", interceptor: "bitbucket" },
    secretDelivery: "HMAC-SHA256 of the body in `X-Hub-Signature: sha256=<hex>` (Bitbucket Cloud)",
  },
};

/**
 * The URL to register as the webhook of a `flavour` repository for the listener at
 * `listenerUrl`: the listener URL itself, except for Gogs, whose hook URL carries the secret
 * (see the module documentation). The result contains the secret for Gogs: never print or log it.
 */
export function webhookUrlFor(flavour: GitFlavour, listenerUrl: string, secret: string): string {
  const check = TRIGGER_FLAVOURS[flavour].secretCheck;
  if (check.kind !== "url-token") return listenerUrl;
  const url = new URL(listenerUrl);
  url.searchParams.set(check.queryParameter, secret);
  return url.href;
}
