/**
 * Git repository URLs as toolkit reads them: remote URLs (`https://user:token@host/org/repo.git`,
 * `git@host:org/repo.git`, `ssh://git@host:2222/group/sub/repo`, with an optional `#branch`)
 * parsed into host, org, repo and the repository's web URL, credentials stripped.
 *
 * Unlike igc, `ssh://` URLs are accepted, the scheme of an `http://` repository is kept, and a
 * GitLab subgroup stays in the org (`group/sub`) instead of being folded into the repo name.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";

/** A parsed git remote URL. */
export interface GitUrl {
  /** The repository's web URL: `https://github.com/org/repo`, no credentials, no `.git`. */
  readonly url: string;
  /** `https` or `http` (ssh and git remotes are served over https). */
  readonly protocol: "https" | "http";
  /** The host, with the port for http(s) remotes: `github.com`, `git.example.com:8443`. */
  readonly host: string;
  /** The org, user or group (`group/sub` for nested GitLab groups). */
  readonly org: string;
  /** The repository name. */
  readonly repo: string;
  /** The user name embedded in the URL. */
  readonly username?: string;
  /** The password or token embedded in the URL. */
  readonly password?: string;
  /** The branch after `#`. */
  readonly branch?: string;
}

/** A string that is not a git remote URL toolkit understands. */
export class InvalidGitUrlError extends ToolkitError {
  /** Creates the error for `input`. */
  constructor(input: string, detail: string) {
    super(`Cannot parse git URL "${redact(input)}": ${detail}`);
    this.name = "InvalidGitUrlError";
  }
}

/** `input` with any `user:password@` replaced by `***@`, for messages. */
export function redact(input: string): string {
  return input.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]+@/i, "$1***@");
}

function splitPath(path: string, input: string): { org: string; repo: string } {
  const parts = path.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "").split("/").filter((p) =>
    p !== ""
  );
  if (parts.length < 2) {
    throw new InvalidGitUrlError(input, "expected a path of the form <org>/<repo>");
  }
  return { org: parts.slice(0, -1).join("/"), repo: parts.at(-1)! };
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Parses a git remote URL, optionally followed by `#branch`. */
export function parseGitUrl(input: string): GitUrl {
  const trimmed = input.trim();
  const hash = trimmed.indexOf("#");
  const raw = hash === -1 ? trimmed : trimmed.slice(0, hash);
  const branch = hash === -1 ? undefined : trimmed.slice(hash + 1) || undefined;
  const withBranch = <T extends object>(v: T) => (branch ? { ...v, branch } : v);

  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (scheme) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InvalidGitUrlError(input, "it is not a valid URL");
    }
    if (!url.hostname) throw new InvalidGitUrlError(input, "it has no host");
    const { org, repo } = splitPath(url.pathname, input);
    if (scheme === "http" || scheme === "https") {
      const host = url.host;
      return withBranch({
        url: `${scheme}://${host}/${org}/${repo}`,
        protocol: scheme,
        host,
        org,
        repo,
        ...(url.username ? { username: decode(url.username) } : {}),
        ...(url.password ? { password: decode(url.password) } : {}),
      });
    }
    if (scheme === "ssh" || scheme === "git" || scheme === "git+ssh" || scheme === "ssh+git") {
      const host = url.hostname;
      return withBranch({
        url: `https://${host}/${org}/${repo}`,
        protocol: "https",
        host,
        org,
        repo,
      });
    }
    throw new InvalidGitUrlError(input, `the scheme "${scheme}" is not supported`);
  }
  const scp = /^(?:([^@/:\s]+)@)?([^@/:\s]+):(?!\/\/)(.+)$/.exec(raw);
  if (scp) {
    const host = scp[2]!;
    const { org, repo } = splitPath(scp[3]!, input);
    return withBranch({
      url: `https://${host}/${org}/${repo}`,
      protocol: "https",
      host,
      org,
      repo,
    });
  }
  throw new InvalidGitUrlError(
    input,
    "expected https://host/org/repo, git@host:org/repo or ssh://host/org/repo",
  );
}
