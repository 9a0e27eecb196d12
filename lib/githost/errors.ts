/**
 * What goes wrong talking to a git host, each as its own error: the host refused the
 * credentials, could not be reached, does not have the repository, is of no kind toolkit knows,
 * or answered with another error. Messages name the host and what to do; they never hold a
 * token or a password.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";

/** The host refused the credentials (401) or their rights (403). */
export class GitHostAuthError extends ToolkitError {
  /** Creates the error. */
  constructor(host: string, status: number, action: string, hint: string) {
    super(
      `${host} refused to ${action} (HTTP ${status}): ${
        status === 401
          ? "the user name or token is wrong or has expired"
          : "the token lacks the rights for it"
      }; ${hint}`,
    );
    this.name = "GitHostAuthError";
  }
}

/** The host could not be reached (DNS, connection, TLS, timeout). */
export class GitHostUnreachableError extends ToolkitError {
  /** Creates the error. */
  constructor(host: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`Cannot reach the git host ${host}: ${why}`, { cause });
    this.name = "GitHostUnreachableError";
  }
}

/** The repository does not exist, or the credentials cannot see it. */
export class GitHostNotFoundError extends ToolkitError {
  /** Creates the error. */
  constructor(host: string, repository: string) {
    super(
      `${host} has no repository "${repository}" that these credentials can see: check the URL and the user's access`,
    );
    this.name = "GitHostNotFoundError";
  }
}

/**
 * The repository has no such branch (the host answered 404 for it), or the credentials cannot see
 * the repository.
 */
export class GitBranchNotFoundError extends ToolkitError {
  /** The branch asked for. */
  readonly branch: string;
  /** Creates the error. */
  constructor(host: string, repository: string, branch: string) {
    super(
      `${host} has no branch "${branch}" in repository "${repository}" that these credentials can see: check the branch (url#branch) and the user's access`,
    );
    this.name = "GitBranchNotFoundError";
    this.branch = branch;
  }
}

/** No probe said which kind of host this is. */
export class UnknownGitHostError extends ToolkitError {
  /** Creates the error. */
  constructor(host: string) {
    super(
      `Cannot tell which kind of git host ${host} is (none of GitHub Enterprise, GitLab, Gitea or Gogs answered): pass --git-host-type github|ghe|gitlab|gitea|gogs|bitbucket`,
    );
    this.name = "UnknownGitHostError";
  }
}

/** The host answered an API request with an error. */
export class GitHostApiError extends ToolkitError {
  /** The HTTP status. */
  readonly status: number;
  /** Creates the error. */
  constructor(host: string, action: string, status: number, message: string) {
    super(`${host} could not ${action} (HTTP ${status})${message ? `: ${message}` : ""}`);
    this.name = "GitHostApiError";
    this.status = status;
  }
}
