/**
 * The developer commands of the toolkit CLI (issue 6): `sync`, `pull-secret`, `git-secret`,
 * `gitops`, `tool-config`, `credentials`, `endpoints`, `dashboard`, `console` and `git`, each in
 * its own file that `cli/commands.ts` imports only when the command runs, and the helpers they
 * share (arguments and cluster connection, pull secrets, git remotes, the browser, prompts,
 * data output, values files).
 *
 * @module
 */
export { run as runConsole } from "./console.ts";
export { run as runCredentials } from "./credentials.ts";
export { run as runDashboard } from "./dashboard.ts";
export { run as runEndpoints } from "./endpoints.ts";
export { run as runGit } from "./git.ts";
export { run as runGitSecret, runGitops } from "./git_secret.ts";
export { run as runPullSecret } from "./pull_secret.ts";
export { run as runSync } from "./sync.ts";
export { run as runToolConfig } from "./tool_config.ts";
export * from "./browser.ts";
export * from "./common.ts";
export * from "./prompt.ts";
export * from "./pull_secrets.ts";
export * from "./values_file.ts";
export {
  collectCredentials,
  CREDENTIAL_SELECTORS,
  EXCLUDED_CONFIG_MAPS,
  EXCLUDED_SECRETS,
  type ToolCredentials,
} from "./credentials.ts";
export { collectEndpoints, type Endpoint, ingressUrls, routeUrl } from "./endpoints.ts";
export { DASHBOARD_NAMES, DashboardNotFoundError, findDashboardUrl } from "./dashboard.ts";
export { ConsoleNotFoundError, DASHBOARD_SERVICES, findConsoleUrl } from "./console.ts";
export {
  GIT_SECRET_NAME,
  GitCredentialsConflictError,
  GITOPS_CONFIG_NAME,
  gitSecret,
  normalizeName,
  repoConfigName,
} from "./git_secret.ts";
export { DEVELOPMENT_LABEL } from "./pull_secret.ts";
export { NamespaceUnavailableError, SYNC_SELECTOR } from "./sync.ts";
export { toolKeyPrefix, toolLabels, toolName } from "./tool_config.ts";
