/**
 * The world of an admission end-to-end test, composed as the test needs: a cluster (API server
 * and etcd, the toolkit CRDs), registries, a gpg home that signs and pushes images, and the
 * webhook started on them, registered with the API server and waited for. One world is started
 * per test file (never shared across files, so the files run in parallel as before), and
 * everything in it is stopped by pid when the test ends, passed or failed (`await using`).
 *
 * ```ts
 * await using world = await startWorld({ registries: { locked: { auth } } });
 * const signer = await world.signer();
 * await world.namespaces("dev");
 * await world.keySecret("signer", signer.publicKeyArmored);
 * await world.clusterPolicy([{ name: `${world.registry.host}/*`, policy }]);
 * const webhook = await world.startWebhook({ probe: { namespace: "dev", image: unsigned } });
 * ```
 *
 * A world without a cluster (`cluster: false`) serves its webhook from a `--policies` file:
 *
 * ```ts
 * await using world = await startWorld({ cluster: false, images: "keys" });
 * const policies = await world.file("policies.yaml", text);
 * const webhook = await world.startWebhook({ policies, runtimeFlags: RELEASE_RUNTIME_FLAGS });
 * ```
 *
 * @module
 */
import { tempDir } from "../env/files.ts";
import {
  type ClusterOptions,
  type GpgKey,
  type RegistryOptions,
  startCluster,
  startGpg,
  startReferrersRegistry,
  startRegistry,
  type TestCluster,
  type TestGpg,
  type TestRegistry,
} from "../env/mod.ts";
import {
  CONTROLLER_NAMESPACE,
  createNamespaces,
  dryRunPod,
  eventually,
  keySecretManifest,
  kubectlOk,
  type ServingFiles,
  startWebhook,
  type TestWebhook,
  WEBHOOK_NAME,
  webhookConfiguration,
} from "./_webhook.ts";

/** What a world holds besides its cluster, its first registry and its gpg home. */
export interface WorldOptions {
  /**
   * The cluster. Default: the toolkit CRDs. `false`: no cluster (its webhook serves from a
   * `--policies` file, {@linkcode WorldWebhookOptions.policies}); `cluster` and everything that
   * needs it then throw.
   */
  readonly cluster?: ClusterOptions | false;
  /**
   * More registries, by name (`world.registries[name]`), each with its options: the distribution
   * registry, or with `kind: "referrers"` the one that serves the OCI 1.1 referrers API.
   */
  readonly registries?: Readonly<Record<string, WorldRegistryOptions>>;
  /**
   * Whether the world has signed images: its first registry and a gpg home (default true). A
   * world without them is a cluster and a webhook; `registry` and `gpg` then throw. `"keys"`: a
   * gpg home that makes keys and signatures, and no registry (`registry` throws), for images
   * of servers the test runs itself.
   */
  readonly images?: boolean | "keys";
}

/** A registry of the world. */
export type WorldRegistryOptions =
  | RegistryOptions & { readonly kind?: "distribution" }
  | Pick<RegistryOptions, "tls"> & { readonly kind: "referrers" };

function startWorldRegistry(options: WorldRegistryOptions): Promise<TestRegistry> {
  if (options.kind === "referrers") {
    const { kind: _, ...rest } = options;
    return startReferrersRegistry(rest);
  }
  const { kind: _, ...rest } = options;
  return startRegistry(rest);
}

/** How {@linkcode World.startWebhook} starts and registers the webhook. */
export interface WorldWebhookOptions {
  /**
   * The `--insecure-registry` flags, in order. Default: the host of every registry of the
   * world, the first registry first.
   */
  readonly insecureRegistries?: readonly string[];
  /**
   * Registers the webhook with the API server (a MutatingWebhookConfiguration of its URL and
   * CA) and waits until the API server calls it: once a dry run of this Pod, which the webhook
   * denies, is refused by the webhook (the API server picks the configuration up
   * asynchronously). Absent: the webhook is not registered; reviews are posted to it directly.
   */
  readonly probe?: { readonly namespace: string; readonly image: string };
  /**
   * A `--policies` file the webhook serves from (see {@linkcode World.file}), instead of the
   * world's cluster (`--kubeconfig`, `--namespace`): the one source of a world without a cluster.
   */
  readonly policies?: string;
  /** The `--kubeconfig` of the cluster's webhook. Default: the cluster's own. */
  readonly kubeconfig?: string;
  /**
   * The `--registries.d` directory. Default: the gpg home's (its lookaside for every host); none
   * in a world without a gpg home, or with `false`.
   */
  readonly registriesD?: string | false;
  /** More webhook flags, after the world's. */
  readonly args?: readonly string[];
  /** Flags of the Deno runtime (`RELEASE_RUNTIME_FLAGS` of `_webhook.ts`: the release's). */
  readonly runtimeFlags?: readonly string[];
  /** Serving files made elsewhere. Default: a certificate from the webhook's own CA. */
  readonly serving?: ServingFiles;
  /**
   * Wait until `/readyz` answers ok (default true); `false`: return once the process runs (a
   * webhook that cannot get ready, or must not yet). Not with `probe`.
   */
  readonly waitUntilReady?: boolean;
}

/** A running world; stopped, last started first, with `await using`. */
export interface World extends AsyncDisposable {
  readonly cluster: TestCluster;
  /** The first registry (plain HTTP, no authentication). */
  readonly registry: TestRegistry;
  /** The other registries, by the names of {@linkcode WorldOptions.registries}. */
  readonly registries: Readonly<Record<string, TestRegistry>>;
  readonly gpg: TestGpg;
  /** A new ed25519 signing key of the world's gpg home. */
  signer(): Promise<GpgKey>;
  /** Creates the webhook's namespace and `names`, each with its `default` ServiceAccount. */
  namespaces(...names: string[]): Promise<void>;
  /** Applies a manifest (`kubectl apply -f -`). */
  apply(manifest: string): Promise<void>;
  /** Applies the key Secret `name` of `armored` keys, in the webhook's namespace by default. */
  keySecret(name: string, armored: string, namespace?: string): Promise<void>;
  /** Applies the ClusterImagePolicy `default` with these repositories. */
  clusterPolicy(repositories: readonly unknown[]): Promise<void>;
  /**
   * Starts the webhook on the world (its kubeconfig and namespace, or a `--policies` file; its
   * registries, the gpg home's registries.d) and, given a `probe`, registers it with the API
   * server and waits until the API server calls it; it is stopped with the world, first (or
   * before, by the test: stopping twice is harmless).
   */
  startWebhook(options?: WorldWebhookOptions): Promise<TestWebhook>;
  /**
   * Writes `text` into the file `name` of the world's own directory (removed with the world) and
   * resolves with its path: a `--policies` file, a registries.d.
   */
  file(name: string, text: string): Promise<string>;
  /** Stops `item` with the world, before everything started so far (a temporary directory). */
  use<T extends AsyncDisposable>(item: T): T;
}

/** Stops `items` last first, each even when another fails; throws the first failure. */
async function disposeAll(items: AsyncDisposable[]): Promise<void> {
  let failure: unknown;
  for (const item of items.reverse()) {
    try {
      await item[Symbol.asyncDispose]();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

/** Starts a world: its cluster, registries and gpg home at once. */
export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const named = Object.entries(options.registries ?? {});
  const images = options.images ?? true;
  const withRegistry = images === true;
  const withGpg = images !== false;
  const clusterOptions = options.cluster ?? { crds: ["toolkit"] };
  const withCluster = clusterOptions !== false;
  const first = withCluster ? 1 : 0;
  const started = await Promise.allSettled<AsyncDisposable>([
    ...(withCluster ? [startCluster(clusterOptions)] : []),
    ...named.map(([, registryOptions]) => startWorldRegistry(registryOptions)),
    ...(withRegistry ? [startRegistry()] : []),
    ...(withGpg ? [startGpg()] : []),
  ]);
  const running = started.flatMap((s) => s.status === "fulfilled" ? [s.value] : []);
  const failed = started.find((s) => s.status === "rejected");
  if (failed !== undefined) {
    await disposeAll(running).catch(() => {});
    throw failed.reason;
  }
  const maybeCluster = withCluster ? running[0] as TestCluster : undefined;
  const registries = Object.fromEntries(
    named.map(([name], i) => [name, running[first + i] as TestRegistry]),
  );
  const registry = withRegistry ? running[first + named.length] as TestRegistry : undefined;
  const gpg = withGpg
    ? running[first + named.length + (withRegistry ? 1 : 0)] as TestGpg
    : undefined;
  const withImages = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`this world has no ${what} (images: ${images})`);
    return value;
  };
  const theCluster = (): TestCluster => {
    if (maybeCluster === undefined) throw new Error("this world has no cluster (cluster: false)");
    return maybeCluster;
  };
  const stack: AsyncDisposable[] = [...running];
  const apply = async (manifest: string) => {
    await kubectlOk(theCluster(), ["apply", "-f", "-"], manifest);
  };
  let dir: Promise<string> | undefined;
  const file = async (name: string, text: string) => {
    dir ??= tempDir("toolkit-world-").then((made) => {
      stack.push(made);
      return made.path;
    });
    const path = `${await dir}/${name}`;
    await Deno.writeTextFile(path, text);
    return path;
  };
  return {
    get cluster() {
      return theCluster();
    },
    get registry() {
      return withImages(registry, "registry");
    },
    registries,
    get gpg() {
      return withImages(gpg, "gpg home");
    },
    signer: () => withImages(gpg, "gpg home").generateKey({ type: "ed25519" }),
    namespaces: (...names) => createNamespaces(theCluster(), [CONTROLLER_NAMESPACE, ...names]),
    apply,
    keySecret: (name, armored, namespace = CONTROLLER_NAMESPACE) =>
      apply(keySecretManifest(name, namespace, armored)),
    clusterPolicy: (repositories) =>
      apply(JSON.stringify({
        apiVersion: "toolkit.dev/v1",
        kind: "ClusterImagePolicy",
        metadata: { name: "default" },
        spec: { repositories },
      })),
    async startWebhook(webhookOptions = {}) {
      const source = webhookOptions.policies !== undefined
        ? ["--policies", webhookOptions.policies]
        : [
          "--kubeconfig",
          webhookOptions.kubeconfig ?? theCluster().kubeconfigPath,
          "--namespace",
          CONTROLLER_NAMESPACE,
        ];
      const insecure = webhookOptions.insecureRegistries ??
        [registry, ...Object.values(registries)].flatMap((r) => r === undefined ? [] : [r.host]);
      const registriesD = webhookOptions.registriesD ?? gpg?.registriesD;
      const webhook = await startWebhook(
        [
          ...source,
          ...insecure.flatMap((host) => ["--insecure-registry", host]),
          ...(registriesD === undefined || registriesD === false
            ? []
            : ["--registries.d", registriesD]),
          ...webhookOptions.args ?? [],
        ],
        webhookOptions.serving,
        {
          ...(webhookOptions.runtimeFlags ? { runtimeFlags: webhookOptions.runtimeFlags } : {}),
          ...(webhookOptions.waitUntilReady === false ? { waitUntilReady: false } : {}),
        },
      );
      stack.push(webhook);
      if (webhookOptions.probe === undefined) return webhook;
      const cluster = theCluster();
      await apply(webhookConfiguration(webhook.url, webhook.ca));
      const { namespace, image } = webhookOptions.probe;
      await eventually("the API server to call the webhook", async () => {
        const r = await dryRunPod(cluster, "probe", namespace, image);
        return r.code !== 0 && r.stderr.includes(WEBHOOK_NAME);
      });
      return webhook;
    },
    file,
    use(item) {
      stack.push(item);
      return item;
    },
    [Symbol.asyncDispose]: () => disposeAll(stack),
  };
}
