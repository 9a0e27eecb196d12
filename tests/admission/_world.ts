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
 * @module
 */
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
  startWebhook,
  type TestWebhook,
  WEBHOOK_NAME,
  webhookConfiguration,
} from "./_webhook.ts";

/** What a world holds besides its cluster, its first registry and its gpg home. */
export interface WorldOptions {
  /**
   * The cluster. Default: the toolkit CRDs. `false`: no cluster (a webhook of `--policies`
   * files, started by hand and used with {@linkcode World.use}); `cluster` and everything that
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
   * world without them is a cluster and a webhook; `registry` and `gpg` then throw.
   */
  readonly images?: boolean;
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
   * A Pod the webhook denies: once a dry run of it is refused by the webhook, the API server
   * calls the webhook (it picks the configuration up asynchronously).
   */
  readonly probe: { readonly namespace: string; readonly image: string };
  /**
   * The `--registries.d` directory. Default: the gpg home's (its lookaside for every host); none
   * in a world without images.
   */
  readonly registriesD?: string;
  /** More webhook flags, after the world's. */
  readonly args?: readonly string[];
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
   * Starts the webhook on the world (its kubeconfig and namespace, its registries, the gpg home's
   * registries.d), registers it with the API server and waits until the API server calls it; it
   * is stopped with the world, first.
   */
  startWebhook(options: WorldWebhookOptions): Promise<TestWebhook>;
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
  const clusterOptions = options.cluster ?? { crds: ["toolkit"] };
  const withCluster = clusterOptions !== false;
  const first = withCluster ? 1 : 0;
  const started = await Promise.allSettled<AsyncDisposable>([
    ...(withCluster ? [startCluster(clusterOptions)] : []),
    ...named.map(([, registryOptions]) => startWorldRegistry(registryOptions)),
    ...(images ? [startRegistry(), startGpg()] : []),
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
  const registry = images ? running[first + named.length] as TestRegistry : undefined;
  const gpg = images ? running[first + 1 + named.length] as TestGpg : undefined;
  const withImages = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`this world has no ${what} (images: false)`);
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
    async startWebhook(webhookOptions) {
      const cluster = theCluster();
      const insecure = webhookOptions.insecureRegistries ??
        [registry, ...Object.values(registries)].flatMap((r) => r === undefined ? [] : [r.host]);
      const registriesD = webhookOptions.registriesD ?? gpg?.registriesD;
      const webhook = await startWebhook([
        "--kubeconfig",
        cluster.kubeconfigPath,
        "--namespace",
        CONTROLLER_NAMESPACE,
        ...insecure.flatMap((host) => ["--insecure-registry", host]),
        ...(registriesD === undefined ? [] : ["--registries.d", registriesD]),
        ...webhookOptions.args ?? [],
      ]);
      stack.push(webhook);
      await apply(webhookConfiguration(webhook.url, webhook.ca));
      const { namespace, image } = webhookOptions.probe;
      await eventually("the API server to call the webhook", async () => {
        const r = await dryRunPod(cluster, "probe", namespace, image);
        return r.code !== 0 && r.stderr.includes(WEBHOOK_NAME);
      });
      return webhook;
    },
    use(item) {
      stack.push(item);
      return item;
    },
    [Symbol.asyncDispose]: () => disposeAll(stack),
  };
}
