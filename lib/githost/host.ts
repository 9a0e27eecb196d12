/**
 * A repository on a git host, whatever its flavour: its default branch, the commit a branch
 * points to, the files of a branch (for runtime detection), and its push webhooks. `ensurePushHook` is idempotent: the hook that
 * already points at the URL is kept or updated, never doubled (igc added one on every run for
 * Gitea, Gogs and GitLab), and every hook carries a secret (igc's carried none).
 *
 * @module
 */
import type { GitFlavour } from "./flavour.ts";

/** A webhook of a repository. */
export interface GitHook {
  /** The host's id of the hook (a number, or Bitbucket's `{uuid}`). */
  readonly id: string | number;
  /** Where it delivers. */
  readonly url: string;
  /** The events it is for, as the host names them. */
  readonly events: readonly string[];
}

/** What {@link GitHost.ensurePushHook} did. */
export interface HookResult {
  readonly hook: GitHook;
  readonly action: "created" | "updated" | "unchanged";
}

/** The push webhook a repository should have. */
export interface PushHookSpec {
  /** The URL the host delivers to. */
  readonly url: string;
  /** The webhook secret (the host signs with it, or sends it). */
  readonly secret: string;
  /** The secret is new: update an existing hook even when it looks right. */
  readonly secretChanged?: boolean;
}

/** A repository on a git host. */
export interface GitHost {
  /** The host's flavour. */
  readonly flavour: GitFlavour;
  /** The repository's default branch. */
  defaultBranch(): Promise<string>;
  /**
   * The commit `branch` points to now, as a full hash (what a run started from the branch
   * builds, and what its provenance names).
   *
   * @throws {GitBranchNotFoundError} when the repository has no such branch.
   */
  branchHead(branch: string): Promise<string>;
  /** The paths of the files of `branch` (`/`-separated, relative to the root). */
  listFiles(branch: string): Promise<string[]>;
  /** The text of a file of `branch`, or undefined when it is not there. */
  readFile(branch: string, path: string): Promise<string | undefined>;
  /** The repository's webhooks (every page). */
  listHooks(): Promise<GitHook[]>;
  /** Creates the push hook to `spec.url`, or updates the one that exists. */
  ensurePushHook(spec: PushHookSpec): Promise<HookResult>;
  /** Releases the HTTP client. */
  close(): void;
}

/** Query parameters that carry a hook's secret in its URL (Gogs: toolkit's and Jenkins' tokens). */
const SECRET_PARAMETERS = ["token", "toolkit-token"];

/** A hook URL without a trailing slash and without the parameters that carry its secret. */
export function hookIdentity(url: string): string {
  try {
    const u = new URL(url);
    for (const p of SECRET_PARAMETERS) u.searchParams.delete(p);
    return u.href.replace(/\/+(\?|$)/, "$1");
  } catch {
    return url.replace(/\/+$/, "");
  }
}

/**
 * The hook of `hooks` that delivers to `url`: the same URL, ignoring a trailing slash and a
 * secret carried in the query (a new secret makes no second hook).
 */
export function hookFor<T extends { url: string }>(
  hooks: readonly T[],
  url: string,
): T | undefined {
  const wanted = hookIdentity(url);
  return hooks.find((h) => hookIdentity(h.url) === wanted);
}

/** How {@link ensureHook} reads and writes one flavour's hooks. */
export interface HookOperations<H> {
  /** Every hook of the repository. */
  list(): Promise<H[]>;
  /** Where a hook delivers. */
  urlOf(hook: H): string;
  /** Whether a hook is active, for pushes, with JSON. */
  isRight(hook: H): boolean;
  /** Creates the hook. */
  create(): Promise<H>;
  /** Updates a hook. */
  update(hook: H): Promise<H>;
  /** The flavour's hook as a {@link GitHook}. */
  toHook(hook: H): GitHook;
}

/**
 * The one idempotent hook rule of every flavour: create the hook to `spec.url` when there is
 * none; keep it when it is right (and the secret did not change: hosts do not show it back);
 * update it otherwise.
 */
export async function ensureHook<H>(
  spec: PushHookSpec,
  ops: HookOperations<H>,
): Promise<HookResult> {
  const existing = hookFor((await ops.list()).map((h) => ({ h, url: ops.urlOf(h) })), spec.url)?.h;
  if (existing === undefined) return { hook: ops.toHook(await ops.create()), action: "created" };
  // Its secret is kept unless it changed (a URL that carries the secret then differs too).
  if (ops.isRight(existing) && !spec.secretChanged) {
    return { hook: ops.toHook(existing), action: "unchanged" };
  }
  return { hook: ops.toHook(await ops.update(existing)), action: "updated" };
}

/** A new webhook secret: 24 random bytes as hex. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
