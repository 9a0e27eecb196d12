/**
 * Bitbucket Cloud (API 2.0, api.bitbucket.org): the repository's `mainbranch`, a branch
 * (`refs/branches/{name}`, `target.hash`: its head), the source tree
 * of a branch (`/src/<branch>/`, two levels deep, paged by `next`), raw files, and repository
 * webhooks (`events: ["repo:push"]` with a `secret`, which Bitbucket uses to sign deliveries in
 * `X-Hub-Signature`), with Basic authentication of the user and an app password or API token.
 *
 * @module
 */
import { basicAuthorization } from "../base64.ts";
import type { GitHook, GitHost, PushHookSpec } from "./host.ts";
import { GitHostHttp, type GitHostHttpOptions, objectField } from "./http.ts";
import { restHooks } from "./rest_hooks.ts";
import type { GitUrl } from "./url.ts";

interface BitbucketHook {
  uuid: string;
  url: string;
  active?: boolean;
  events?: string[];
}

interface Paged<T> {
  values?: T[];
  next?: string;
}

/** The API base of Bitbucket Cloud. */
export const BITBUCKET_API = "https://api.bitbucket.org/2.0";

/** A repository on Bitbucket Cloud (`baseUrl` for tests). */
export function bitbucketHost(
  git: GitUrl,
  credentials: { username: string; password: string },
  http: Partial<GitHostHttpOptions> = {},
): GitHost {
  const api = new GitHostHttp({
    baseUrl: BITBUCKET_API,
    host: git.host,
    repository: `${git.org}/${git.repo}`,
    headers: {
      Authorization: basicAuthorization(credentials.username, credentials.password),
      Accept: "application/json",
    },
    authHint:
      "give -u your Bitbucket user name and -P an app password with the repository and webhook permissions",
    ...http,
  });
  const repo = `/repositories/${encodeURIComponent(git.org)}/${encodeURIComponent(git.repo)}`;
  async function all<T>(path: string, action: string): Promise<T[]> {
    const items: T[] = [];
    let next: string | undefined = path;
    for (let page = 0; next && page < 100; page++) {
      const answer: { body: Paged<T> } = await api.request<Paged<T>>("GET", next, action);
      items.push(...(answer.body.values ?? []));
      next = answer.body.next;
    }
    return items;
  }
  const toHook = (h: BitbucketHook): GitHook => ({
    id: h.uuid,
    url: h.url,
    events: h.events ?? [],
  });
  const body = (spec: PushHookSpec) => ({
    description: "toolkit pipeline",
    url: spec.url,
    active: true,
    events: ["repo:push"],
    secret: spec.secret,
  });
  const hooks = () => all<BitbucketHook>(`${repo}/hooks?pagelen=100`, "list the webhooks");
  const ref = (branch: string) => encodeURIComponent(branch);
  return {
    flavour: "bitbucket",
    async defaultBranch() {
      const { body } = await api.request<{ mainbranch?: { name?: string } }>(
        "GET",
        repo,
        "read it",
      );
      return body.mainbranch?.name ?? "main";
    },
    branchHead: (branch) =>
      api.branchHead(
        `${repo}/refs/branches/${ref(branch)}`,
        branch,
        (b) => objectField(b, "target")?.hash,
      ),
    async listFiles(branch) {
      const entries = await all<{ path: string; type: string }>(
        `${repo}/src/${ref(branch)}/?max_depth=2&pagelen=100`,
        `read the files of branch ${branch}`,
      );
      return entries.filter((e) => e.type === "commit_file").map((e) => e.path).sort();
    },
    readFile: (branch, path) =>
      api.optionalText(
        `${repo}/src/${ref(branch)}/${path.split("/").map(encodeURIComponent).join("/")}`,
        `read ${path}`,
      ),
    ...restHooks(api, {
      path: `${repo}/hooks`,
      list: hooks,
      createBody: body,
      updateMethod: "PUT",
      idOf: (h) => h.uuid,
      urlOf: (h) => h.url,
      isRight: (h) => h.active !== false && (h.events?.includes("repo:push") ?? false),
      toHook,
    }),
    close: () => api.close(),
  };
}
