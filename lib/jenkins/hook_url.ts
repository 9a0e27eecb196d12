/**
 * Where a git host's push webhook must point for Jenkins to build: the endpoint of the Jenkins
 * plugin that handles that host's deliveries.
 *
 * - GitHub and GitHub Enterprise: the GitHub plugin, `<jenkins>/github-webhook/` (it builds every
 *   job whose repository matches; the hook's secret is checked when Jenkins has it as a GitHub
 *   "shared secret").
 * - GitLab: the GitLab plugin, `<jenkins>/project/<folder>/<job>` (the job's own endpoint; the hook's
 *   secret token is the job's `secretToken`). igc could not name the job: `/project/undefined`.
 * - Bitbucket Cloud: the Bitbucket plugin, `<jenkins>/bitbucket-hook/`.
 * - Gitea: the Gitea plugin, `<jenkins>/gitea-webhook/post`.
 * - Gogs: the Generic Webhook Trigger plugin, `<jenkins>/generic-webhook-trigger/invoke?token=`
 *   with the job's token (the secret).
 *
 * @module
 */
import type { GitFlavour } from "../githost/mod.ts";

/** A job inside a folder (`<namespace>/<name>`), as Jenkins paths name it. */
export interface JenkinsJobRef {
  readonly folder?: string | undefined;
  readonly name: string;
}

/** The job's path below Jenkins' URL: `job/<folder>/job/<name>`. */
export function jobPath(job: JenkinsJobRef): string {
  const parts = job.folder ? [job.folder, job.name] : [job.name];
  return parts.map((p) => `job/${encodeURIComponent(p)}`).join("/");
}

/** Whether the flavour's Jenkins endpoint is per job (and so needs `--jobName`). */
export function hookNeedsJob(flavour: GitFlavour): boolean {
  return flavour === "gitlab";
}

/**
 * The URL a `flavour` host's push webhook points at for the Jenkins at `jenkinsUrl` (for GitLab the
 * job's endpoint; for Gogs the generic trigger with `secret` as its token). The Gogs URL holds the
 * secret: never print or log it.
 */
export function jenkinsHookUrl(
  flavour: GitFlavour,
  jenkinsUrl: string,
  job: JenkinsJobRef | undefined,
  secret: string,
): string {
  const base = jenkinsUrl.replace(/\/+$/, "");
  switch (flavour) {
    case "github":
    case "ghe":
      return `${base}/github-webhook/`;
    case "gitlab": {
      if (!job) throw new Error("a GitLab hook for Jenkins needs the job");
      const parts = job.folder ? [job.folder, job.name] : [job.name];
      return `${base}/project/${parts.map(encodeURIComponent).join("/")}`;
    }
    case "bitbucket":
      return `${base}/bitbucket-hook/`;
    case "gitea":
      return `${base}/gitea-webhook/post`;
    case "gogs":
      return `${base}/generic-webhook-trigger/invoke?token=${encodeURIComponent(secret)}`;
  }
}
