/**
 * Finds the binaries of the test environment: kube-apiserver, etcd and kubectl from
 * `$KUBEBUILDER_ASSETS` or the cache that `tests/env/provision.sh` fills; helm, gitea, Tekton
 * Triggers' eventlistenersink, interceptors, cel-eval and binding-eval, cosign, the referrers
 * registry (go-containerregistry's, `tests/env/referrers-registry/`), keyprotect-sdk (IBM's Go
 * SDK for Key Protect behind a small command line, `tests/env/keyprotect-sdk/`) and
 * tekton-pipeline (Tekton Pipelines' own code, `tests/env/tekton-pipeline/`) and promtool (out of
 * Debian's prometheus package) from that cache,
 * else the PATH; docker-registry, gpg, skopeo, htpasswd, openssl and git from the PATH.
 *
 * @module
 */

const PATH_TOOLS = ["docker-registry", "gpg", "gpgconf", "skopeo", "htpasswd", "openssl"] as const;
const ASSET_TOOLS = ["kube-apiserver", "etcd"] as const;

/** Tekton Triggers' binaries, kept together in the directory `TEKTON_TRIGGERS_BIN` names. */
export const TEKTON_TRIGGERS_TOOLS = [
  "eventlistenersink",
  "interceptors",
  "cel-eval",
  "binding-eval",
] as const;

function isExecutable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

function env(name: string): string | undefined {
  const value = Deno.env.get(name);
  return value === "" ? undefined : value;
}

/** The cache directory of the provisioned test environment (`…/toolkit-test-env/current`). */
export function provisionedDir(): string {
  const root = env("TOOLKIT_TEST_ENV_CACHE") ??
    `${env("XDG_CACHE_HOME") ?? `${env("HOME") ?? "/root"}/.cache`}/toolkit-test-env`;
  return `${root}/current`;
}

function provisionedEnv(): Record<string, string> {
  try {
    const text = Deno.readTextFileSync(`${provisionedDir()}/env`);
    return Object.fromEntries(
      text.split("\n").filter((l) => l.includes("=")).map((l) => {
        const i = l.indexOf("=");
        return [l.slice(0, i), l.slice(i + 1)];
      }),
    );
  } catch {
    return {};
  }
}

/** The directory holding kube-apiserver and etcd, or undefined when there is none. */
export function assetsDir(): string | undefined {
  const candidates = [
    env("KUBEBUILDER_ASSETS"),
    env("TOOLKIT_TEST_ASSETS"),
    provisionedEnv().ASSETS,
  ];
  return candidates.find((dir) =>
    dir !== undefined && ASSET_TOOLS.every((t) => isExecutable(`${dir}/${t}`))
  );
}

/** The directory of the provisioned CRDs (tekton-pipelines, tekton-triggers, openshift). */
export function crdsDir(): string | undefined {
  return provisionedEnv().CRDS;
}

/** The path of a tool, or undefined when it is missing. */
export function findTool(name: string): string | undefined {
  // kubectl and kube-controller-manager are kept beside kube-apiserver by provision.sh.
  if (
    (ASSET_TOOLS as readonly string[]).includes(name) || name === "kubectl" ||
    name === "kube-controller-manager"
  ) {
    const dir = assetsDir();
    if (dir && isExecutable(`${dir}/${name}`)) return `${dir}/${name}`;
    const provisioned = provisionedEnv().ASSETS;
    if (
      name !== "kube-apiserver" && name !== "etcd" && provisioned &&
      isExecutable(`${provisioned}/${name}`)
    ) {
      return `${provisioned}/${name}`;
    }
  }
  const provisioned = provisionedTool(name);
  if (provisioned && isExecutable(provisioned)) return provisioned;
  for (const dir of (env("PATH") ?? "").split(":")) {
    if (dir && isExecutable(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return undefined;
}

function provisionedTool(name: string): string | undefined {
  const provisioned = provisionedEnv();
  if (name === "helm") return provisioned.HELM;
  if (name === "gitea") return provisioned.GITEA;
  if (name === "cosign") return provisioned.COSIGN;
  if (name === "crane") return provisioned.CRANE;
  if (name === "referrers-registry") return provisioned.REFERRERS_REGISTRY;
  if (name === "keyprotect-sdk") return provisioned.KEYPROTECT_SDK;
  if (name === "promtool") return provisioned.PROMTOOL;
  if (name === "tekton-pipeline") {
    // Kept per Pipelines version beside the versioned cache (also when another checkout's
    // provision.sh wrote the env file without this line).
    return provisioned.TEKTON_PIPELINE ??
      (provisioned.TEKTON_PIPELINE_VERSION &&
        `${provisionedDir()}/../tekton-pipeline-${provisioned.TEKTON_PIPELINE_VERSION}/bin/tekton-pipeline`);
  }
  if ((TEKTON_TRIGGERS_TOOLS as readonly string[]).includes(name)) {
    return provisioned.TEKTON_TRIGGERS_BIN && `${provisioned.TEKTON_TRIGGERS_BIN}/${name}`;
  }
  return undefined;
}

/** The path of a tool; throws with the way to get it when it is missing. */
export function requireTool(name: string): string {
  const path = findTool(name);
  if (!path) {
    throw new Error(
      `The test environment needs "${name}": run tests/env/provision.sh (or set KUBEBUILDER_ASSETS)`,
    );
  }
  return path;
}

/**
 * Why end-to-end tests cannot run on this machine (some of `tools`, by default all of the
 * environment's, are missing), or undefined when they can. In CI
 * (`CI=true`) a missing environment is not a reason to skip: tests run and fail.
 */
export function e2eSkipReason(
  tools: readonly string[] = [...PATH_TOOLS, ...ASSET_TOOLS],
): string | undefined {
  if (env("CI") === "true") return undefined;
  const missing = tools.filter((t) => !findTool(t));
  if (missing.length === 0) return undefined;
  const reason = `the end-to-end environment is not provisioned (missing: ${
    missing.join(", ")
  }); run tests/env/provision.sh`;
  // Deno lists an ignored test without a reason: say it once, so a skip is never silent.
  if (!reported.has(reason)) {
    reported.add(reason);
    // deno-lint-ignore no-console
    console.error(`skipping end-to-end tests: ${reason}`);
  }
  return reason;
}

const reported = new Set<string>();
