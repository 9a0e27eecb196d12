/**
 * Exec credential plugins (`users[].user.exec` of a kubeconfig), as client-go runs them for
 * kubectl: `aws eks get-token`, `gke-gcloud-auth-plugin`, `kubelogin`, … print an
 * `ExecCredential` (`client.authentication.k8s.io/v1` or `v1beta1`) whose status holds a bearer
 * token or a client certificate and key.
 *
 * - The command runs with the kubeconfig's `args` and `env` added to the process environment,
 *   and `KUBERNETES_EXEC_INFO` set to an ExecCredential whose `spec` says whether it may
 *   prompt (`interactive`) and, with `provideClusterInfo: true`, the cluster it is for.
 * - `interactiveMode`: `Never` runs it with no stdin; `IfAvailable` (v1beta1's default) gives
 *   it the terminal's stdin when there is one; `Always` fails without a terminal. `v1` requires
 *   the field, as client-go does.
 * - The credential is cached until its `expirationTimestamp` (for good when it has none) and
 *   run again after it, or when the API server answers 401 ({@linkcode ExecCredentialPlugin.invalidate}).
 *   Concurrent requests share one run.
 * - A command that is missing, exits non-zero or prints no valid ExecCredential is an
 *   {@linkcode ExecPluginError} naming the command and carrying its `installHint`; it never
 *   quotes the output (it holds the token). The plugin's stderr goes to toolkit's, as kubectl
 *   does, so its prompts and messages reach the user.
 *
 * The command runs through an injected {@linkcode CommandRunner} and the clock is injected.
 *
 * @module
 */
import { encodeBase64 } from "../base64.ts";
import { parseJson } from "../errors.ts";
import { checkJsonShape } from "../json_shape.ts";
import { ExecPluginError } from "./auth_errors.ts";
import type { ResolvedContext } from "./kubeconfig.ts";

/** The ExecCredential API versions toolkit speaks (v1alpha1 left client-go in 1.24). */
export const EXEC_CREDENTIAL_VERSIONS = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
] as const;

/** One run of a plugin. */
export interface CommandRun {
  /** The command (a name looked up in `PATH`, or a path). */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Variables added to the process environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Whether it gets the terminal's stdin (`inherit`) or none (`null`). */
  readonly stdin: "inherit" | "null";
}

/** What a run printed. */
export interface CommandOutput {
  /** The exit status. */
  readonly code: number;
  /** Standard output. */
  readonly stdout: string;
}

/**
 * Runs a command and returns its exit status and stdout (stderr goes to the user). Throws
 * `Deno.errors.NotFound` when the command does not exist.
 */
export type CommandRunner = (run: CommandRun) => Promise<CommandOutput>;

/** The {@linkcode CommandRunner} that runs real processes with `Deno.Command`. */
export async function denoCommandRunner(run: CommandRun): Promise<CommandOutput> {
  const output = await new Deno.Command(run.command, {
    args: [...run.args],
    env: { ...run.env },
    stdin: run.stdin,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return { code: output.code, stdout: new TextDecoder().decode(output.stdout) };
}

/** The `exec` section of a kubeconfig user, checked. */
export interface ExecConfig {
  /** `client.authentication.k8s.io/v1` or `v1beta1`. */
  readonly apiVersion: (typeof EXEC_CREDENTIAL_VERSIONS)[number];
  /** The command (made absolute by the kubeconfig loader when it is a relative path). */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Extra environment variables. */
  readonly env: Readonly<Record<string, string>>;
  /** Shown when the command is missing. */
  readonly installHint?: string;
  /** Whether `KUBERNETES_EXEC_INFO` describes the cluster. */
  readonly provideClusterInfo: boolean;
  /** `Never`, `IfAvailable` or `Always`. */
  readonly interactiveMode: "Never" | "IfAvailable" | "Always";
}

/** What a plugin returned. */
export interface ExecCredential {
  /** A bearer token. */
  readonly token?: string;
  /** PEM client certificate (with `clientKeyData`). */
  readonly clientCertificateData?: string;
  /** PEM client key. */
  readonly clientKeyData?: string;
  /** When it expires (milliseconds since the epoch); undefined: until the server refuses it. */
  readonly expiresAt?: number;
}

/** What the plugin needs from its surroundings. */
export interface ExecPluginOptions {
  /** Runs the command. */
  readonly runner: CommandRunner;
  /** The clock, in milliseconds since the epoch. */
  readonly now: () => number;
  /** Whether stdin is a terminal (the user can answer a prompt). */
  readonly isTerminal: () => boolean;
  /** The CA of the cluster (PEM), for `provideClusterInfo`. */
  readonly clusterCa?: () => Promise<string | undefined>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks the `exec` section of a kubeconfig user. Throws {@linkcode ExecPluginError} when it is
 * not one client-go would run.
 */
export function parseExecConfig(context: ResolvedContext, raw: unknown): ExecConfig {
  const exec = isRecord(raw) ? raw : {};
  const command = typeof exec.command === "string" ? exec.command : "";
  const installHint = typeof exec.installHint === "string" ? exec.installHint : undefined;
  const plugin = { command: command || "(none)", installHint };
  const invalid = (why: string) =>
    new ExecPluginError(context, plugin, `is not configured correctly: ${why}`);
  if (!command) throw invalid("it has no command");
  const apiVersion = EXEC_CREDENTIAL_VERSIONS.find((v) => v === exec.apiVersion);
  if (!apiVersion) {
    throw invalid(
      `apiVersion must be one of ${EXEC_CREDENTIAL_VERSIONS.join(", ")}, not "${
        String(exec.apiVersion ?? "")
      }"`,
    );
  }
  const args = exec.args ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
    throw invalid("args is not a list of strings");
  }
  const env: Record<string, string> = {};
  for (const entry of Array.isArray(exec.env) ? exec.env : []) {
    if (!isRecord(entry) || typeof entry.name !== "string" || typeof entry.value !== "string") {
      throw invalid("env entries need a name and a value");
    }
    env[entry.name] = entry.value;
  }
  const mode = exec.interactiveMode ?? (apiVersion.endsWith("/v1") ? undefined : "IfAvailable");
  if (mode !== "Never" && mode !== "IfAvailable" && mode !== "Always") {
    throw invalid(
      mode === undefined
        ? `interactiveMode must be set for ${apiVersion}`
        : `interactiveMode must be Never, IfAvailable or Always`,
    );
  }
  return {
    apiVersion,
    command,
    args: args as string[],
    env,
    ...(installHint !== undefined ? { installHint } : {}),
    provideClusterInfo: exec.provideClusterInfo === true,
    interactiveMode: mode,
  };
}

/** Runs one context's exec plugin and caches what it returns. */
export class ExecCredentialPlugin {
  /** The checked configuration. */
  readonly config: ExecConfig;
  readonly #context: ResolvedContext;
  readonly #options: ExecPluginOptions;
  #cached: ExecCredential | undefined;
  #running: Promise<ExecCredential> | undefined;

  /** Checks the context's `exec` section; nothing runs yet. */
  constructor(context: ResolvedContext, options: ExecPluginOptions) {
    this.#context = context;
    this.#options = options;
    this.config = parseExecConfig(context, context.user.exec);
  }

  /** The credential: the cached one while it is valid, else a new run's. */
  credential(): Promise<ExecCredential> {
    const cached = this.#cached;
    if (cached && (cached.expiresAt === undefined || this.#options.now() < cached.expiresAt)) {
      return Promise.resolve(cached);
    }
    this.#running ??= this.#run().finally(() => this.#running = undefined);
    return this.#running;
  }

  /** Forgets the cached credential (the server refused it): the next request runs the plugin. */
  invalidate(): void {
    this.#cached = undefined;
  }

  #fail(detail: string, cause?: unknown): ExecPluginError {
    return new ExecPluginError(
      this.#context,
      this.config,
      detail,
      cause === undefined ? undefined : { cause },
    );
  }

  async #execInfo(interactive: boolean): Promise<string> {
    const spec: Record<string, unknown> = { interactive };
    if (this.config.provideClusterInfo) {
      const { cluster } = this.#context;
      const ca = await this.#options.clusterCa?.();
      spec.cluster = {
        server: cluster.server,
        ...(cluster.tlsServerName ? { "tls-server-name": cluster.tlsServerName } : {}),
        ...(cluster.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}),
        ...(ca ? { "certificate-authority-data": encodeBase64(ca) } : {}),
        ...(cluster.proxyUrl ? { "proxy-url": cluster.proxyUrl } : {}),
      };
    }
    return JSON.stringify({ apiVersion: this.config.apiVersion, kind: "ExecCredential", spec });
  }

  async #run(): Promise<ExecCredential> {
    const { config } = this;
    const terminal = this.#options.isTerminal();
    if (config.interactiveMode === "Always" && !terminal) {
      throw this.#fail("needs a terminal (interactiveMode: Always) and stdin is not one");
    }
    const interactive = terminal && config.interactiveMode !== "Never";
    let output: CommandOutput;
    try {
      output = await this.#options.runner({
        command: config.command,
        args: config.args,
        env: { ...config.env, KUBERNETES_EXEC_INFO: await this.#execInfo(interactive) },
        stdin: interactive ? "inherit" : "null",
      });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw this.#fail("is not installed (the command was not found)", error);
      }
      throw this.#fail("cannot be run", error);
    }
    if (output.code !== 0) throw this.#fail(`exited with status ${output.code}`);
    const credential = this.#parse(output.stdout);
    this.#cached = credential;
    return credential;
  }

  #parse(stdout: string): ExecCredential {
    let doc: unknown;
    try {
      // An ExecCredential: a few dozen values (its status, maybe the cluster it was asked for).
      checkJsonShape(stdout, { maxValues: 4096, maxDepth: 16 }, "the output");
      doc = parseJson(stdout);
    } catch (error) {
      throw this.#fail("printed output that is not JSON", error);
    }
    if (!isRecord(doc) || doc.kind !== "ExecCredential") {
      throw this.#fail("printed JSON that is not an ExecCredential");
    }
    if (doc.apiVersion !== this.config.apiVersion) {
      throw this.#fail(
        `printed an ExecCredential of apiVersion "${
          String(doc.apiVersion)
        }", not "${this.config.apiVersion}"`,
      );
    }
    const status = isRecord(doc.status) ? doc.status : {};
    const text = (key: string) =>
      typeof status[key] === "string" && status[key] !== "" ? status[key] : undefined;
    const token = text("token");
    const cert = text("clientCertificateData");
    const key = text("clientKeyData");
    if ((cert === undefined) !== (key === undefined)) {
      throw this.#fail(
        "printed a client certificate without its key, or a key without its certificate",
      );
    }
    if (token === undefined && cert === undefined) {
      throw this.#fail("printed an ExecCredential with neither a token nor a client certificate");
    }
    let expiresAt: number | undefined;
    const expiration = text("expirationTimestamp");
    if (expiration !== undefined) {
      expiresAt = Date.parse(expiration);
      if (Number.isNaN(expiresAt)) {
        throw this.#fail("printed an expirationTimestamp that is not an RFC 3339 time");
      }
    }
    return {
      ...(token !== undefined ? { token } : {}),
      ...(cert !== undefined && key !== undefined
        ? { clientCertificateData: cert, clientKeyData: key }
        : {}),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    };
  }
}
