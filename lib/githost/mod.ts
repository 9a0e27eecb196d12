/**
 * The git-host layer: repository URLs, the local clone, the flavour of a host (GitHub, GitHub
 * Enterprise, GitLab, Gitea, Gogs, Bitbucket Cloud) and each flavour's API for what toolkit needs
 * of a repository: its default branch, the commit a branch points to, its files, and an
 * idempotent push webhook with a secret.
 *
 * @module
 */
export * from "./flavour.ts";
export * from "./url.ts";
export * from "./local_clone.ts";
export * from "./errors.ts";
export * from "./http.ts";
export * from "./host.ts";
export * from "./rest_hooks.ts";
export * from "./github.ts";
export * from "./gitlab.ts";
export * from "./gitea.ts";
export * from "./bitbucket.ts";
export * from "./connect.ts";
