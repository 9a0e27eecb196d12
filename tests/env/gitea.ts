/**
 * A real Gitea for tests: the binary `tests/env/provision.sh` builds from Gitea's Go module (its
 * locales and templates embedded), started on a free 127.0.0.1 port in a temporary work directory (sqlite, install locked, no SSH,
 * no mailer, no indexers or cron), with an admin user and an API token made by `gitea admin user
 * create`. Its webhooks may deliver to loopback addresses, so a listener started by the test
 * receives Gitea's real push deliveries. Stopped by process id.
 *
 * @module
 */
import { freePort, type ManagedProcess, runOk, startProcess, waitFor } from "./process.ts";
import { requireTool } from "./tools.ts";

/** The admin user every test Gitea is started with. */
export const GITEA_ADMIN = { username: "toolkit-admin", password: "toolkit-admin-pass" } as const;

/** A file of a repository: its path and text content. */
export interface RepoFile {
  readonly path: string;
  readonly content: string;
}

/** A repository made by {@link TestGitea.createRepo}. */
export interface GiteaRepo {
  /** `owner/name`. */
  readonly fullName: string;
  /** `http://127.0.0.1:PORT/owner/name.git`. */
  readonly cloneUrl: string;
  /** The branch the files were committed to. */
  readonly defaultBranch: string;
}

/** A running Gitea. */
export interface TestGitea extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  /** An access token of {@link GITEA_ADMIN} with every scope. */
  readonly token: string;
  /** The work directory (app.ini, data, repositories, log). */
  readonly dir: string;
  /** The Gitea process. */
  readonly process: ManagedProcess;
  /**
   * Calls the API (`/api/v1` + `path`) with the admin token; throws with the answer unless the
   * status is 2xx. Returns the parsed JSON body (undefined when it is empty).
   */
  api(method: string, path: string, body?: unknown): Promise<unknown>;
  /** Creates a repository of the admin user with `files` in one commit on `branch`. */
  createRepo(
    name: string,
    files: readonly RepoFile[],
    options?: { branch?: string },
  ): Promise<GiteaRepo>;
  /**
   * Commits `files` on top of `branch` in a clone and pushes it with `git push` over HTTP (token
   * authentication), as a developer would, so Gitea fires its push webhooks. Returns the commit id.
   */
  pushCommit(
    repo: GiteaRepo,
    files: readonly RepoFile[],
    options?: { branch?: string; message?: string },
  ): Promise<string>;
  /** Stops Gitea and removes its work directory. */
  stop(): Promise<void>;
}

function appIni(dir: string, port: number): string {
  const root = Deno.uid() === 0;
  return [
    "APP_NAME = toolkit test",
    "RUN_MODE = prod",
    `WORK_PATH = ${dir}`,
    ...(root ? ["I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true"] : []),
    "",
    "[server]",
    "PROTOCOL = http",
    "HTTP_ADDR = 127.0.0.1",
    `HTTP_PORT = ${port}`,
    `ROOT_URL = http://127.0.0.1:${port}/`,
    `APP_DATA_PATH = ${dir}/data`,
    "DISABLE_SSH = true",
    "START_SSH_SERVER = false",
    "LFS_START_SERVER = false",
    "OFFLINE_MODE = true",
    "",
    "[database]",
    "DB_TYPE = sqlite3",
    `PATH = ${dir}/data/gitea.db`,
    "SQLITE_JOURNAL_MODE = WAL",
    "",
    "[repository]",
    `ROOT = ${dir}/repositories`,
    "DEFAULT_BRANCH = main",
    "",
    "[security]",
    "INSTALL_LOCK = true",
    // Fixed secrets: Gitea would otherwise generate them and write them back to app.ini.
    `SECRET_KEY = ${randomHex(32)}`,
    `INTERNAL_TOKEN = ${randomHex(48)}`,
    "PASSWORD_HASH_ALGO = pbkdf2_v2",
    "",
    "[oauth2]",
    "ENABLED = false",
    "",
    "[service]",
    "DISABLE_REGISTRATION = true",
    "ENABLE_NOTIFY_MAIL = false",
    "DEFAULT_KEEP_EMAIL_PRIVATE = true",
    "",
    "[mailer]",
    "ENABLED = false",
    "",
    "[webhook]",
    // Deliver to the test's own listeners on 127.0.0.1.
    "ALLOWED_HOST_LIST = loopback",
    "DELIVER_TIMEOUT = 10",
    "",
    "[queue]",
    "TYPE = channel",
    "",
    "[indexer]",
    "ISSUE_INDEXER_TYPE = db",
    "REPO_INDEXER_ENABLED = false",
    "",
    "[cron]",
    "ENABLED = false",
    "",
    "[cron.update_checker]",
    "ENABLED = false",
    "",
    "[actions]",
    "ENABLED = false",
    "",
    "[packages]",
    "ENABLED = false",
    "",
    "[picture]",
    "DISABLE_GRAVATAR = true",
    "ENABLE_FEDERATED_AVATAR = false",
    "",
    "[session]",
    "PROVIDER = memory",
    "",
    "[cache]",
    "ADAPTER = memory",
    "",
    "[log]",
    "MODE = console",
    "LEVEL = warn",
    `ROOT_PATH = ${dir}/log`,
    "",
  ].join("\n");
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)))
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Starts Gitea with an admin user and an API token. */
export async function startGitea(): Promise<TestGitea> {
  const binary = requireTool("gitea");
  const git = requireTool("git");
  const dir = await Deno.makeTempDir({ prefix: "toolkit-gitea-" });
  const config = `${dir}/app.ini`;
  const home = `${dir}/home`;
  await Deno.mkdir(home);
  // Gitea runs git itself; a HOME of its own keeps the user's git configuration out.
  const env = { HOME: home, GITEA_WORK_DIR: dir, USER: Deno.env.get("USER") ?? "root" };
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  await Deno.writeTextFile(config, appIni(dir, port));
  const cli = (args: string[]) =>
    runOk(binary, ["--config", config, "--work-path", dir, ...args], { env });

  let process: ManagedProcess | undefined;
  const stop = async () => {
    await process?.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    // The schema first, so the user can be made before the server serves anything.
    await cli(["migrate"]);
    const created = await cli([
      "admin",
      "user",
      "create",
      "--admin",
      "--username",
      GITEA_ADMIN.username,
      "--password",
      GITEA_ADMIN.password,
      "--email",
      `${GITEA_ADMIN.username}@example.invalid`,
      "--must-change-password=false",
      "--access-token",
      "--access-token-name",
      "toolkit-test",
      "--access-token-scopes",
      "all",
    ]);
    const token = created.match(/Access token was successfully created\.\.\. (\S+)/)?.[1];
    if (!token) throw new Error(`gitea admin user create printed no token: ${created.trim()}`);

    process = await startProcess(
      binary,
      ["web", "--config", config, "--work-path", dir, "--port", String(port)],
      { logFile: `${dir}/gitea.log`, env },
    );
    const started = process;
    await waitFor("Gitea", async () => {
      const response = await fetch(`${url}/api/healthz`);
      await response.body?.cancel();
      return response.status === 200;
    }, { process: started, timeoutMs: 60_000 });

    const api = async (method: string, path: string, body?: unknown): Promise<unknown> => {
      const response = await fetch(`${url}/api/v1${path}`, {
        method,
        headers: {
          Authorization: `token ${token}`,
          Accept: "application/json",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) {
        throw new Error(`Gitea ${method} ${path} answered ${response.status}: ${text.trim()}`);
      }
      return text === "" ? undefined : JSON.parse(text);
    };

    const createRepo = async (
      name: string,
      files: readonly RepoFile[],
      options: { branch?: string } = {},
    ): Promise<GiteaRepo> => {
      const branch = options.branch ?? "main";
      const repo = await api("POST", "/user/repos", {
        name,
        private: false,
        auto_init: false,
        default_branch: branch,
      }) as { full_name: string; clone_url: string };
      // One commit with every file (the contents API also works on an empty repository).
      await api("POST", `/repos/${repo.full_name}/contents`, {
        branch,
        message: "Initial commit",
        files: files.map((f) => ({
          operation: "create",
          path: f.path,
          content: base64(f.content),
        })),
      });
      return { fullName: repo.full_name, cloneUrl: repo.clone_url, defaultBranch: branch };
    };

    const pushCommit = async (
      repo: GiteaRepo,
      files: readonly RepoFile[],
      options: { branch?: string; message?: string } = {},
    ): Promise<string> => {
      const branch = options.branch ?? repo.defaultBranch;
      const work = await Deno.makeTempDir({ dir, prefix: "clone-" });
      // Token authentication in a header, so the token is in neither the URL nor a file.
      const auth = `Authorization: Basic ${base64(`${GITEA_ADMIN.username}:${token}`)}`;
      const gitEnv = {
        HOME: home,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_TERMINAL_PROMPT: "0",
        GIT_AUTHOR_NAME: "toolkit test",
        GIT_AUTHOR_EMAIL: "test@example.invalid",
        GIT_COMMITTER_NAME: "toolkit test",
        GIT_COMMITTER_EMAIL: "test@example.invalid",
      };
      const gitIn = (args: string[]) =>
        runOk(git, ["-c", `http.extraHeader=${auth}`, ...args], { env: gitEnv, cwd: work });
      try {
        await gitIn(["clone", "--quiet", "--branch", branch, repo.cloneUrl, "."]);
        for (const file of files) {
          const path = `${work}/${file.path}`;
          await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
          await Deno.writeTextFile(path, file.content);
        }
        await gitIn(["add", "--all"]);
        await gitIn(["commit", "--quiet", "-m", options.message ?? "Update"]);
        await gitIn(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`]);
        return (await gitIn(["rev-parse", "HEAD"])).trim();
      } finally {
        await Deno.remove(work, { recursive: true }).catch(() => {});
      }
    };

    return {
      url,
      token,
      dir,
      process: started,
      api,
      createRepo,
      pushCommit,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
