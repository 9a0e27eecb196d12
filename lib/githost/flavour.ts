/**
 * The kinds of git host toolkit works with. One name per flavour, used everywhere a flavour is
 * chosen, detected, printed or looked up (hooks, Tekton triggers, Jenkins hook URLs).
 *
 * @module
 */

/** A kind of git host. GitHub Enterprise speaks GitHub's API under `/api/v3`. */
export type GitFlavour = "github" | "ghe" | "gitlab" | "gitea" | "gogs" | "bitbucket";

/** Every flavour, in the order `--git-host-type` lists them. */
export const GIT_FLAVOURS: readonly GitFlavour[] = [
  "github",
  "ghe",
  "gitlab",
  "gitea",
  "gogs",
  "bitbucket",
];

/** The names igc printed for each flavour (`Creating <name> webhook ...`). */
export const FLAVOUR_DISPLAY_NAMES: Readonly<Record<GitFlavour, string>> = {
  github: "GitHub",
  ghe: "GitHub Enterprise",
  gitlab: "GitLab",
  gitea: "Gitea",
  gogs: "Gogs",
  bitbucket: "Bitbucket",
};

/** Whether `value` names a flavour. */
export function isGitFlavour(value: string): value is GitFlavour {
  return (GIT_FLAVOURS as readonly string[]).includes(value);
}
