/**
 * GitHub and GitHub Enterprise (the same REST API; GHE serves it under `/api/v3`): repository
 * (`default_branch`), a branch (`commit.sha`: its head), recursive git tree, contents, and repository webhooks (`name: web`,
 * `events: [push]`, `config: {url, content_type: json, secret}`), with a bearer token.
 *
 * @module
 */
import { decodeBase64Text } from "../base64.ts";
import type { GitHost, PushHookSpec } from "./host.ts";
import { GitHostHttp, type GitHostHttpOptions, objectField } from "./http.ts";
import { CONFIG_HOOKS, type ConfigHook, restHooks } from "./rest_hooks.ts";
import type { GitUrl } from "./url.ts";

/** The API base of a GitHub repository: api.github.com, or `<host>/api/v3` for GHE. */
export function githubApiBase(git: GitUrl, enterprise: boolean): string {
  return enterprise ? `${git.protocol}://${git.host}/api/v3` : "https://api.github.com";
}

/** A repository on GitHub (or GitHub Enterprise with `enterprise`). */
export function githubHost(
  git: GitUrl,
  token: string,
  enterprise: boolean,
  http: Partial<GitHostHttpOptions> = {},
): GitHost {
  const api = new GitHostHttp({
    baseUrl: githubApiBase(git, enterprise),
    host: git.host,
    repository: `${git.org}/${git.repo}`,
    headers: {
      Authorization: `Bearer ${token}`,
      Accept: "application/vnd.github+json",
      "X-GitHub-Api-Version": "2022-11-28",
      "User-Agent": "toolkit",
    },
    authHint: "give -P a personal access token with the repo and admin:repo_hook scopes",
    ...http,
  });
  const repo = `/repos/${git.org}/${encodeURIComponent(git.repo)}`;
  const body = (spec: PushHookSpec) => ({
    name: "web",
    active: true,
    events: ["push"],
    config: { url: spec.url, content_type: "json", insecure_ssl: "0", secret: spec.secret },
  });
  const hooks = () => api.pages<ConfigHook>(`${repo}/hooks?per_page=100`, "list the webhooks");
  return {
    flavour: enterprise ? "ghe" : "github",
    async defaultBranch() {
      const { body } = await api.request<{ default_branch: string }>("GET", repo, "read it");
      return body.default_branch;
    },
    branchHead: (branch) =>
      api.branchHead(
        `${repo}/branches/${encodeURIComponent(branch)}`,
        branch,
        (b) => objectField(b, "commit")?.sha,
      ),
    async listFiles(branch) {
      const { body } = await api.request<{ tree: { path: string; type: string }[] }>(
        "GET",
        `${repo}/git/trees/${encodeURIComponent(branch)}?recursive=1`,
        `read the files of branch ${branch}`,
      );
      return body.tree.filter((e) => e.type === "blob").map((e) => e.path).sort();
    },
    async readFile(branch, path) {
      const { status, body } = await api.request<{ content?: string; encoding?: string }>(
        "GET",
        `${repo}/contents/${path.split("/").map(encodeURIComponent).join("/")}?ref=${
          encodeURIComponent(branch)
        }`,
        `read ${path}`,
        { accept: [404] },
      );
      if (status === 404 || typeof body.content !== "string") return undefined;
      return body.encoding === "base64"
        ? decodeBase64Text(body.content.replace(/\n/g, ""))
        : body.content;
    },
    ...restHooks(api, {
      ...CONFIG_HOOKS,
      path: `${repo}/hooks`,
      list: hooks,
      createBody: body,
      updateMethod: "PATCH",
    }),
    close: () => api.close(),
  };
}
