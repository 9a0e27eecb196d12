/**
 * Helpers of the developer-CLI end-to-end tests: run toolkit in-process against a real API
 * server with an injected environment, read objects back with kubectl (an independent client),
 * make real git repositories, record what a browser command was asked to open, and the
 * OpenShift stand-ins that cannot run here.
 *
 * @module
 */
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { kubectlOk, type TestCluster } from "../env/cluster.ts";
import { commandContext } from "../../cli/context.ts";

/** What a toolkit run printed and returned. */
export interface RunResult {
  /** The exit status. */
  status: number;
  /** Everything written to stdout. */
  out: string;
  /** Everything written to stderr. */
  err: string;
}

/** Runs `toolkit ARGS` in-process with `env` (nothing from the test process's environment). */
export async function toolkit(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string } = {},
): Promise<RunResult> {
  const io = bufferedIO({ env, ...(options.cwd ? { cwd: options.cwd } : {}) });
  const status = await runCli(args, commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

/** A temporary directory removed at the end of the `await using` block. */
export async function tempDir(prefix = "toolkit-cli-dev-"): Promise<
  { path: string } & AsyncDisposable
> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** A copy of the cluster's admin kubeconfig in `dir` (commands may edit it). */
export async function copyKubeconfig(
  cluster: TestCluster,
  dir: string,
  name = "kubeconfig",
): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.copyFile(cluster.kubeconfigPath, path);
  return path;
}

/** Runs kubectl and fails the test when it fails. */
export const kubectl = kubectlOk;

/** Applies objects with kubectl. */
export async function apply(cluster: TestCluster, ...objects: unknown[]): Promise<void> {
  await kubectl(
    cluster,
    ["apply", "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  );
}

/** An object (or list) as kubectl prints it. */
export interface Obj {
  /** The metadata. */
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  /** ConfigMap or Secret data. */
  data?: Record<string, string>;
  /** Secret type. */
  type?: string;
  /** List items. */
  items?: Obj[];
  /** Anything else. */
  [key: string]: unknown;
}

/** Reads an object (or list) with kubectl as JSON; undefined when it does not exist. */
export async function getJson(cluster: TestCluster, args: string[]): Promise<Obj | undefined> {
  const r = await cluster.kubectl(["get", ...args, "-o", "json"]);
  if (r.code !== 0) {
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`kubectl get ${args.join(" ")} failed: ${r.stderr}`);
  }
  return JSON.parse(r.stdout);
}

/** Decodes the base64 values of a Secret's data. */
export function decodeData(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data ?? {}).map(([k, v]) => [
      k,
      new TextDecoder().decode(Uint8Array.from(atob(v), (c) => c.charCodeAt(0))),
    ]),
  );
}

export { git, gitRepo } from "../env/git_repo.ts";

/**
 * A browser command that records the URLs it is given: `BROWSER=<path>` makes toolkit run it.
 * `calls()` returns one line per argument received.
 */
export async function recordingBrowser(
  dir: string,
  name = "browser",
): Promise<{ path: string; calls(): Promise<string[]> }> {
  const log = `${dir}/${name}.log`;
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\n`,
  );
  await Deno.chmod(path, 0o755);
  return {
    path,
    async calls(): Promise<string[]> {
      try {
        return (await Deno.readTextFile(log)).split("\n").filter((l) => l !== "");
      } catch {
        return [];
      }
    },
  };
}

/**
 * Stand-ins for OpenShift's Project and ProjectRequest. They are not CRDs on OpenShift: its own
 * API server serves them, and it cannot run here. These CRDs have the real group, names and
 * scope so that toolkit's requests reach them exactly as they would reach OpenShift.
 */
export const PROJECT_STAND_IN_CRDS: unknown[] = [
  ["projects", "Project", "ProjectList"],
  ["projectrequests", "ProjectRequest", "ProjectRequestList"],
].map(([plural, kind, listKind]) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.project.openshift.io` },
  spec: {
    group: "project.openshift.io",
    scope: "Cluster",
    names: { plural, kind, listKind, singular: kind!.toLowerCase() },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    }],
  },
}));

/** Installs CRDs and waits until they are established. */
export async function installCrds(cluster: TestCluster, ...crds: unknown[]): Promise<void> {
  await apply(cluster, ...crds);
  await kubectl(cluster, ["wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"]);
}

/**
 * The stand-in for what OpenShift does with a ProjectRequest: makes its namespace. Runs until
 * the returned function is called.
 */
export function projectRequestController(cluster: TestCluster): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      const list = await getJson(cluster, ["projectrequests.project.openshift.io"]).catch(() =>
        undefined
      );
      for (const item of list?.items ?? []) {
        const name = item.metadata.name as string;
        if (!(await getJson(cluster, ["namespace", name]))) {
          await cluster.kubectl(["create", "namespace", name]);
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

/** OpenShift's `privileged` SecurityContextConstraints, as a cluster has it (for the SCC CRD). */
export const PRIVILEGED_SCC = {
  apiVersion: "security.openshift.io/v1",
  kind: "SecurityContextConstraints",
  metadata: { name: "privileged" },
  allowHostDirVolumePlugin: true,
  allowHostIPC: true,
  allowHostNetwork: true,
  allowHostPID: true,
  allowHostPorts: true,
  allowPrivilegedContainer: true,
  allowedCapabilities: ["*"],
  defaultAddCapabilities: [],
  priority: 0,
  readOnlyRootFilesystem: false,
  requiredDropCapabilities: [],
  volumes: ["*"],
  users: ["system:admin"],
  runAsUser: { type: "RunAsAny" },
  seLinuxContext: { type: "RunAsAny" },
  fsGroup: { type: "RunAsAny" },
  supplementalGroups: { type: "RunAsAny" },
};
