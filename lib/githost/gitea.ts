/**
 * Gitea and Gogs (Gogs' API, which Gitea grew from, under `/api/v1`): the repository's
 * `default_branch`, repository hooks of their own type (`type: gitea|gogs`, `events: [push]`,
 * `config: {url, content_type: json, secret}`), with Basic authentication of the user and its
 * password or token. Files: Gitea lists the recursive git tree of a branch (paged) and serves raw
 * files by ref; Gogs has no tree API, so its files are the branch's contents listing, top level and
 * one level down (what runtime detection reads).
 *
 * @module
 */
import { basicAuthorization } from "../base64.ts";
import type { GitHook, GitHost, PushHookSpec } from "./host.ts";
import { ensureHook } from "./host.ts";
import { GitHostHttp, type GitHostHttpOptions } from "./http.ts";
import type { GitUrl } from "./url.ts";

interface GiteaHook {
  id: number;
  active?: boolean;
  events?: string[];
  config?: { url?: string; content_type?: string };
}

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
  const toHook = (h: GiteaHook): GitHook => ({
    id: h.id,
    url: h.config?.url ?? "",
    events: h.events ?? [],
  });
  const body = (spec: PushHookSpec) => ({
    type: gogs ? "gogs" : "gitea",
    active: true,
    events: ["push"],
    config: { url: spec.url, content_type: "json", secret: spec.secret },
    ...(gogs ? {} : { branch_filter: "*" }),
  });
  const hooks = () => api.pages<GiteaHook>(`${repo}/hooks?limit=50`, "list the webhooks");
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
    listFiles: (branch) => (gogs ? gogsFiles(branch) : giteaFiles(branch)),
    async readFile(branch, file) {
      const { status, body } = await api.request<string>(
        "GET",
        gogs
          ? `${repo}/raw/${ref(branch)}/${path(file)}`
          : `${repo}/raw/${path(file)}?ref=${ref(branch)}`,
        `read ${file}`,
        { accept: [404], text: true },
      );
      return status === 404 ? undefined : body;
    },
    async listHooks() {
      return (await hooks()).map(toHook);
    },
    ensurePushHook: (spec) =>
      ensureHook<GiteaHook>(spec, {
        list: hooks,
        urlOf: (h) => h.config?.url ?? "",
        isRight: (h) =>
          h.active !== false && (h.events?.includes("push") ?? false) &&
          h.config?.content_type === "json",
        create: async () =>
          (await api.request<GiteaHook>("POST", `${repo}/hooks`, "create the webhook", {
            body: body(spec),
          })).body,
        update: async (h) => {
          const { type: _type, ...update } = body(spec);
          return (await api.request<GiteaHook>(
            "PATCH",
            `${repo}/hooks/${h.id}`,
            "update the webhook",
            {
              body: update,
            },
          )).body;
        },
        toHook,
      }),
    close: () => api.close(),
  };
}
