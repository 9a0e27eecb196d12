/**
 * STAND-INS for the hosted git APIs that cannot run here, for tests: GitHub (and GitHub
 * Enterprise under `/api/v3`), GitLab (v4), Bitbucket Cloud (2.0), and Gogs (v1; Gogs is open
 * source, but the Go module proxy this machine reaches answers 403 for `gogs.io/gogs` and
 * `github.com/gogs/gogs`, so it cannot be built here). Each follows its host's public REST
 * documentation for the calls toolkit makes — paths, authentication headers, status codes, error
 * bodies and the paging of hook lists:
 *
 * - GitHub (docs.github.com/rest: repos, branches, git/trees, contents, repos/hooks): `Authorization:
 *   Bearer|token`; 401 `{"message":"Bad credentials"}`; 404 `{"message":"Not Found"}` (a branch:
 *   `{"message":"Branch not found"}`); a branch's head is `commit.sha`; hooks paged
 *   by `per_page`/`page` with a `Link: rel="next"` header; a second hook to the same URL is refused
 *   with 422 "Hook already exists on this repository"; secrets come back masked. GHE adds
 *   `X-GitHub-Enterprise-Version` to every answer and serves `/api/v3/meta`.
 * - GitLab (docs.gitlab.com/api: projects, branches, repository tree and files, project hooks,
 *   version): `Private-Token`; 401 `{"message":"401 Unauthorized"}`; projects and branches by
 *   URL-encoded path (a branch's head is `commit.id`; none: `{"message":"404 Branch Not Found"}`); lists
 *   paged with `Link` and `X-Next-Page`; the hook's `token` is never returned.
 * - Bitbucket Cloud (developer.atlassian.com/cloud/bitbucket/rest: repositories, refs/branches, src,
 *   hooks): Basic authentication with an app password; a branch's head is `target.hash`; errors as
 *   `{"type":"error","error":{"message":…}}` (a missing branch: 404 in that shape); lists
 *   as `{values, pagelen, next}`; hooks by `{uuid}`.
 * - Gogs (github.com/gogs/docs-api: repos, branches, contents, raw, hooks): Basic or `token`
 *   authentication; a branch's head is `commit.id` (a missing branch: 404 with no body);
 *   no `/api/v1/settings/api` and no `/api/v1/version` (Gitea's), which is how toolkit tells them
 *   apart.
 *
 * Every stand-in keeps one repository in memory and records the requests it received.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { encodeBase64 } from "../../lib/base64.ts";

/** A request a stand-in received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/** The repository a stand-in serves. */
export interface StandInRepository {
  /** `owner/repo` (GitLab: `group/sub/repo`). */
  readonly path: string;
  readonly defaultBranch: string;
  /** Files of the default branch, by path. */
  readonly files: Readonly<Record<string, string>>;
  /** The commit the default branch points to (default: a SHA-1 of the files). */
  readonly head?: string;
}

/** A stored hook: the stand-in's own record (secret included, which the API never shows). */
export interface StoredHook {
  id: number;
  url: string;
  events: string[];
  active: boolean;
  contentType?: string;
  secret?: string;
}

/** A running stand-in. */
export interface HostedGit extends AsyncDisposable {
  /** The origin (`http://127.0.0.1:PORT`): repository URLs are `<origin>/<path>`. */
  readonly origin: string;
  /** The API base URL for `apiBaseUrl`. */
  readonly apiBaseUrl: string;
  /** The commit the default branch points to (its only branch). */
  readonly head: string;
  readonly hooks: StoredHook[];
  readonly requests: RecordedRequest[];
}

/** Which host to stand in for. */
export type HostedKind = "github" | "ghe" | "gitlab" | "bitbucket" | "gogs";

/** How many hooks a page holds, small so that paging is exercised. */
const PAGE = 2;

type Handler = (
  req: Request,
  url: URL,
  body: unknown,
) => Response | Promise<Response>;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

function page<T>(items: readonly T[], url: URL, sizeParam: string, pageParam: string) {
  const size = Math.min(Number(url.searchParams.get(sizeParam) ?? PAGE), PAGE) || PAGE;
  const number = Number(url.searchParams.get(pageParam) ?? 1) || 1;
  const slice = items.slice((number - 1) * size, number * size);
  const hasNext = number * size < items.length;
  const next = new URL(url);
  next.searchParams.set(pageParam, String(number + 1));
  return { slice, hasNext, next: next.href, number };
}

/** Starts a stand-in of `kind` serving `repository` to whoever has `token` (and `username`). */
export function startHostedGit(
  kind: HostedKind,
  repository: StandInRepository,
  credentials: { username: string; token: string },
): HostedGit {
  const hooks: StoredHook[] = [];
  const requests: RecordedRequest[] = [];
  let nextId = 1;
  const files = Object.keys(repository.files).sort();
  const basic = `Basic ${btoa(`${credentials.username}:${credentials.token}`)}`;
  let origin = "";
  const head = repository.head ??
    createHash("sha1").update(JSON.stringify(repository.files)).digest("hex");
  /** The branch a request's path names (as the host decodes it), when it is the one branch. */
  const isBranch = (encoded: string) => {
    try {
      return decodeURIComponent(encoded) === repository.defaultBranch;
    } catch {
      return false;
    }
  };

  const handlers: Record<HostedKind, Handler> = {
    github: (req, url, body) => github(req, url, body, ""),
    ghe: (req, url, body) => github(req, url, body, "/api/v3"),
    gitlab,
    bitbucket,
    gogs,
  };

  function github(req: Request, url: URL, body: unknown, prefix: string): Response {
    const ghe = prefix !== "";
    const extra: Record<string, string> = ghe ? { "X-GitHub-Enterprise-Version": "3.14.2" } : {};
    const answer = (status: number, b: unknown, h: Record<string, string> = {}) =>
      json(status, b, { ...extra, ...h });
    if (!url.pathname.startsWith(prefix)) return answer(404, { message: "Not Found" });
    const path = url.pathname.slice(prefix.length);
    if (ghe && path === "/meta") {
      return answer(200, { verifiable_password_authentication: true, installed_version: "3.14.2" });
    }
    const auth = req.headers.get("authorization") ?? "";
    if (auth !== `Bearer ${credentials.token}` && auth !== `token ${credentials.token}`) {
      return answer(401, {
        message: "Bad credentials",
        documentation_url: "https://docs.github.com/rest",
        status: "401",
      });
    }
    const repo = `/repos/${repository.path}`;
    const hookJson = (h: StoredHook) => ({
      type: "Repository",
      id: h.id,
      name: "web",
      active: h.active,
      events: h.events,
      config: {
        url: h.url,
        content_type: h.contentType,
        insecure_ssl: "0",
        ...(h.secret ? { secret: "********" } : {}),
      },
    });
    if (!path.startsWith(repo)) return answer(404, { message: "Not Found" });
    const rest = path.slice(repo.length);
    if (req.method === "GET" && rest === "") {
      return answer(200, {
        full_name: repository.path,
        default_branch: repository.defaultBranch,
        clone_url: `${origin}/${repository.path}.git`,
      });
    }
    if (req.method === "GET" && rest.startsWith("/branches/")) {
      if (!isBranch(rest.slice("/branches/".length))) {
        return answer(404, {
          message: "Branch not found",
          documentation_url: "https://docs.github.com/rest/branches/branches#get-a-branch",
          status: "404",
        });
      }
      return answer(200, {
        name: repository.defaultBranch,
        commit: {
          sha: head,
          url: `${origin}${prefix}${repo}/commits/${head}`,
          commit: { message: "Initial commit", tree: { sha: "0".repeat(40) } },
          parents: [],
        },
        protected: false,
      });
    }
    if (req.method === "GET" && rest === `/git/trees/${repository.defaultBranch}`) {
      const dirs = new Set(
        files.flatMap((f) =>
          f.split("/").slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join("/"))
        ),
      );
      return answer(200, {
        sha: "0".repeat(40),
        truncated: false,
        tree: [
          ...[...dirs].map((d) => ({ path: d, type: "tree" })),
          ...files.map((f) => ({ path: f, type: "blob" })),
        ],
      });
    }
    if (req.method === "GET" && rest.startsWith("/contents/")) {
      const file = decodeURIComponent(rest.slice("/contents/".length));
      const text = repository.files[file];
      if (text === undefined) return answer(404, { message: "Not Found" });
      return answer(200, {
        type: "file",
        path: file,
        encoding: "base64",
        content: encodeBase64(text),
      });
    }
    if (rest === "/hooks" && req.method === "GET") {
      const p = page(hooks, url, "per_page", "page");
      return answer(
        200,
        p.slice.map(hookJson),
        p.hasNext ? { Link: `<${p.next}>; rel="next"` } : {},
      );
    }
    if (rest === "/hooks" && req.method === "POST") {
      const b = body as {
        config?: { url?: string; content_type?: string; secret?: string };
        events?: string[];
        active?: boolean;
      };
      if (hooks.some((h) => h.url === b.config?.url)) {
        return answer(422, {
          message: "Validation Failed",
          errors: [{
            resource: "Hook",
            code: "custom",
            message: "Hook already exists on this repository",
          }],
        });
      }
      const hook: StoredHook = {
        id: nextId++,
        url: b.config?.url ?? "",
        events: b.events ?? ["push"],
        active: b.active ?? true,
        ...(b.config?.content_type ? { contentType: b.config.content_type } : {}),
        ...(b.config?.secret ? { secret: b.config.secret } : {}),
      };
      hooks.push(hook);
      return answer(201, hookJson(hook));
    }
    const m = /^\/hooks\/(\d+)$/.exec(rest);
    if (m && req.method === "PATCH") {
      const hook = hooks.find((h) => h.id === Number(m[1]));
      if (!hook) return answer(404, { message: "Not Found" });
      const b = body as {
        config?: { url?: string; content_type?: string; secret?: string };
        events?: string[];
        active?: boolean;
      };
      if (b.config?.url) hook.url = b.config.url;
      if (b.config?.content_type) hook.contentType = b.config.content_type;
      if (b.config?.secret) hook.secret = b.config.secret;
      if (b.events) hook.events = b.events;
      if (b.active !== undefined) hook.active = b.active;
      return answer(200, hookJson(hook));
    }
    return answer(404, { message: "Not Found" });
  }

  function gitlab(req: Request, url: URL, body: unknown): Response {
    const path = url.pathname;
    if (!path.startsWith("/api/v4/")) return new Response("Not Found", { status: 404 });
    if (req.headers.get("private-token") !== credentials.token) {
      return json(401, { message: "401 Unauthorized" });
    }
    if (path === "/api/v4/version") return json(200, { version: "17.5.1", revision: "abc123" });
    const project = `/api/v4/projects/${encodeURIComponent(repository.path)}`;
    // The pathname keeps the %2F of the project's path.
    if (!path.startsWith(project)) return json(404, { message: "404 Project Not Found" });
    const rest = path.slice(project.length);
    const hookJson = (h: StoredHook) => ({
      id: h.id,
      url: h.url,
      push_events: h.events.includes("push"),
      enable_ssl_verification: h.url.startsWith("https:"),
      created_at: "2026-11-24T00:00:00Z",
    });
    if (req.method === "GET" && rest === "") {
      return json(200, {
        id: 42,
        path_with_namespace: repository.path,
        default_branch: repository.defaultBranch,
      });
    }
    const branch = /^\/repository\/branches\/(.+)$/.exec(rest);
    if (req.method === "GET" && branch) {
      // The branch is one URL-encoded path segment (its slashes as %2F).
      if (branch[1]!.includes("/") || !isBranch(branch[1]!)) {
        return json(404, { message: "404 Branch Not Found" });
      }
      return json(200, {
        name: repository.defaultBranch,
        merged: false,
        protected: true,
        default: true,
        commit: {
          id: head,
          short_id: head.slice(0, 8),
          title: "Initial commit",
          message: "Initial commit\n",
          parent_ids: [],
        },
      });
    }
    if (req.method === "GET" && rest === "/repository/tree") {
      const entries = files.map((f) => ({
        id: f,
        name: f.split("/").at(-1),
        type: "blob",
        path: f,
        mode: "100644",
      }));
      const p = page(entries, url, "per_page", "page");
      return json(
        200,
        p.slice,
        p.hasNext
          ? { Link: `<${p.next}>; rel="next"`, "X-Next-Page": String(p.number + 1) }
          : { "X-Next-Page": "" },
      );
    }
    const file = /^\/repository\/files\/([^/]+)\/raw$/.exec(rest);
    if (req.method === "GET" && file) {
      const text = repository.files[decodeURIComponent(file[1]!)];
      return text === undefined ? json(404, { message: "404 File Not Found" }) : new Response(text);
    }
    if (rest === "/hooks" && req.method === "GET") {
      const p = page(hooks, url, "per_page", "page");
      return json(200, p.slice.map(hookJson), p.hasNext ? { Link: `<${p.next}>; rel="next"` } : {});
    }
    const b = body as { url?: string; token?: string; push_events?: boolean };
    if (rest === "/hooks" && req.method === "POST") {
      if (!b.url) return json(400, { error: "url is missing" });
      const hook: StoredHook = {
        id: nextId++,
        url: b.url,
        events: b.push_events ? ["push"] : [],
        active: true,
        ...(b.token ? { secret: b.token } : {}),
      };
      hooks.push(hook);
      return json(201, hookJson(hook));
    }
    const m = /^\/hooks\/(\d+)$/.exec(rest);
    if (m && req.method === "PUT") {
      const hook = hooks.find((h) => h.id === Number(m[1]));
      if (!hook) return json(404, { message: "404 Not found" });
      if (b.url) hook.url = b.url;
      if (b.token) hook.secret = b.token;
      if (b.push_events !== undefined) hook.events = b.push_events ? ["push"] : [];
      return json(200, hookJson(hook));
    }
    return json(404, { message: "404 Not Found" });
  }

  function bitbucket(req: Request, url: URL, body: unknown): Response {
    const error = (status: number, message: string) =>
      json(status, { type: "error", error: { message } });
    if (req.headers.get("authorization") !== basic) return error(401, "Unauthorized");
    const repo = `/2.0/repositories/${repository.path}`;
    if (!url.pathname.startsWith(repo)) return error(404, `Repository ${url.pathname} not found`);
    const rest = url.pathname.slice(repo.length);
    const uuid = (h: StoredHook) => `{00000000-0000-4000-8000-${String(h.id).padStart(12, "0")}}`;
    const hookJson = (h: StoredHook) => ({
      type: "webhook_subscription",
      uuid: uuid(h),
      url: h.url,
      description: "toolkit",
      subject_type: "repository",
      active: h.active,
      events: h.events,
      secret_set: Boolean(h.secret),
    });
    if (req.method === "GET" && rest === "") {
      return json(200, {
        full_name: repository.path,
        mainbranch: { type: "branch", name: repository.defaultBranch },
      });
    }
    if (req.method === "GET" && rest.startsWith("/refs/branches/")) {
      if (!isBranch(rest.slice("/refs/branches/".length))) return error(404, "Branch not found");
      return json(200, {
        type: "branch",
        name: repository.defaultBranch,
        target: {
          type: "commit",
          hash: head,
          message: "Initial commit\n",
          parents: [],
        },
      });
    }
    if (req.method === "GET" && rest === `/src/${repository.defaultBranch}/`) {
      const values = files.map((f) => ({ type: "commit_file", path: f }));
      const p = page(values, url, "pagelen", "page");
      return json(200, {
        values: p.slice,
        pagelen: PAGE,
        page: p.number,
        ...(p.hasNext ? { next: p.next } : {}),
      });
    }
    if (req.method === "GET" && rest.startsWith(`/src/${repository.defaultBranch}/`)) {
      const text = repository
        .files[decodeURIComponent(rest.slice(`/src/${repository.defaultBranch}/`.length))];
      return text === undefined ? error(404, "No such file") : new Response(text);
    }
    if (rest === "/hooks" && req.method === "GET") {
      const p = page(hooks, url, "pagelen", "page");
      return json(200, {
        values: p.slice.map(hookJson),
        pagelen: PAGE,
        size: hooks.length,
        page: p.number,
        ...(p.hasNext ? { next: p.next } : {}),
      });
    }
    const b = body as { url?: string; events?: string[]; active?: boolean; secret?: string };
    if (rest === "/hooks" && req.method === "POST") {
      if (!b.url || !b.events?.length) return error(400, "url and events are required");
      const hook: StoredHook = {
        id: nextId++,
        url: b.url,
        events: b.events,
        active: b.active ?? true,
        ...(b.secret ? { secret: b.secret } : {}),
      };
      hooks.push(hook);
      return json(201, hookJson(hook));
    }
    const m = /^\/hooks\/(.+)$/.exec(rest);
    if (m && req.method === "PUT") {
      const hook = hooks.find((h) => uuid(h) === decodeURIComponent(m[1]!));
      if (!hook) return error(404, "Webhook not found");
      if (b.url) hook.url = b.url;
      if (b.events) hook.events = b.events;
      if (b.secret) hook.secret = b.secret;
      if (b.active !== undefined) hook.active = b.active;
      return json(200, hookJson(hook));
    }
    return error(404, "Resource not found");
  }

  function gogs(req: Request, url: URL, body: unknown): Response {
    const path = url.pathname;
    if (!path.startsWith("/api/v1/repos/")) {
      return new Response("404 page not found", { status: 404 });
    }
    const auth = req.headers.get("authorization");
    if (auth !== basic && auth !== `token ${credentials.token}`) {
      return new Response("", { status: 401 });
    }
    const repo = `/api/v1/repos/${repository.path}`;
    if (!path.startsWith(repo)) return json(404, { message: "Not Found" });
    const rest = path.slice(repo.length);
    const hookJson = (h: StoredHook) => ({
      id: h.id,
      type: "gogs",
      config: { url: h.url, content_type: h.contentType ?? "json" },
      events: h.events,
      active: h.active,
      updated_at: "2026-11-24T00:00:00Z",
      created_at: "2026-11-24T00:00:00Z",
    });
    if (req.method === "GET" && rest === "") {
      return json(200, {
        id: 7,
        full_name: repository.path,
        clone_url: `${origin}/${repository.path}.git`,
        html_url: `${origin}/${repository.path}`,
        default_branch: repository.defaultBranch,
      });
    }
    if (req.method === "GET" && rest.startsWith("/branches/")) {
      if (!isBranch(rest.slice("/branches/".length))) return new Response(null, { status: 404 });
      return json(200, {
        name: repository.defaultBranch,
        commit: {
          id: head,
          message: "Initial commit\n",
          url: `${origin}/${repository.path}/commit/${head}`,
          timestamp: "2026-11-24T00:00:00Z",
        },
      });
    }
    const contents = /^\/contents\/?(.*)$/.exec(rest);
    if (req.method === "GET" && contents) {
      const dir = decodeURIComponent(contents[1] ?? "").replace(/\/$/, "");
      const prefix = dir ? `${dir}/` : "";
      const inside = files.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));
      const names = new Map<string, "file" | "dir">();
      for (const f of inside) {
        const [first, ...more] = f.split("/");
        names.set(first!, more.length ? "dir" : "file");
      }
      return json(
        200,
        [...names].map(([name, type]) => ({ type, name, path: `${prefix}${name}` })),
      );
    }
    const raw = new RegExp(`^/raw/${repository.defaultBranch}/(.+)$`).exec(rest);
    if (req.method === "GET" && raw) {
      const text = repository.files[decodeURIComponent(raw[1]!)];
      return text === undefined ? new Response("Not Found", { status: 404 }) : new Response(text);
    }
    if (rest === "/hooks" && req.method === "GET") return json(200, hooks.map(hookJson));
    const b = body as {
      type?: string;
      config?: { url?: string; content_type?: string; secret?: string };
      events?: string[];
      active?: boolean;
    };
    if (rest === "/hooks" && req.method === "POST") {
      if (b.type !== "gogs" || !b.config?.url) return json(422, { message: "invalid hook" });
      const hook: StoredHook = {
        id: nextId++,
        url: b.config.url,
        events: b.events ?? ["push"],
        active: b.active ?? false,
        contentType: b.config.content_type ?? "json",
        ...(b.config.secret ? { secret: b.config.secret } : {}),
      };
      hooks.push(hook);
      return json(201, hookJson(hook));
    }
    const m = /^\/hooks\/(\d+)$/.exec(rest);
    if (m && req.method === "PATCH") {
      const hook = hooks.find((h) => h.id === Number(m[1]));
      if (!hook) return json(404, { message: "Not Found" });
      if (b.config?.url) hook.url = b.config.url;
      if (b.config?.content_type) hook.contentType = b.config.content_type;
      if (b.config?.secret) hook.secret = b.config.secret;
      if (b.events) hook.events = b.events;
      if (b.active !== undefined) hook.active = b.active;
      return json(200, hookJson(hook));
    }
    return json(404, { message: "Not Found" });
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const text = await req.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // kept as text
    }
    requests.push({
      method: req.method,
      path: url.pathname,
      search: url.search,
      authorization: req.headers.get("authorization") ?? req.headers.get("private-token") ??
        undefined,
      body,
    });
    return await handlers[kind](req, url, body);
  });
  origin = `http://127.0.0.1:${server.addr.port}`;
  const apiBaseUrl = {
    github: origin,
    ghe: `${origin}/api/v3`,
    gitlab: `${origin}/api/v4`,
    bitbucket: `${origin}/2.0`,
    gogs: `${origin}/api/v1`,
  }[kind];
  return {
    origin,
    apiBaseUrl,
    head,
    hooks,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
