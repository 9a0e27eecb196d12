/**
 * A git repository registered in a namespace for pipelines, as igc did it and as `git-secret`,
 * `gitops` and `pipeline` write it:
 *
 * - Secret `git-credentials` (type `kubernetes.io/basic-auth`): `username` and `password`, plus
 *   any further attributes. Labelled `jenkins.io/credentials-type=usernamePassword`, and annotated
 *   `build.openshift.io/source-secret-match-uri-1` and `tekton.dev/git-0` with the repository's
 *   real scheme and host (igc always wrote `https`).
 * - ConfigMap `<org>.<repo>` (`.<branch>` added when it is not main or master; dots turned into
 *   `-` as igc did), or a name of the command's, with `url`, `host`, `org`, `owner`, `repo`,
 *   `branch` and `protocol`.
 *
 * @module
 */
import { decodeBase64Text } from "../../lib/mod.ts";
import {
  applyObject,
  type ApplyResult,
  CONFIG_MAPS,
  type KubeClient,
  type KubeObject,
  SECRETS,
} from "../../lib/kube/mod.ts";
import type { GitUrl } from "../../lib/githost/mod.ts";

/** The name of the git credentials Secret (what the toolkit's pipelines read). */
export const GIT_SECRET_NAME = "git-credentials";
/** The ConfigMap name igc used: `<org>.<repo>[.<branch>]`, lower case, `.`/`_`/`/` → `-`. */
export function repoConfigName(git: GitUrl, branch: string): string {
  const base = [git.org, git.repo, ...(branch === "main" || branch === "master" ? [] : [branch])]
    .join(".");
  return normalizeName(base);
}

/** An object name from free text: lower case, anything but `[a-z0-9-]` turned into `-`. */
export function normalizeName(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "");
}

function labelValue(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "")
    .slice(0, 63).replace(/[^A-Za-z0-9]+$/, "");
}

function decode(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    return decodeBase64Text(value);
  } catch {
    return undefined;
  }
}

/** The body of the git credentials Secret. */
export function gitSecret(
  namespace: string,
  git: GitUrl,
  username: string,
  password: string,
  values: Record<string, string> = {},
): {
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  type: string;
  stringData: Record<string, string>;
} {
  const origin = `${git.protocol}://${git.host}`;
  return {
    metadata: {
      name: GIT_SECRET_NAME,
      namespace,
      labels: {
        "jenkins.io/credentials-type": "usernamePassword",
        app: labelValue(git.repo),
        group: "pipeline",
        type: "git",
      },
      annotations: {
        description:
          `secret providing credentials for git repo ${git.url} used by the Jenkins pipeline`,
        "jenkins.io/credentials-description":
          `Git credentials for ${git.url} stored in kubernetes secret`,
        "build.openshift.io/source-secret-match-uri-1": `${origin}/*`,
        "tekton.dev/git-0": origin,
      },
    },
    type: "kubernetes.io/basic-auth",
    stringData: { ...values, username, password },
  };
}

/** The git credentials Secret of a namespace, and what it holds. */
export interface StoredCredentials {
  /** The Secret, when there is one. */
  readonly object: KubeObject | undefined;
  /** Its user name. */
  readonly username: string | undefined;
  /** Its password or token. */
  readonly password: string | undefined;
}

/** Reads the namespace's `git-credentials` Secret. */
export async function readStoredCredentials(
  client: KubeClient,
  namespace: string,
): Promise<StoredCredentials> {
  const object = await client.read(SECRETS, namespace, GIT_SECRET_NAME);
  const data = (object?.data ?? {}) as Record<string, string>;
  return { object, username: decode(data.username), password: decode(data.password) };
}

/** What {@linkcode writeRepository} writes. */
export interface RepositoryRegistration {
  readonly namespace: string;
  readonly git: GitUrl;
  readonly branch: string;
  /** The ConfigMap's name (default `<org>.<repo>[.<branch>]`). */
  readonly configName?: string | undefined;
  /** The git credentials Secret to write; absent: the stored one is kept. */
  readonly secret?: ReturnType<typeof gitSecret> | undefined;
  /** The Secret there is now, if any. */
  readonly stored?: KubeObject | undefined;
}

/**
 * Registers a repository in a namespace as igc did: the ConfigMap with its URL, host, org, repo,
 * branch and protocol, and the git credentials Secret (written when given, else reported as it is).
 */
export async function writeRepository(
  client: KubeClient,
  r: RepositoryRegistration,
): Promise<ApplyResult[]> {
  const { namespace, git, branch } = r;
  const results: ApplyResult[] = [];
  results.push(
    await applyObject(client, CONFIG_MAPS, {
      metadata: {
        name: r.configName ?? repoConfigName(git, branch),
        namespace,
        labels: { app: labelValue(git.repo), group: "pipeline", type: "git" },
      },
      data: {
        url: git.url,
        host: git.host,
        org: git.org,
        owner: git.org,
        repo: git.repo,
        branch,
        protocol: git.protocol,
      },
    }),
  );
  if (r.secret) {
    let existing = r.stored ?? null;
    if (existing && existing.type !== r.secret.type) {
      // The type of a Secret cannot change: replacing it means deleting it first.
      await client.delete(SECRETS, namespace, GIT_SECRET_NAME);
      existing = null;
    }
    results.push(await applyObject(client, SECRETS, r.secret, { existing }));
  } else if (r.stored) {
    results.push({
      outcome: "unchanged",
      type: SECRETS,
      namespace,
      name: GIT_SECRET_NAME,
      object: r.stored,
    });
  }
  return results;
}
