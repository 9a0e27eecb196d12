/**
 * `deno task demo`: the whole story of image signature enforcement, told on toolkit's local
 * environment of real components — etcd, kube-apiserver and kube-controller-manager, the
 * distribution registry, skopeo — and the local Key Protect stand-in (the vault is a cloud
 * service; see tests/fakes/key_protect_server.ts):
 *
 * 1. make a signing key with `toolkit image-security keygen`;
 * 2. store the private key in the vault and fetch it back where it is needed;
 * 3. push two images and sign one with `toolkit image-security sign`, then verify it;
 * 4. `toolkit image-security enable` with the webhook running locally (`--webhook-url`);
 * 5. store the public key in a Secret and add a ClusterImagePolicy;
 * 6. a Pod of the signed image is admitted and pinned to its digest; a Pod of the unsigned
 *    image is denied with the webhook's real message;
 * 6b. cosign: a key made by `keygen --type ecdsa-p256`, an image signed with it by the real
 *    cosign, a `sigstoreSigned` ClusterImagePolicy: the Pod is admitted and pinned; an image
 *    signed by another key (toolkit's bundle format) is denied;
 * 6c. a multi-platform image (two platform images and their index, assembled with crane) signed
 *    with `sign --recursive` is admitted under `multiArch: everyPlatform`, pinned to its index,
 *    with the warning that its platforms' signatures admitted it;
 * 7. `toolkit image-security setup-signing` sets signing up for pipelines: a key made in memory
 *    and kept in the vault, the image-signing Secret, the public key, the signing Task and a
 *    policy requiring the key for the pipelines' registry namespace;
 * 8. a repository on Gitea (a real git host) is connected to a Tekton pipeline with `toolkit
 *    pipeline --tekton`, which signs what it builds; a `git push` reaches Tekton Triggers' own
 *    EventListener sink through the webhook `pipeline` registered, and the sink creates a
 *    PipelineRun of the pushed commit;
 * 9. that PipelineRun's signing step, run as its Pod would run it (Tekton's own code resolves the
 *    TaskRun and builds the Pod), signs the image the build pushed with the key read from the
 *    vault into memory, and a Pod of that image is admitted and pinned; the same TaskRun's
 *    provenance step attests the build (SLSA provenance v1, the same key);
 * 9b. an `attestation` requirement (slsaprovenance1, the pipeline key's Secret, the CEL condition
 *    `from-shop-frontend` on the provenance's repository) checked once with `verify-attestation
 *    --policy`: the built image is admitted; an image signed with the same key whose provenance
 *    (`attest --predicate`) names another repository is denied, naming the condition;
 * 9c. a Deployment of an unsigned image admitted with a warning in a namespace labelled
 *    `toolkit.dev/enforcement=warn` shows up in `audit` (warn) and in the namespace's PolicyReport
 *    (the webhook runs with `--policy-reports --reports-resync 5s`); `rollout --enforce` refuses;
 *    the image is signed, the audit is clean, the report turns to pass at the next resync, and
 *    `rollout --enforce` labels the namespace `enforce`;
 * 9d. `import` converts a Kyverno ClusterPolicy's verifyImages rule for the cosign key into a
 *    ClusterImagePolicy and its key Secret, reporting what it did not carry over; `--apply`, and a
 *    Pod of an image the real cosign signed is admitted under it;
 * 10. only the API server may call the webhook: `enable --api-server-config-dir` writes the
 *    AdmissionConfiguration and the API server's client certificate, kube-apiserver is restarted
 *    with them, `enable --client-auth` switches the webhook to `--client-ca`: a Pod is still
 *    admitted through the API server, a client without the certificate is refused at the TLS
 *    handshake;
 * 11. `disable --purge`, and everything is torn down.
 *
 * Every command is shown as the reader would type it, with its real output. `--keep` leaves
 * the environment up after the tour until Ctrl-C.
 *
 * @module
 */
import {
  freePort,
  GITEA_ADMIN,
  issueCert,
  LOOPBACK_SANS,
  makeCA,
  type ManagedProcess,
  onInterrupt,
  pipelineTaskRun,
  requireTool,
  startCluster,
  startCosign,
  startEventListenerSink,
  startGitea,
  startGpg,
  startInterceptors,
  startProcess,
  startRegistry,
  waitFor,
  webhookReady,
} from "../env/mod.ts";
import { pushMultiPlatformImage } from "../env/multiarch.ts";
import { startKeyProtectServer } from "../fakes/key_protect_server.ts";
import { startExtensionRegistry } from "../fakes/signature_extension_registry.ts";
import { namespaceSecrets, runSignStep } from "../tekton/_sign_step.ts";
import { Tour } from "./tour.ts";
import { templateObjects } from "../cli_pipeline/_templates.ts";

const keep = Deno.args.includes("--keep");
const repo = new URL("../../", import.meta.url).pathname;
const deno = Deno.execPath();
const work = await Deno.makeTempDir({ prefix: "toolkit-demo-" });
const env: Record<string, string> = { NO_COLOR: "1" };
const tour = new Tour(env, work, {
  color: Deno.stdout.isTerminal() && !Deno.env.get("NO_COLOR"),
  write: (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
});
const cleanups: (() => Promise<unknown>)[] = [];

/** Stops everything the tour started, once. */
let tornDown: Promise<void> | undefined;
function teardown(): Promise<void> {
  tornDown ??= tour.quietly(
    "stopped the webhook, Gitea, Tekton's sink, the vault, the registry and the cluster",
    async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
      await Deno.remove(work, { recursive: true }).catch(() => {});
    },
  );
  return tornDown;
}

// Ctrl-C ends `--keep`'s wait; during the tour it stops everything and exits.
let exploring = false;
let interrupted = false;
let stopExploring = () => {};
const onSignal = () => {
  if (exploring) return stopExploring();
  interrupted = true;
  tour.say();
  tour.say("Interrupted.");
  void teardown().then(() => Deno.exit(130));
};
onInterrupt(onSignal);

/** `toolkit ARGS`, run from this checkout. */
function toolkit(
  args: string[],
  options: { expectFailure?: boolean; show?: (line: string) => boolean } = {},
) {
  return tour.command({
    shown: `toolkit ${args.map(quote).join(" ")}`,
    command: deno,
    args: ["run", "-A", `${repo}cli/main.ts`, ...args],
    ...options,
  });
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

let exitCode = 0;
try {
  tour.say(tour.bold("toolkit: image signature enforcement, the whole story"));
  tour.say(tour.dim(`Working directory: ${work}`));

  tour.chapter(
    "A local cluster, a registry and a key vault",
    "Real etcd, kube-apiserver and kube-controller-manager, the distribution registry, and the\n" +
      "local stand-ins for the Key Protect API and for a registry's signature extension (cloud\n" +
      "services that cannot run here).",
  );
  // kube-apiserver's flags are fixed when it starts: it starts with an admission configuration
  // that names no client certificate yet; the last chapter writes the real one and restarts it.
  const apiServerDir = `${work}/apiserver`;
  await Deno.mkdir(apiServerDir);
  await Deno.writeTextFile(
    `${apiServerDir}/webhook-kubeconfig.yaml`,
    "apiVersion: v1\nkind: Config\nusers: []\n",
  );
  await Deno.writeTextFile(
    `${apiServerDir}/admission-configuration.yaml`,
    [
      "apiVersion: apiserver.config.k8s.io/v1",
      "kind: AdmissionConfiguration",
      "plugins:",
      "  - name: MutatingAdmissionWebhook",
      "    configuration:",
      "      apiVersion: apiserver.config.k8s.io/v1",
      "      kind: WebhookAdmissionConfiguration",
      `      kubeConfigFile: ${apiServerDir}/webhook-kubeconfig.yaml`,
      "",
    ].join("\n"),
  );
  const cluster = await tour.quietly(
    "etcd, kube-apiserver and kube-controller-manager are up",
    () =>
      startCluster({
        crds: ["tekton"],
        apiServerFlags: [
          `--admission-control-config-file=${apiServerDir}/admission-configuration.yaml`,
        ],
      }),
  );
  cleanups.push(() => cluster.stop());
  const kubectlBin = requireTool("kubectl");
  env.KUBECONFIG = cluster.kubeconfigPath;
  const kubectl = (args: string[], options: { stdin?: string; expectFailure?: boolean } = {}) =>
    tour.command({
      shown: `kubectl ${args.map(quote).join(" ")}`,
      command: kubectlBin,
      args,
      ...options,
    });
  /** Creates a Pod of `image`, then shows the image admission left in it (pinned to a digest). */
  const runPod = async (name: string, namespace: string, image: string) => {
    await kubectl(["run", name, "-n", namespace, `--image=${image}`, "--restart=Never"]);
    await kubectl([
      "get",
      "pod",
      name,
      "-n",
      namespace,
      "-o",
      'jsonpath={.spec.containers[0].image}{"\\n"}',
    ]);
  };
  /** Asks, unseen, whether a Pod of `image` would be admitted (the webhook's answer, not shown). */
  const probePod = (namespace: string, image: string) =>
    cluster.kubectl([
      "run",
      "probe",
      "-n",
      namespace,
      `--image=${image}`,
      "--restart=Never",
      "--dry-run=server",
    ]);
  /** Waits, unseen, until the probe of a Pod of `image` gets the answer that shows a policy in force. */
  const policyReached = (
    what: string,
    namespace: string,
    image: string,
    inForce: (probe: Awaited<ReturnType<typeof probePod>>) => boolean,
  ) =>
    tour.quietly(
      "the policy reached the webhook",
      () => waitFor(what, async () => inForce(await probePod(namespace, image))),
    );
  const registry = await tour.quietly(
    "the registry is up",
    () => startRegistry(),
  );
  cleanups.push(() => registry.stop());
  const gpg = await startGpg(); // skopeo's registries.d and lookaside signature store
  cleanups.push(() => gpg.stop());
  const instanceId = crypto.randomUUID();
  const apiKey = `demo-${crypto.randomUUID()}`;
  const vault = await tour.quietly(
    "the Key Protect stand-in is up",
    () => startKeyProtectServer({ instanceId, apiKeys: [apiKey] }),
  );
  cleanups.push(() => vault.stop());
  // The pipelines' registry, as a cluster reaches one: HTTPS, with the signature extension (IBM
  // Cloud Container Registry's and OpenShift's), in front of the same distribution registry.
  const registryCa = await makeCA(work, "registry-ca");
  const registryCert = await issueCert(work, registryCa, {
    name: "registry",
    cn: "registry",
    sans: LOOPBACK_SANS,
  });
  const caFile = `${work}/registry-ca.crt`;
  await Deno.writeTextFile(caFile, registryCa.certPem);
  const pipelineRegistry = startExtensionRegistry(registry.url, {
    cert: registryCert.certPem,
    key: registryCert.keyPem,
  });
  cleanups.push(() => pipelineRegistry.stop());
  tour.say(`    kubeconfig  ${cluster.kubeconfigPath}`);
  tour.say(
    `    registry    ${registry.url} (and https://${pipelineRegistry.host}, with signatures)`,
  );
  tour.say(`    vault       ${vault.url} (instance ${instanceId})`);

  tour.chapter(
    "Make a signing key",
    "An OpenPGP key pair that gpg, skopeo and Portieris accept.",
  );
  await toolkit([
    "image-security",
    "keygen",
    "--name",
    "Demo Signer",
    "--email",
    "signer@example.com",
    "--type",
    "ed25519",
  ]);

  tour.chapter(
    "Keep the private key in the vault",
    "Stored with the Key Protect API (POST /api/v2/keys), removed from disk, and fetched back\n" +
      "where signing happens. The API key and instance come from IBMCLOUD_API_KEY and\n" +
      "KMS_INSTANCE_ID.",
  );
  env.IBMCLOUD_API_KEY = apiKey;
  env.KMS_INSTANCE_ID = instanceId;
  const vaultFlags = ["--kms-url", vault.url, "--iam-url", vault.iamUrl];
  await toolkit([
    "image-security",
    "vault",
    "store",
    "demo-signer",
    "--key",
    "signer.key.asc",
    "--description",
    "Signs the demo images",
    ...vaultFlags,
  ]);
  await Deno.remove(`${work}/signer.key.asc`);
  tour.say(`    ${tour.bold("$")} rm signer.key.asc`);
  await toolkit([
    "image-security",
    "vault",
    "fetch",
    "demo-signer",
    "--key",
    "signing.key.asc",
    ...vaultFlags,
  ]);

  tour.chapter(
    "Push two images and sign one",
    "The signature is GnuPG simple signing, stored in the lookaside store skopeo and the\n" +
      "webhook read (registries.d).",
  );
  const app = `${registry.host}/demo/app:1`;
  const unsigned = `${registry.host}/demo/unsigned:1`;
  await tour.quietly(`pushed ${app} and ${unsigned} with skopeo copy`, async () => {
    await gpg.pushImage(app, { content: "the demo app\n" });
    await gpg.pushImage(unsigned, { content: "an image nobody signed\n" });
  });
  const registryFlags = ["--tls-verify=false", "--registries.d", gpg.registriesD];
  await toolkit(["image-security", "sign", app, "--key", "signing.key.asc", ...registryFlags]);
  await toolkit([
    "image-security",
    "verify",
    app,
    "--key",
    "signer.pub.asc",
    ...registryFlags,
  ]);

  tour.chapter(
    "Enable enforcement",
    "enable installs the CRDs, RBAC, the webhook's Deployment and Service, its TLS, the default\n" +
      "policies and the MutatingWebhookConfiguration. Here the API server calls a webhook that\n" +
      "runs on this machine (--webhook-url), with the certificate enable wrote (--tls-dir). The\n" +
      "webhook starts next, with those files, so enable does not wait for it (--no-verify-url);\n" +
      "without the flag, enable switches enforcement on only once the URL serves the certificate.",
  );
  const port = freePort();
  const url = `https://127.0.0.1:${port}/admit`;
  await toolkit([
    "image-security",
    "enable",
    "--webhook-url",
    url,
    "--tls-dir",
    "tls",
    "--replicas",
    "1",
    "--no-verify-url",
  ]);
  const webhookArgs = [
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--tls-cert-file",
    "tls/tls.crt",
    "--tls-key-file",
    "tls/tls.key",
    "--insecure-registry",
    registry.host,
    "--registries.d",
    gpg.registriesD,
    "--registry-ca-file",
    caFile,
    // The PolicyReport controller (on in enable's Deployment), re-auditing every 5 s here so that
    // a fixed workload's report turns within the tour (10 minutes by default).
    "--policy-reports",
    "--reports-resync",
    "5s",
  ];
  // The webhook reads policies and keys from the cluster of $KUBECONFIG.
  tour.say(`    ${tour.bold("$")} toolkit-webhook ${webhookArgs.join(" ")} &`);
  const startWebhook = (args: string[]) =>
    startProcess(deno, [
      "run",
      "--unstable-net",
      "--allow-net",
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      `${repo}webhook/main.ts`,
      ...args,
    ], { logFile: `${work}/webhook.log`, cwd: work, env });
  let webhook: ManagedProcess = await startWebhook(webhookArgs);
  cleanups.push(() => webhook.stop());
  const ca = await Deno.readTextFile(`${work}/tls/ca.crt`);
  await tour.quietly(
    "the webhook is ready",
    () => waitFor("the webhook", () => webhookReady(port, ca), { process: webhook }),
  );
  await toolkit(["image-security", "status"]);

  tour.chapter(
    "Require the signature",
    "The public key goes into a Secret (entry `key`, as Portieris reads it) and a\n" +
      "ClusterImagePolicy requires it for the demo repositories.",
  );
  await toolkit([
    "image-security",
    "key-secret",
    "demo-signer",
    "-n",
    "toolkit-system",
    "--key",
    "signer.pub.asc",
  ]);
  const policy = [
    "apiVersion: toolkit.dev/v1",
    "kind: ClusterImagePolicy",
    "metadata:",
    "  name: demo",
    "spec:",
    "  repositories:",
    `    - name: "${registry.host}/demo/*"`,
    "      policy:",
    "        simple:",
    "          requirements:",
    "            - type: signedBy",
    "              keySecret: demo-signer",
    "",
  ].join("\n");
  await Deno.writeTextFile(`${work}/policy.yaml`, policy);
  tour.file("policy.yaml", policy);
  await kubectl(["apply", "-f", "policy.yaml"]);
  await kubectl(["create", "namespace", "shop"]);
  await tour.quietly("the policy reached the webhook", async () => {
    await waitFor(
      "the namespace's service account",
      async () =>
        (await cluster.kubectl(["get", "serviceaccount", "default", "-n", "shop"])).code === 0,
    );
    await waitFor("the policy", async () => {
      const probe = await probePod("shop", unsigned);
      return probe.stderr.includes("A signature was required");
    });
  });

  tour.chapter(
    "A Pod of the signed image is admitted, pinned to the digest that was verified",
  );
  await runPod("web", "shop", app);

  tour.chapter("A Pod of the unsigned image is denied");
  await kubectl(["run", "intruder", "-n", "shop", `--image=${unsigned}`, "--restart=Never"], {
    expectFailure: true,
  });

  tour.chapter(
    "Cosign signatures too",
    "Most images today are signed with cosign. toolkit makes a key in cosign's own files, the\n" +
      "real cosign (built from its Go module) signs with it, and a sigstoreSigned requirement\n" +
      "admits what that key signed. An image signed by another key (toolkit's own signing, in\n" +
      "cosign v3's bundle format) is denied.",
  );
  env.COSIGN_PASSWORD = "demo-cosign-password";
  await toolkit(["image-security", "keygen", "--type", "ecdsa-p256"]);
  await toolkit([
    "image-security",
    "keygen",
    "--type",
    "ecdsa-p256",
    "--public-key",
    "stranger.pub",
    "--private-key",
    "stranger.key",
  ]);
  const cosignApp = `${registry.host}/cosign/app:1`;
  const cosignStranger = `${registry.host}/cosign/other:1`;
  await tour.quietly(`pushed ${cosignApp} and ${cosignStranger}`, async () => {
    await gpg.pushImage(cosignApp, { content: "signed with cosign\n" });
    await gpg.pushImage(cosignStranger, { content: "signed by a stranger\n" });
  });
  const cosign = await startCosign();
  cleanups.push(() => cosign.stop());
  const cosignArgs = [
    "sign",
    "--key",
    `${work}/cosign.key`,
    "--use-signing-config=false",
    "--tlog-upload=false",
    "--allow-insecure-registry",
    "-y",
    cosignApp,
  ];
  await tour.command({
    shown: `cosign ${cosignArgs.map((a) => quote(a.replace(`${work}/`, ""))).join(" ")}`,
    command: cosign.binary,
    args: cosignArgs,
  });
  await toolkit([
    "image-security",
    "sign",
    cosignStranger,
    "--key",
    "stranger.key",
    "--format",
    "bundle",
    "--tls-verify=false",
  ]);
  await toolkit([
    "image-security",
    "key-secret",
    "cosign-signer",
    "-n",
    "toolkit-system",
    "--key",
    "cosign.pub",
  ]);
  const cosignPolicy = [
    "apiVersion: toolkit.dev/v1",
    "kind: ClusterImagePolicy",
    "metadata:",
    "  name: cosign",
    "spec:",
    "  repositories:",
    `    - name: "${registry.host}/cosign/*"`,
    "      policy:",
    "        simple:",
    "          requirements:",
    "            - type: sigstoreSigned",
    "              keySecret: cosign-signer",
    "",
  ].join("\n");
  await Deno.writeTextFile(`${work}/cosign-policy.yaml`, cosignPolicy);
  tour.file("cosign-policy.yaml", cosignPolicy);
  await kubectl(["apply", "-f", "cosign-policy.yaml"]);
  await policyReached(
    "the cosign policy",
    "shop",
    cosignStranger,
    (probe) => probe.code !== 0 && !probe.stderr.includes("no ClusterImagePolicy matches"),
  );
  await runPod("cosigned", "shop", cosignApp);
  await kubectl(
    ["run", "stranger", "-n", "shop", `--image=${cosignStranger}`, "--restart=Never"],
    { expectFailure: true },
  );

  tour.chapter(
    "A multi-platform image, every platform signed",
    "A multi-platform image's tag names an index of one image per platform, and a node pulls its\n" +
      "own platform. sign --recursive (cosign's flag) signs the index and every platform; a\n" +
      "requirement with multiArch: everyPlatform wants each platform's signature. The Pod is\n" +
      "pinned to the index, and the answer warns that the platforms' signatures admitted it.",
  );
  const multi = await tour.quietly(
    `built ${registry.host}/multiarch/app:1: a linux/amd64 and a linux/arm64 image, and their index (crane index append)`,
    () =>
      pushMultiPlatformImage(`${registry.host}/multiarch/app:1`, {
        content: "a multi-platform app",
      }),
  );
  await toolkit([
    "image-security",
    "sign",
    multi.image,
    "--key",
    "cosign.key",
    "--recursive",
    "--tls-verify=false",
  ]);
  const multiPolicy = [
    "apiVersion: toolkit.dev/v1",
    "kind: ClusterImagePolicy",
    "metadata:",
    "  name: multiarch",
    "spec:",
    "  repositories:",
    `    - name: "${registry.host}/multiarch/*"`,
    "      policy:",
    "        simple:",
    "          requirements:",
    "            - type: sigstoreSigned",
    "              keySecret: cosign-signer",
    "              multiArch: everyPlatform",
    "",
  ].join("\n");
  await Deno.writeTextFile(`${work}/multiarch-policy.yaml`, multiPolicy);
  tour.file("multiarch-policy.yaml", multiPolicy);
  await kubectl(["apply", "-f", "multiarch-policy.yaml"]);
  await policyReached("the multiarch policy", "shop", multi.image, (probe) =>
    probe.code === 0 &&
    probe.stderr.includes("admitted by the signatures of its platforms"));
  await runPod("multiarch", "shop", multi.image);

  tour.chapter(
    "Set up signing for the pipelines",
    "setup-signing makes a key pair in memory, keeps the private key in the vault (never on\n" +
      "disk), writes the image-signing Secret into tools (toolkit sync copies it into development\n" +
      "namespaces), the public key, the signing Task, and last a policy requiring the key.",
  );
  const shop = `${pipelineRegistry.host}/shop`;
  await cluster.kubectl(["create", "namespace", "tools"]);
  await toolkit([
    "image-security",
    "setup-signing",
    "--repository",
    `${shop}/*`,
    ...vaultFlags,
  ]);

  tour.chapter(
    "Connect a repository to a Tekton pipeline",
    "Gitea (a real git host, built from its Go module) holds an app; namespace tools holds the\n" +
      "template pipelines. pipeline copies the one for the app's runtime into dev, with the\n" +
      "signing Task after the task that builds the image, adds a trigger for the branch to the\n" +
      "EventListener and registers Gitea's webhook. Tekton Triggers' own EventListener sink and\n" +
      "interceptors run here as processes.",
  );
  const gitea = await tour.quietly("Gitea is up", () => startGitea());
  cleanups.push(async () => await gitea[Symbol.asyncDispose]());
  const shopRepo = await gitea.createRepo("shop-frontend", [
    { path: "package.json", content: '{"name":"shop-frontend","version":"1.0.0"}\n' },
    { path: "server.js", content: "require('http').createServer().listen(8080);\n" },
  ]);
  await tour.quietly("namespace tools holds the template pipelines and their Tasks", async () => {
    const r = await cluster.kubectl(["apply", "-f", "-"], {
      stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items: templateObjects("tools") }),
    });
    if (r.code !== 0) throw new Error(r.stderr);
  });
  await kubectl(["create", "namespace", "dev"]);
  const interceptors = await tour.quietly(
    "Tekton's core interceptors are up",
    () => startInterceptors(cluster),
  );
  cleanups.push(() => interceptors.stop());
  const sink = await tour.quietly(
    "Tekton's EventListener sink for dev/tekton is up",
    () => startEventListenerSink(cluster, { namespace: "dev", eventListener: "tekton" }),
  );
  cleanups.push(() => sink.stop());
  // The token from a file: as an argument it would show in `ps` (and toolkit would warn).
  await Deno.writeTextFile(`${work}/git-token`, `${gitea.token}\n`, { mode: 0o600 });
  const pipelineArgs = [
    "pipeline",
    `${shopRepo.cloneUrl}#main`,
    "--tekton",
    "-n",
    "dev",
    "-u",
    GITEA_ADMIN.username,
    "--git-token-file",
    "git-token",
    "--listener-url",
    sink.url,
    "--no-wait",
  ];
  await toolkit(pipelineArgs);
  await toolkit([...pipelineArgs, "--no-start"]);
  const commit = await tour.quietly(
    "pushed a commit to main (git push to Gitea)",
    () => gitea.pushCommit(shopRepo, [{ path: "README.md", content: "# shop-frontend\n" }]),
  );
  let runName = "";
  await tour.quietly(
    `the sink started a PipelineRun of ${commit.slice(0, 12)}`,
    () =>
      waitFor("a PipelineRun of the pushed commit", async () => {
        const r = await cluster.kubectl(["get", "pipelineruns", "-n", "dev", "-o", "json"]);
        if (r.code !== 0) return false;
        const runs = JSON.parse(r.stdout).items as {
          metadata: { name: string };
          spec: { params: { name: string; value: string }[] };
        }[];
        runName = runs.find((run) => run.spec.params.some((p) => p.value === commit))?.metadata
          .name ?? "";
        return runName !== "";
      }, { process: sink.process }),
  );
  await kubectl([
    "get",
    "pipelineruns",
    "-n",
    "dev",
    "-o",
    'custom-columns=NAME:.metadata.name,PIPELINE:.spec.pipelineRef.name,REVISION:.spec.params[?(@.name=="git-revision")].value',
  ]);

  tour.chapter(
    "The PipelineRun signs and attests what it built",
    "No Pod can run here, so the build's push is done by the tour, and the signing step runs as\n" +
      "its Pod would run it: Tekton's own code resolves the run's TaskRun and builds the Pod; its\n" +
      "container's command, environment and mounted Secrets run as a process. The key is read\n" +
      "from the vault into memory only. The next step attests the build with the same key: SLSA\n" +
      "provenance naming the repository, the commit, the pipeline and the run.",
  );
  const built = `${shop}/shop-frontend:${commit.slice(0, 12)}`;
  const builtDigest = await tour.quietly(
    `the build pushed ${built} (and an image nobody signed, ${shop}/shop-frontend:unsigned)`,
    async () => {
      await gpg.pushImage(`${registry.host}/shop/shop-frontend:unsigned`, {
        content: "pushed around the pipeline\n",
      });
      return await gpg.pushImage(`${registry.host}/shop/shop-frontend:${commit.slice(0, 12)}`, {
        content: `shop-frontend at ${commit}\n`,
      });
    },
  );
  const get = async (args: string[]) =>
    JSON.parse((await cluster.kubectl(["get", ...args, "-o", "json"])).stdout);
  const taskRun = await tour.quietly(
    "Tekton's PipelineRun reconciler code made the TaskRun of task image-sign",
    async () =>
      await pipelineTaskRun({
        pipeline: await get(["pipeline", "shop-frontend", "-n", "dev"]),
        pipelineRun: await get(["pipelinerun", runName, "-n", "dev"]),
        pipelineTask: "image-sign",
        results: { "ibm-build": { IMAGE_URL: built, IMAGE_DIGEST: builtDigest } },
      }),
  );
  const step = await runSignStep({
    task: await get(["task", "toolkit-image-sign", "-n", "dev"]),
    taskRun,
    secrets: await namespaceSecrets(cluster, "dev"),
    trust: caFile,
  });
  try {
    const at = step.argv.indexOf("image-security");
    tour.ran(
      `toolkit ${step.argv.slice(at).map((a) => quote(a.replace(step.root, ""))).join(" ")}`,
      `${step.stderr}${step.stdout}`,
    );
    if (step.code !== 0) throw new Error(`the signing step failed (exit ${step.code})`);
    tour.say(`    results: SIGNED_DIGEST=${step.results.SIGNED_DIGEST}`);
  } finally {
    await step.dispose();
  }
  // The same TaskRun's next step attests the build: SLSA provenance naming the repository, the
  // commit and the run, signed with the same key.
  const provenanceStep = await runSignStep({
    step: "provenance",
    task: await get(["task", "toolkit-image-sign", "-n", "dev"]),
    taskRun,
    secrets: await namespaceSecrets(cluster, "dev"),
    trust: caFile,
  });
  try {
    const at = provenanceStep.argv.indexOf("image-security");
    tour.ran(
      `toolkit ${
        provenanceStep.argv.slice(at).map((a) => quote(a.replace(provenanceStep.root, ""))).join(
          " ",
        )
      }`,
      `${provenanceStep.stderr}${provenanceStep.stdout}`,
    );
    if (provenanceStep.code !== 0) {
      throw new Error(`the provenance step failed (exit ${provenanceStep.code})`);
    }
  } finally {
    await provenanceStep.dispose();
  }
  await runPod("shop", "dev", built);
  await kubectl([
    "run",
    "unsigned-shop",
    "-n",
    "dev",
    `--image=${shop}/shop-frontend:unsigned`,
    "--restart=Never",
  ], { expectFailure: true });

  tour.chapter(
    "Require provenance from the repository",
    "A signature says who signed; the provenance the pipeline attested says what was built, from\n" +
      "where. An attestation requirement verifies it with the same key and checks it with CEL: the\n" +
      "image must come from the shop-frontend repository on Gitea. An image signed with the same\n" +
      "key but attested as built from another repository is denied, naming the condition.",
  );
  const certDir = `${work}/certs`;
  await Deno.mkdir(certDir);
  await Deno.copyFile(caFile, `${certDir}/registry-ca.crt`);
  const elsewhere = `${shop}/shop-frontend:elsewhere`;
  await tour.quietly(`pushed ${elsewhere}, built from another repository`, async () => {
    await gpg.pushImage(`${registry.host}/shop/shop-frontend:elsewhere`, {
      content: "shop-frontend, built from another repository\n",
    });
  });
  const provenancePolicy = [
    "apiVersion: toolkit.dev/v1",
    "kind: ClusterImagePolicy",
    "metadata:",
    "  name: shop-frontend-provenance",
    "spec:",
    "  repositories:",
    `    - name: "${shop}/shop-frontend"`,
    "      policy:",
    "        simple:",
    "          requirements:",
    "            - type: signedBy",
    "              keySecret: image-signing-key",
    "            - type: attestation",
    "              predicateType: slsaprovenance1",
    "              keySecret: image-signing-key",
    "              conditions:",
    "                - name: from-shop-frontend",
    `                  expression: 'predicate.buildDefinition.externalParameters.repository == "${shopRepo.cloneUrl}"'`,
    "                  message: built from a repository other than shop-frontend",
    "",
  ].join("\n");
  await Deno.writeTextFile(`${work}/provenance-policy.yaml`, provenancePolicy);
  tour.file("provenance-policy.yaml", provenancePolicy);
  await toolkit([
    "image-security",
    "verify-attestation",
    built,
    "--type",
    "slsaprovenance1",
    "--key-secret",
    "toolkit-system/image-signing-key",
    "--policy",
    "provenance-policy.yaml",
    "--cert-dir",
    "certs",
  ], {
    // The verified statement (stdout) trimmed to where the image was built from.
    show: (line) =>
      !/^\s*[{}\[\]"]/.test(line) || /"(predicateType|repository|revision)"/.test(line),
  });
  await kubectl(["apply", "-f", "provenance-policy.yaml"]);
  const otherRepository = shopRepo.cloneUrl.replace(/shop-frontend(\.git)?$/, "other-app$1");
  const forgedPredicate = JSON.stringify(
    {
      buildDefinition: {
        buildType: "https://toolkit.dev/tekton/image-build/v1",
        externalParameters: { repository: otherRepository, revision: "main" },
      },
      runDetails: { builder: { id: "https://tekton.example/elsewhere" } },
    },
    null,
    2,
  );
  await Deno.writeTextFile(`${work}/elsewhere-provenance.json`, `${forgedPredicate}\n`);
  tour.file("elsewhere-provenance.json", forgedPredicate);
  const vaultSigning = [
    "--vault-key",
    "toolkit-image-signing",
    ...vaultFlags,
    "--cert-dir",
    "certs",
  ];
  await toolkit(["image-security", "sign", elsewhere, ...vaultSigning]);
  await toolkit([
    "image-security",
    "attest",
    elsewhere,
    "--predicate",
    "elsewhere-provenance.json",
    "--type",
    "slsaprovenance1",
    ...vaultSigning,
  ]);
  await policyReached(
    "the provenance policy",
    "dev",
    elsewhere,
    (probe) => probe.stderr.includes("from-shop-frontend"),
  );
  await runPod("shop-built-here", "dev", built);
  await kubectl(
    ["run", "shop-built-elsewhere", "-n", "dev", `--image=${elsewhere}`, "--restart=Never"],
    { expectFailure: true },
  );

  tour.chapter(
    "What already runs: audit, PolicyReports, rollout",
    "Enforcement sees what is created after it is on. A namespace labelled\n" +
      "toolkit.dev/enforcement=warn admits what would be denied, with a warning; audit tells what\n" +
      "runs there that enforcement would deny, and the webhook keeps the same verdicts in the\n" +
      "namespace's PolicyReport. Once the image is signed, rollout --enforce switches the\n" +
      "namespace, after its own audit finds nothing to deny.",
  );
  const legacy = `${registry.host}/demo/legacy:1`;
  await tour.quietly(`pushed ${legacy}, not signed`, async () => {
    await gpg.pushImage(legacy, { content: "running since before enforcement\n" });
  });
  const auditFlags = [
    "-n",
    "legacy",
    "--insecure-registry",
    registry.host,
    "--registries.d",
    gpg.registriesD,
  ];
  await kubectl(["create", "namespace", "legacy"]);
  await kubectl(["label", "namespace", "legacy", "toolkit.dev/enforcement=warn"]);
  await tour.quietly(
    "the namespace's service account exists",
    () =>
      waitFor(
        "the namespace's service account",
        async () =>
          (await cluster.kubectl(["get", "serviceaccount", "default", "-n", "legacy"])).code === 0,
      ),
  );
  await kubectl(["create", "deployment", "legacy", "-n", "legacy", `--image=${legacy}`]);
  await toolkit(["image-security", "audit", ...auditFlags]);
  const reportResults = async () => {
    const r = await cluster.kubectl([
      "get",
      "policyreport",
      "toolkit-image-policy",
      "-n",
      "legacy",
      "-o",
      "json",
    ]);
    if (r.code !== 0) return [];
    return (JSON.parse(r.stdout).results ?? []) as { result: string }[];
  };
  const reportColumns = [
    "get",
    "policyreport",
    "toolkit-image-policy",
    "-n",
    "legacy",
    "-o",
    'jsonpath={range .results[*]}{.resources[0].kind}/{.resources[0].name} {.properties.image} {.result}: {.message}{"\\n"}{end}',
  ];
  await tour.quietly(
    "the webhook wrote the namespace's PolicyReport",
    () =>
      waitFor("the PolicyReport of legacy", async () => {
        const results = await reportResults();
        return results.length > 0 && results.every((r) => r.result !== "pass");
      }, { process: webhook }),
  );
  await kubectl(reportColumns);
  await toolkit(["image-security", "rollout", "--enforce", ...auditFlags], {
    expectFailure: true,
  });
  await toolkit(["image-security", "sign", legacy, "--key", "signing.key.asc", ...registryFlags]);
  await toolkit(["image-security", "audit", ...auditFlags]);
  await tour.quietly(
    "the next resync turned the PolicyReport (--reports-resync 5s)",
    () =>
      waitFor("the PolicyReport of legacy to pass", async () => {
        const results = await reportResults();
        return results.length > 0 && results.every((r) => r.result === "pass");
      }, { process: webhook }),
  );
  await kubectl(reportColumns);
  await toolkit(["image-security", "rollout", "--enforce", ...auditFlags]);
  await kubectl(["get", "namespace", "legacy", "-L", "toolkit.dev/enforcement"]);
  await kubectl([
    "run",
    "unsigned-legacy",
    "-n",
    "legacy",
    `--image=${unsigned}`,
    "--restart=Never",
    "--dry-run=server",
  ], { expectFailure: true });

  tour.chapter(
    "Bring a policy from Kyverno",
    "A team moving from another admission controller keeps its policies: import converts a\n" +
      "Kyverno ClusterPolicy's verifyImages rules (and sigstore policy-controller's and\n" +
      "Connaisseur's policies) into toolkit's, with the key Secrets they need, and reports every\n" +
      "field that was not carried over as it was.",
  );
  const imported = `${registry.host}/imported/app:1`;
  await tour.quietly(`pushed ${imported}`, async () => {
    await gpg.pushImage(imported, { content: "a team's app, signed with cosign\n" });
  });
  const importedSignArgs = [
    "sign",
    "--key",
    `${work}/cosign.key`,
    "--use-signing-config=false",
    "--tlog-upload=false",
    "--allow-insecure-registry",
    "-y",
    imported,
  ];
  await tour.command({
    shown: `cosign ${importedSignArgs.map((a) => quote(a.replace(`${work}/`, ""))).join(" ")}`,
    command: cosign.binary,
    args: importedSignArgs,
    // cosign's deprecation and tag warnings are shown in the cosign chapter above.
    show: (line) => line.trim() !== "" && !/^(Flag |WARNING|\s)/.test(line),
  });
  const cosignPublicKey = (await Deno.readTextFile(`${work}/cosign.pub`)).trimEnd();
  const peerPolicy = [
    "apiVersion: kyverno.io/v1",
    "kind: ClusterPolicy",
    "metadata:",
    "  name: verify-team-images",
    "spec:",
    "  validationFailureAction: Enforce",
    "  webhookTimeoutSeconds: 30",
    "  rules:",
    "    - name: team-key",
    "      match:",
    "        any:",
    "          - resources:",
    "              kinds:",
    "                - Pod",
    "      verifyImages:",
    "        - imageReferences:",
    `            - "${registry.host}/imported/*"`,
    "          mutateDigest: true",
    "          attestors:",
    "            - entries:",
    "                - keys:",
    "                    publicKeys: |-",
    ...cosignPublicKey.split("\n").map((line) => `                      ${line}`),
    "                    rekor:",
    "                      ignoreTlog: true",
    "                    ctlog:",
    "                      ignoreSCT: true",
    "",
  ].join("\n");
  await Deno.writeTextFile(`${work}/kyverno-policy.yaml`, peerPolicy);
  tour.file("kyverno-policy.yaml", peerPolicy);
  await toolkit(["image-security", "import", "kyverno-policy.yaml"]);
  await toolkit(["image-security", "import", "kyverno-policy.yaml", "--apply"]);
  await policyReached("the imported policy", "shop", imported, (probe) => probe.code === 0);
  await runPod("imported", "shop", imported);

  tour.chapter(
    "Only the API server may call the webhook",
    "Whoever reaches the webhook's port could send it reviews of their own. enable makes a client\n" +
      "CA and a certificate for the API server, and writes the AdmissionConfiguration that makes\n" +
      "kube-apiserver present it (--api-server-config-dir); the control plane is restarted with\n" +
      "it, then enable --client-auth switches the webhook to refuse, at the TLS handshake, every\n" +
      "client without a certificate from that CA. Probes and metrics move to a port of their own.",
  );
  const enableFlags = [
    "image-security",
    "enable",
    "--webhook-url",
    url,
    "--tls-dir",
    "tls",
    "--replicas",
    "1",
    "--no-verify-url",
  ];
  await toolkit([...enableFlags, "--api-server-config-dir", "apiserver"]);
  await tour.quietly(
    "kube-apiserver restarted with --admission-control-config-file=apiserver/admission-configuration.yaml",
    () => cluster.startApiServer(),
  );
  await toolkit([...enableFlags, "--client-auth"]);
  const probePort = freePort();
  const authenticatedArgs = [
    ...webhookArgs,
    "--client-ca",
    "tls/client-ca.crt",
    "--probe-port",
    String(probePort),
  ];
  tour.say(`    ${tour.bold("$")} toolkit-webhook ${authenticatedArgs.join(" ")} &`);
  await tour.quietly("the webhook restarted with --client-ca", async () => {
    await webhook.stop();
    webhook = await startWebhook(authenticatedArgs);
    await waitFor("the webhook's probe port", () => webhookReady(probePort, ca), {
      process: webhook,
    });
  });
  await kubectl([
    "run",
    "web-again",
    "-n",
    "shop",
    `--image=${app}`,
    "--restart=Never",
    "--dry-run=server",
    "-o",
    'jsonpath={.spec.containers[0].image}{"\\n"}',
  ]);
  {
    const client = Deno.createHttpClient({ caCerts: [ca] });
    let answer: string;
    try {
      const response = await fetch(url, { method: "POST", body: "{}", client });
      answer = `HTTP ${response.status} (${(await response.text()).trim()})`;
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      answer = `no answer: refused at the TLS handshake (${
        cause instanceof Error ? cause.message.split("\n")[0] : String(cause)
      })`;
    } finally {
      client.close();
    }
    tour.ran(`curl --cacert tls/ca.crt -X POST -d '{}' ${url}`, `${answer}\n`);
  }

  if (keep) {
    tour.chapter("Explore", "The environment stays up until Ctrl-C.");
    tour.say(`    export KUBECONFIG=${cluster.kubeconfigPath}`);
    tour.say(`    alias toolkit='${deno} run -A ${repo}cli/main.ts'`);
    tour.say(`    cd ${work}`);
    tour.say(`    toolkit image-security status`);
    tour.say(`    ${kubectlBin} get clusterimagepolicies,pods -A`);
    await new Promise<void>((resolve) => {
      exploring = true;
      stopExploring = resolve;
    });
    exploring = false;
  }

  tour.chapter("Disable enforcement and remove everything it installed");
  await toolkit(["image-security", "disable", "--purge"]);
} catch (error) {
  exitCode = 1;
  if (interrupted) await new Promise(() => {}); // the signal handler tears down and exits
  tour.say();
  tour.say(`The demo stopped: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await teardown();
}
Deno.exit(exitCode);
