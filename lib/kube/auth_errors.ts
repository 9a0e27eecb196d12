/**
 * Errors of authenticating to the API server: the server refused the credentials (401), or
 * they could not be obtained (an exec credential plugin that is missing, fails or prints no
 * ExecCredential; an OIDC refresh the issuer refused).
 *
 * Both extend {@linkcode NoClusterContextError}, so every caller that stops on "no usable
 * context" still stops, but their message says what happened instead. No message quotes a
 * token, a key or a plugin's output.
 *
 * @module
 */
import { NoClusterContextError } from "./errors.ts";
import type { ResolvedContext } from "./kubeconfig.ts";

/** The API server refused the credentials, or they could not be obtained. */
export class KubeAuthenticationError extends NoClusterContextError {
  /** Creates the error for `context`; `detail` says what failed. */
  constructor(context: ResolvedContext, detail: string, options?: ErrorOptions) {
    super(detail, options);
    this.name = "KubeAuthenticationError";
    this.message = `Cannot authenticate to the API server ${context.cluster.server} as user "${
      context.user.name || "(none)"
    }" of context "${context.name}": ${detail}`;
  }
}

/** The API server answered 401 Unauthorized to the context's credentials. */
export function unauthorized(context: ResolvedContext): KubeAuthenticationError {
  return new KubeAuthenticationError(
    context,
    "the server does not accept the credentials (401 Unauthorized)",
  );
}

/** An exec credential plugin is missing, failed, or printed no usable ExecCredential. */
export class ExecPluginError extends KubeAuthenticationError {
  /** The plugin's command, as the kubeconfig names it. */
  readonly command: string;
  /** The kubeconfig's `installHint`, when it has one. */
  readonly installHint: string | undefined;

  /** Creates the error; `detail` never quotes the plugin's output. */
  constructor(
    context: ResolvedContext,
    plugin: { command: string; installHint?: string | undefined },
    detail: string,
    options?: ErrorOptions,
  ) {
    const hint = plugin.installHint ? `\n${plugin.installHint.trim()}` : "";
    super(context, `the exec credential plugin "${plugin.command}" ${detail}${hint}`, options);
    this.name = "ExecPluginError";
    this.command = plugin.command;
    this.installHint = plugin.installHint;
  }
}

/**
 * The API server of a context cannot be reached: refused, reset, timed out, a name that does not
 * resolve, or a TLS handshake that fails. Still a {@linkcode NoClusterContextError} (callers that
 * stop on one keep stopping), but its message says what happened, not that the kubeconfig is
 * unusable.
 */
export class KubeUnreachableError extends NoClusterContextError {
  /** Creates the error for `context`; `why` is the network error's own words, when known. */
  constructor(context: ResolvedContext, why: string, options?: ErrorOptions) {
    // The message quotes the network error's own words: its `cause` is for debugging.
    super(`cannot reach the API server ${context.cluster.server}`, {
      ...options,
      messageTellsCause: true,
    });
    this.name = "KubeUnreachableError";
    this.message =
      `Cannot reach the API server ${context.cluster.server} of context "${context.name}"${
        why ? ` (${why})` : ""
      }; check that it runs and that this machine reaches it, or pass --kubeconfig/--context`;
  }
}
