/**
 * GitLab (gitlab.com and self-hosted, API v4): the project by its URL-encoded path (subgroups
 * included: `group%2Fsub%2Frepo`), its `default_branch`, a branch (URL-encoded; `commit.id`: its
 * head), the recursive repository tree, raw
 * files, and project hooks (`push_events: true`, the secret as `token`, which GitLab sends back
 * in `X-Gitlab-Token`), with a `Private-Token`.
 *
 * @module
 */
import type { GitHook, GitHost, PushHookSpec } from "./host.ts";
import { GitHostHttp, type GitHostHttpOptions, objectField } from "./http.ts";
import { restHooks } from "./rest_hooks.ts";
import type { GitUrl } from "./url.ts";

interface GitLabHook {
  id: number;
  url: string;
  push_events?: boolean;
  enable_ssl_verification?: boolean;
}

/** The API base of a GitLab repository's host. */
export function gitlabApiBase(git: GitUrl): string {
  return `${git.protocol}://${git.host}/api/v4`;
}

/** A repository on GitLab. */
export function gitlabHost(
  git: GitUrl,
  token: string,
  http: Partial<GitHostHttpOptions> = {},
): GitHost {
  const api = new GitHostHttp({
    baseUrl: gitlabApiBase(git),
    host: git.host,
    repository: `${git.org}/${git.repo}`,
    headers: { "Private-Token": token, Accept: "application/json" },
    authHint: "give -P a personal access token with the api scope (Maintainer role for hooks)",
    ...http,
  });
  const project = `/projects/${encodeURIComponent(`${git.org}/${git.repo}`)}`;
  const toHook = (h: GitLabHook): GitHook => ({
    id: h.id,
    url: h.url,
    events: h.push_events ? ["push"] : [],
  });
  const body = (spec: PushHookSpec) => ({
    url: spec.url,
    token: spec.secret,
    push_events: true,
    enable_ssl_verification: spec.url.startsWith("https:"),
  });
  const hooks = () => api.pages<GitLabHook>(`${project}/hooks?per_page=100`, "list the webhooks");
  return {
    flavour: "gitlab",
    async defaultBranch() {
      const { body } = await api.request<{ default_branch: string }>("GET", project, "read it");
      return body.default_branch;
    },
    branchHead: (branch) =>
      api.branchHead(
        `${project}/repository/branches/${encodeURIComponent(branch)}`,
        branch,
        (b) => objectField(b, "commit")?.id,
      ),
    async listFiles(branch) {
      const entries = await api.pages<{ path: string; type: string }>(
        `${project}/repository/tree?ref=${encodeURIComponent(branch)}&recursive=true&per_page=100`,
        `read the files of branch ${branch}`,
      );
      return entries.filter((e) => e.type === "blob").map((e) => e.path).sort();
    },
    readFile: (branch, path) =>
      api.optionalText(
        `${project}/repository/files/${encodeURIComponent(path)}/raw?ref=${
          encodeURIComponent(branch)
        }`,
        `read ${path}`,
      ),
    ...restHooks(api, {
      path: `${project}/hooks`,
      list: hooks,
      createBody: body,
      updateMethod: "PUT",
      idOf: (h) => h.id,
      urlOf: (h) => h.url,
      isRight: (h) => h.push_events === true,
      toHook,
    }),
    close: () => api.close(),
  };
}
