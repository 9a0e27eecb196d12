/**
 * Gitea and Gogs (Gogs' API, which Gitea grew from, under `/api/v1`): the repository's
 * `default_branch`, repository hooks of their own type (`type: gitea|gogs`, `events: [push]`,
 * `config: {url, content_type: json, secret}`), with Basic authentication of the user and its
 * password or token. Files: Gitea lists the recursive git tree of a branch (paged) and serves raw
 * files by ref; Gogs has no tree API, so its files are the branch's contents listing, top level and
 * one level down (what runtime detection reads). A branch's head is `commit.id` of
 * `GET /repos/{owner}/{repo}/branches/{branch}` on both.
 *
 * @module
 */
import { basicAuthorization } from "../base64.ts";
import type { GitHost, PushHookSpec } from "./host.ts";
import { GitHostHttp, type GitHostHttpOptions, objectField } from "./http.ts";
import { CONFIG_HOOKS, type ConfigHook, restHooks } from "./rest_hooks.ts";
import type { GitUrl } from "./url.ts";

/** The API base of a Gitea or Gogs host. */
export function giteaApiBase(git: GitUrl): string {
  return `${git.protocol}://${git.host}/api/v1`;
}

/** A repository on Gitea (`gogs`: on Gogs). */
export function giteaHost(
  git: GitUrl,
  credentials: { username: string; password: string },
  gogs: boolean,
  http: Partial<GitHostHttpOptions> = {},
): GitHost {
  const api = new GitHostHttp({
    baseUrl: giteaApiBase(git),
    host: git.host,
    repository: `${git.org}/${git.repo}`,
    headers: {
      Authorization: basicAuthorization(credentials.username, credentials.password),
      Accept: "application/json",
    },
    authHint: `give -u the user and -P its password or an access token with repository rights${
      gogs ? "" : " (write:repository)"
    }`,
    ...http,
  });
  const repo = `/repos/${encodeURIComponent(git.org)}/${encodeURIComponent(git.repo)}`;
  const body = (spec: PushHookSpec) => ({
    type: gogs ? "gogs" : "gitea",
    active: true,
    events: ["push"],
    config: { url: spec.url, content_type: "json", secret: spec.secret },
    ...(gogs ? {} : { branch_filter: "*" }),
  });
  const hooks = () => api.pages<ConfigHook>(`${repo}/hooks?limit=50`, "list the webhooks");
  const ref = (branch: string) => encodeURIComponent(branch);
  const path = (p: string) => p.split("/").map(encodeURIComponent).join("/");

  async function giteaFiles(branch: string): Promise<string[]> {
    const files: string[] = [];
    for (let page = 1; page <= 50; page++) {
      const { body } = await api.request<
        { tree?: { path: string; type: string }[]; truncated?: boolean }
      >(
        "GET",
        `${repo}/git/trees/${ref(branch)}?recursive=true&per_page=1000&page=${page}`,
        `read the files of branch ${branch}`,
      );
      files.push(...(body.tree ?? []).filter((e) => e.type === "blob").map((e) => e.path));
      if (!body.truncated) break;
    }
    return files.sort();
  }

  async function gogsFiles(branch: string): Promise<string[]> {
    const list = async (dir: string) =>
      (await api.request<{ path: string; type: string }[]>(
        "GET",
        `${repo}/contents/${path(dir)}?ref=${ref(branch)}`,
        `read the files of branch ${branch}`,
      )).body;
    const top = await list("");
    const files = top.filter((e) => e.type === "file").map((e) => e.path);
    for (const dir of top.filter((e) => e.type === "dir")) {
      files.push(...(await list(dir.path)).filter((e) => e.type === "file").map((e) => e.path));
    }
    return files.sort();
  }

  return {
    flavour: gogs ? "gogs" : "gitea",
    async defaultBranch() {
      const { body } = await api.request<{ default_branch: string }>("GET", repo, "read it");
      return body.default_branch;
    },
    // Both answer `{name, commit: {id, …}}`; a branch's slashes stay path separators.
    branchHead: (branch) =>
      api.branchHead(
        `${repo}/branches/${path(branch)}`,
        branch,
        (b) => objectField(b, "commit")?.id,
      ),
    listFiles: (branch) => (gogs ? gogsFiles(branch) : giteaFiles(branch)),
    readFile: (branch, file) =>
      api.optionalText(
        gogs
          ? `${repo}/raw/${ref(branch)}/${path(file)}`
          : `${repo}/raw/${path(file)}?ref=${ref(branch)}`,
        `read ${file}`,
      ),
    ...restHooks(api, {
      ...CONFIG_HOOKS,
      path: `${repo}/hooks`,
      list: hooks,
      createBody: body,
      // The hook's type is set when it is made.
      updateBody: (spec) => {
        const { type: _type, ...update } = body(spec);
        return update;
      },
      updateMethod: "PATCH",
    }),
    close: () => api.close(),
  };
}
