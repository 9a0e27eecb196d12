/**
 * From a repository URL to the repository on its host: the flavour is the one the user named
 * (`--git-host-type`), else known by the host name (github.com, gitlab.com, bitbucket.org), else
 * found by authenticated probes made at once: GitHub Enterprise answers `/api/v3/meta` (with its
 * `X-GitHub-Enterprise-Version` header), GitLab `/api/v4/version` (or a GitLab 401 there, with
 * its JSON body; igc's `/api/v4/projects` probe failed on self-hosted GitLabs that list no
 * public project), Gitea `/api/v1/settings/api`, and Gogs, which has none of these, its
 * `/api/v1/repos/<owner>/<repo>`.
 *
 * @module
 */
import { basicAuthorization } from "../base64.ts";
import { bitbucketHost } from "./bitbucket.ts";
import { GitHostUnreachableError, UnknownGitHostError } from "./errors.ts";
import type { GitFlavour } from "./flavour.ts";
import { giteaHost } from "./gitea.ts";
import { githubHost } from "./github.ts";
import { gitlabHost } from "./gitlab.ts";
import type { GitHost } from "./host.ts";
import type { FetchFunction } from "./http.ts";
import { timedFetch, timeoutOr } from "../fetch.ts";
import { jsonLimitsForLength, parseJsonWithin } from "../json_shape.ts";
import type { GitUrl } from "./url.ts";

/** How to reach a repository's host. */
export interface GitHostOptions {
  /** The user name and the password or token. */
  readonly credentials: { readonly username: string; readonly password: string };
  /** The flavour, when the user says it (`--git-host-type`). */
  readonly flavour?: GitFlavour | undefined;
  /** PEM CA certificates the host's certificate is checked against (`--git-ca-file`). */
  readonly caCertificates?: readonly string[] | undefined;
  /** The fetch to use (tests). */
  readonly fetch?: FetchFunction;
  /** The API base URL instead of the flavour's own (stand-ins of hosted APIs in tests). */
  readonly apiBaseUrl?: string;
  /** Per-request timeout in ms. */
  readonly timeoutMs?: number;
}

/** The flavours known by their host names. */
export const KNOWN_HOSTS: Readonly<Record<string, GitFlavour>> = {
  "github.com": "github",
  "gitlab.com": "gitlab",
  "bitbucket.org": "bitbucket",
};

async function probeJson(
  fetcher: FetchFunction,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; headers: Headers; body: unknown } | undefined> {
  const origin = url.replace(/^(https?:\/\/[^/]+).*$/, "$1");
  try {
    const response = await timedFetch(fetcher, timeoutMs, { bound: "request" })(url, { headers });
    const text = await response.text();
    let body: unknown;
    try {
      body = parseJsonWithin(text, jsonLimitsForLength(text.length, 64), "the answer");
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body };
  } catch (error) {
    throw new GitHostUnreachableError(origin, timeoutOr(error, origin, timeoutMs));
  }
}

/** The flavour of `git`'s host (see the module doc). */
export async function detectGitFlavour(git: GitUrl, options: GitHostOptions): Promise<GitFlavour> {
  if (options.flavour) return options.flavour;
  const known = KNOWN_HOSTS[git.host.toLowerCase()];
  if (known) return known;
  let client: Deno.HttpClient | undefined;
  let fetcher: FetchFunction = options.fetch ?? ((input, init) => fetch(input, init));
  if (options.caCertificates?.length) {
    client = Deno.createHttpClient({ caCerts: [...options.caCertificates] });
    const [c, base] = [client, fetcher];
    fetcher = (input, init) => base(input, { ...init, client: c });
  }
  const origin = `${git.protocol}://${git.host}`;
  const { username, password } = options.credentials;
  const basic = {
    Authorization: basicAuthorization(username, password),
    Accept: "application/json",
  };
  const timeout = options.timeoutMs ?? 15_000;
  try {
    const [ghe, gitlab, gitea, repo] = await Promise.all([
      probeJson(fetcher, `${origin}/api/v3/meta`, {
        Authorization: `Bearer ${password}`,
        Accept: "application/vnd.github+json",
      }, timeout),
      probeJson(fetcher, `${origin}/api/v4/version`, { "Private-Token": password }, timeout),
      probeJson(fetcher, `${origin}/api/v1/settings/api`, basic, timeout),
      probeJson(
        fetcher,
        `${origin}/api/v1/repos/${encodeURIComponent(git.org)}/${encodeURIComponent(git.repo)}`,
        basic,
        timeout,
      ),
    ]);
    const isObject = (b: unknown): b is Record<string, unknown> =>
      typeof b === "object" && b !== null && !Array.isArray(b);
    if (ghe?.headers.has("x-github-enterprise-version")) return "ghe";
    if (
      ghe && ghe.status === 200 && isObject(ghe.body) &&
      "verifiable_password_authentication" in ghe.body
    ) {
      return "ghe";
    }
    if (gitlab && isObject(gitlab.body)) {
      if (gitlab.status === 200 && typeof gitlab.body.version === "string") return "gitlab";
      if (gitlab.status === 401 && /401 Unauthorized/.test(String(gitlab.body.message))) {
        return "gitlab";
      }
    }
    if (gitea?.status === 200 && isObject(gitea.body) && "max_response_items" in gitea.body) {
      return "gitea";
    }
    if (repo && isObject(repo.body) && "full_name" in repo.body && "clone_url" in repo.body) {
      return "gogs";
    }
    if (repo?.status === 401 || repo?.status === 403) {
      // A Gogs that refuses the credentials still speaks its API.
      if (isObject(repo.body) || repo.status === 401) return "gogs";
    }
    throw new UnknownGitHostError(git.host);
  } finally {
    client?.close();
  }
}

/** The repository `git` on its host, of the flavour given or detected. */
export async function connectGitHost(git: GitUrl, options: GitHostOptions): Promise<GitHost> {
  const flavour = await detectGitFlavour(git, options);
  const http = {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.caCertificates ? { caCertificates: options.caCertificates } : {}),
    ...(options.apiBaseUrl ? { baseUrl: options.apiBaseUrl } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  };
  const { credentials } = options;
  switch (flavour) {
    case "github":
    case "ghe":
      return githubHost(git, credentials.password, flavour === "ghe", http);
    case "gitlab":
      return gitlabHost(git, credentials.password, http);
    case "gitea":
    case "gogs":
      return giteaHost(git, credentials, flavour === "gogs", http);
    case "bitbucket":
      return bitbucketHost(git, credentials, http);
  }
}
