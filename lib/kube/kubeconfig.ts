/**
 * Finding, reading and merging kubeconfig files the way kubectl does, and resolving the context
 * to use:
 *
 * - files: `--kubeconfig` > `$KUBECONFIG` (a `:`-separated list; missing files are skipped) >
 *   `~/.kube/config`;
 * - several files merge by name, the first file that defines a cluster, user or context wins,
 *   and so does the first non-empty `current-context`;
 * - context: `--context` > `current-context`;
 * - relative file references (`certificate-authority`, `client-certificate`, `client-key`,
 *   `tokenFile`, an exec plugin's `command` when it is a path) are taken relative to the file
 *   that holds them.
 *
 * The environment comes in as an argument, never from `Deno.env`, so callers (and tests) choose it.
 *
 * @module
 */
import { parseYaml } from "../yaml.ts";
import { NoClusterContextError } from "./errors.ts";

/** Where to look for the kubeconfig and which context to use. */
export interface KubeconfigOptions {
  /** `--kubeconfig`: one file, which must exist. */
  readonly kubeconfig?: string | undefined;
  /** `--context`: the context to use instead of `current-context`. */
  readonly context?: string | undefined;
  /** Environment variables: `KUBECONFIG`, `HOME` (or `USERPROFILE`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory relative paths are taken from (default: the process's). */
  readonly cwd?: string;
}

/** A cluster entry of a kubeconfig, with file references made absolute. */
export interface ClusterConfig {
  /** The entry's name. */
  readonly name: string;
  /** The API server URL. */
  readonly server: string;
  /** Base64 PEM of the CA (`certificate-authority-data`). */
  readonly certificateAuthorityData?: string;
  /** Path of the CA file (`certificate-authority`). */
  readonly certificateAuthority?: string;
  /** `insecure-skip-tls-verify`. */
  readonly insecureSkipTlsVerify?: boolean;
  /** `tls-server-name`. */
  readonly tlsServerName?: string;
  /** `proxy-url`. */
  readonly proxyUrl?: string;
}

/** A user entry of a kubeconfig, with file references made absolute. */
export interface UserConfig {
  /** The entry's name ("" when the context names no user). */
  readonly name: string;
  /** Base64 PEM of the client certificate. */
  readonly clientCertificateData?: string;
  /** Path of the client certificate. */
  readonly clientCertificate?: string;
  /** Base64 PEM of the client key. */
  readonly clientKeyData?: string;
  /** Path of the client key. */
  readonly clientKey?: string;
  /** A bearer token. */
  readonly token?: string;
  /** Path of a file holding a bearer token. */
  readonly tokenFile?: string;
  /** Basic-auth user name. */
  readonly username?: string;
  /** Basic-auth password. */
  readonly password?: string;
  /**
   * An exec credential plugin, as written (checked by `exec_credential.ts`), with a relative
   * `command` path made absolute.
   */
  readonly exec?: unknown;
  /** An auth provider such as `oidc` (handled by `oidc.ts`; others by `@kubernetes/client-node`). */
  readonly authProvider?: unknown;
}

/** The context toolkit works with: its cluster, user and namespace, and where it came from. */
export interface ResolvedContext {
  /** The context's name. */
  readonly name: string;
  /** The context's namespace, when it sets one. */
  readonly namespace?: string;
  /** The cluster. */
  readonly cluster: ClusterConfig;
  /** The user (an empty entry when the context names none). */
  readonly user: UserConfig;
  /** The file that defines the context (the one to edit when its namespace changes). */
  readonly file: string;
  /** The file that defines the user (the one refreshed OIDC tokens are saved in), if any. */
  readonly userFile?: string;
  /** Every kubeconfig file that was read, in order. */
  readonly files: readonly string[];
  /**
   * A self-contained kubeconfig (YAML) of just this context, with absolute paths: for
   * `@kubernetes/client-node`, which handles exec plugins and auth providers.
   */
  readonly standalone: string;
}

type Raw = Record<string, unknown>;

interface Entry {
  readonly value: Raw;
  readonly file: string;
}

/** The merged content of the kubeconfig files. */
export interface MergedKubeconfig {
  /** The files that were read, in order. */
  readonly files: readonly string[];
  /** The first non-empty `current-context`. */
  readonly currentContext?: string;
  /** Context names, in order of appearance. */
  readonly contextNames: readonly string[];
  /** @internal Entries by kind and name. */
  readonly entries: {
    readonly clusters: ReadonlyMap<string, Entry>;
    readonly users: ReadonlyMap<string, Entry>;
    readonly contexts: ReadonlyMap<string, Entry>;
  };
}

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? (i === 0 ? "/" : ".") : path.slice(0, i);
}

function absolute(path: string, base: string): string {
  if (path.startsWith("/")) return path;
  return `${base.replace(/\/$/, "")}/${path}`;
}

function homeDir(env: KubeconfigOptions["env"]): string | undefined {
  return str(env.HOME) ?? str(env.USERPROFILE);
}

/**
 * The kubeconfig files to read, in order: `--kubeconfig`, else the entries of `$KUBECONFIG`,
 * else `~/.kube/config`.
 */
export function kubeconfigPaths(options: KubeconfigOptions): string[] {
  const cwd = options.cwd ?? Deno.cwd();
  if (options.kubeconfig) return [absolute(options.kubeconfig, cwd)];
  const list = str(options.env.KUBECONFIG);
  if (list) {
    const seen = new Set<string>();
    for (const part of list.split(":")) {
      if (part.trim() !== "") seen.add(absolute(part.trim(), cwd));
    }
    return [...seen];
  }
  const home = homeDir(options.env);
  if (!home) return [];
  return [`${home}/.kube/config`];
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new NoClusterContextError(`cannot read ${path}`, { cause: error });
  }
}

function namedList(doc: Raw, key: string, inner: string, file: string): Array<[string, Raw]> {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    throw new NoClusterContextError(`cannot parse ${file}: "${key}" is not a list`);
  }
  const out: Array<[string, Raw]> = [];
  for (const item of list) {
    if (!isRecord(item) || typeof item.name !== "string") continue;
    out.push([item.name, isRecord(item[inner]) ? item[inner] : {}]);
  }
  return out;
}

/**
 * Reads and merges the kubeconfig files. Throws {@linkcode NoClusterContextError} when there is
 * no file to read or one cannot be parsed.
 */
export async function loadKubeconfig(options: KubeconfigOptions): Promise<MergedKubeconfig> {
  const paths = kubeconfigPaths(options);
  if (paths.length === 0) {
    throw new NoClusterContextError("no kubeconfig: neither $KUBECONFIG nor $HOME is set");
  }
  const clusters = new Map<string, Entry>();
  const users = new Map<string, Entry>();
  const contexts = new Map<string, Entry>();
  const contextNames: string[] = [];
  const files: string[] = [];
  let currentContext: string | undefined;
  for (const path of paths) {
    const text = await readIfExists(path);
    if (text === undefined) {
      if (options.kubeconfig) throw new NoClusterContextError(`kubeconfig ${path} does not exist`);
      continue;
    }
    files.push(path);
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (error) {
      // An InputSyntaxError: line and column, never the line (it may hold a token or a key).
      throw new NoClusterContextError(`cannot parse ${path}`, { cause: error });
    }
    if (doc === null || doc === undefined) continue;
    if (!isRecord(doc)) throw new NoClusterContextError(`cannot parse ${path}: not a mapping`);
    currentContext ??= str(doc["current-context"]);
    for (const [name, value] of namedList(doc, "clusters", "cluster", path)) {
      if (!clusters.has(name)) clusters.set(name, { value, file: path });
    }
    for (const [name, value] of namedList(doc, "users", "user", path)) {
      if (!users.has(name)) users.set(name, { value, file: path });
    }
    for (const [name, value] of namedList(doc, "contexts", "context", path)) {
      if (!contexts.has(name)) {
        contexts.set(name, { value, file: path });
        contextNames.push(name);
      }
    }
  }
  if (files.length === 0) {
    throw new NoClusterContextError(
      paths.length === 1 ? `no kubeconfig at ${paths[0]}` : `none of ${paths.join(", ")} exists`,
    );
  }
  return {
    files,
    ...(currentContext !== undefined ? { currentContext } : {}),
    contextNames,
    entries: { clusters, users, contexts },
  };
}

function clusterConfig(name: string, entry: Entry): ClusterConfig {
  const c = entry.value;
  const base = dirname(entry.file);
  const server = str(c.server);
  if (!server) {
    throw new NoClusterContextError(`cluster "${name}" in ${entry.file} has no server`);
  }
  const ca = str(c["certificate-authority"]);
  return {
    name,
    server: server.replace(/\/+$/, ""),
    ...optional("certificateAuthorityData", str(c["certificate-authority-data"])),
    ...optional("certificateAuthority", ca && absolute(ca, base)),
    ...optional("insecureSkipTlsVerify", c["insecure-skip-tls-verify"] === true || undefined),
    ...optional("tlsServerName", str(c["tls-server-name"])),
    ...optional("proxyUrl", str(c["proxy-url"])),
  };
}

function userConfig(name: string, entry: Entry | undefined): UserConfig {
  if (!entry) return { name };
  const u = entry.value;
  const base = dirname(entry.file);
  const file = (key: string) => {
    const v = str(u[key]);
    return v && absolute(v, base);
  };
  return {
    name,
    ...optional("clientCertificateData", str(u["client-certificate-data"])),
    ...optional("clientCertificate", file("client-certificate")),
    ...optional("clientKeyData", str(u["client-key-data"])),
    ...optional("clientKey", file("client-key")),
    ...optional("token", str(u.token)),
    ...optional("tokenFile", file("tokenFile")),
    ...optional("username", str(u.username)),
    ...optional("password", str(u.password)),
    ...optional("exec", isRecord(u.exec) ? execWithCommandPath(u.exec, base) : undefined),
    ...optional("authProvider", isRecord(u["auth-provider"]) ? u["auth-provider"] : undefined),
  };
}

/**
 * The exec section with its `command` made absolute when it is a relative path (it has a `/`),
 * as client-go resolves it against the kubeconfig's directory; a bare name is looked up in PATH.
 */
function execWithCommandPath(exec: Raw, base: string): Raw {
  const command = str(exec.command);
  if (!command || !command.includes("/") || command.startsWith("/")) return exec;
  return { ...exec, command: absolute(command.replace(/^\.\//, ""), base) };
}

function optional<K extends string, V>(key: K, value: V | undefined | "" | false) {
  return (value === undefined || value === "" || value === false ? {} : { [key]: value }) as {
    [P in K]?: V;
  };
}

function withAbsolutePaths(raw: Raw, keys: readonly string[], base: string): Raw {
  const copy: Raw = { ...raw };
  for (const key of keys) {
    const v = str(copy[key]);
    if (v) copy[key] = absolute(v, base);
  }
  return copy;
}

/**
 * Picks the context (`options.context`, else `current-context`) and resolves its cluster and
 * user. Throws {@linkcode NoClusterContextError} when there is no such context or cluster.
 */
export function resolveContext(merged: MergedKubeconfig, contextName?: string): ResolvedContext {
  const where = merged.files.join(", ");
  const name = contextName ?? merged.currentContext;
  if (!name) throw new NoClusterContextError(`no current-context in ${where}`);
  const ctxEntry = merged.entries.contexts.get(name);
  if (!ctxEntry) throw new NoClusterContextError(`context "${name}" is not in ${where}`);
  const clusterName = str(ctxEntry.value.cluster);
  if (!clusterName) throw new NoClusterContextError(`context "${name}" names no cluster`);
  const clusterEntry = merged.entries.clusters.get(clusterName);
  if (!clusterEntry) {
    throw new NoClusterContextError(
      `cluster "${clusterName}" of context "${name}" is not in ${where}`,
    );
  }
  const userName = str(ctxEntry.value.user) ?? "";
  const userEntry = userName ? merged.entries.users.get(userName) : undefined;
  if (userName && !userEntry) {
    throw new NoClusterContextError(`user "${userName}" of context "${name}" is not in ${where}`);
  }
  const namespace = str(ctxEntry.value.namespace);
  const standaloneUser = userEntry
    ? withAbsolutePaths(
      userEntry.value,
      ["client-certificate", "client-key", "tokenFile"],
      dirname(userEntry.file),
    )
    : {};
  const standalone = JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{
      name: clusterName,
      cluster: withAbsolutePaths(
        clusterEntry.value,
        ["certificate-authority"],
        dirname(clusterEntry.file),
      ),
    }],
    users: [{ name: userName || "toolkit-anonymous", user: standaloneUser }],
    contexts: [{
      name,
      context: {
        cluster: clusterName,
        user: userName || "toolkit-anonymous",
        ...(namespace ? { namespace } : {}),
      },
    }],
    "current-context": name,
  });
  return {
    name,
    ...(namespace ? { namespace } : {}),
    cluster: clusterConfig(clusterName, clusterEntry),
    user: userConfig(userName, userEntry),
    file: ctxEntry.file,
    ...(userEntry ? { userFile: userEntry.file } : {}),
    files: merged.files,
    standalone,
  };
}

/** Loads the kubeconfig files and resolves the context in one step. */
export async function loadContext(options: KubeconfigOptions): Promise<ResolvedContext> {
  return resolveContext(await loadKubeconfig(options), options.context);
}
