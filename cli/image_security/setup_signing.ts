/**
 * `toolkit image-security setup-signing`: everything a cluster needs for its pipelines to sign
 * what they build with a key kept in the vault, and for enforcement to require that signature,
 * in one idempotent command (what the Cloud-Native Toolkit's `setup-image-signing-keys.sh` did,
 * without writing the private key to disk or importing it into a gpg home):
 *
 * 1. the key pair, made in memory (simple signing: an OpenPGP key; `--format cosign`: an ECDSA key
 *    in cosign's format), or the key the setup already has, or an existing key of the vault
 *    (`--vault-key`, e.g. the script's `portieris-image-signing-private-key`);
 * 2. the private key stored in Key Protect or Hyper Protect Crypto Services as a standard key
 *    (`extractable: true`), straight from memory;
 * 3. the Secret `image-signing` in the template namespace (`-t`, default `tools`), labelled as a
 *    tool's Secret so that `toolkit sync` copies it into development namespaces: the vault, the
 *    key's id, the IAM API key (never printed), the fingerprint;
 * 4. the public key in the key Secret (entry `key`) where enforcement reads it: the webhook's
 *    namespace for a ClusterImagePolicy, the policy's namespace for an ImagePolicy (`-n`);
 * 5. the signing Task `toolkit-image-sign` in the template namespace, at the Tekton version the
 *    cluster serves;
 * 6. last, the ClusterImagePolicy (or ImagePolicy) requiring the key for `--repository`, so that a
 *    setup that fails earlier never leaves a policy that would deny images nobody can sign.
 *
 * Everything is read and checked before the first write (the cluster, its namespaces, the policy
 * and Tekton APIs, the vault and the credentials, what an earlier setup left), each step is
 * reported, and a second run changes nothing. A setup with another key (another vault, key or
 * format) is replaced only with `--replace`, which keeps the earlier public keys in the key
 * Secret (images signed before the rotation stay admitted) until `--retire-old-keys`.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { SETUP_SIGNING } from "./setup_signing_command.ts";
import { formatData } from "../output.ts";
import {
  checkNamespaceName,
  type Logger,
  makeLogger,
  reportData,
  requireNamespace,
  requireTemplateNamespace,
  toolLabels,
} from "../dev/common.ts";
import { cosignPassword } from "./cosign_password.ts";
import {
  connectVault,
  type KeyInMemory,
  readKey,
  type Vault,
  type VaultCredentials,
  vaultCredentials,
} from "./vault_access.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import {
  applyObject,
  type ApplyResult,
  clusterImagePolicies,
  imagePolicies,
  type KubeClient,
  type KubeObject,
  objectNameProblem,
  type ResourceType,
  SECRETS,
} from "../../lib/kube/mod.ts";
import {
  API_GROUP,
  API_VERSION,
  InvalidPolicyError,
  parsePattern,
  patternProblem,
  PORTIERIS_API_GROUP,
  validatePolicy,
} from "../../lib/policy/mod.ts";
import { decodePem, encodePem } from "../../lib/pem.ts";
import {
  isCosignPrivateKey,
  makeSigningKeyPair,
  publicKeySha256,
  type SigningKeyPair,
  signingKeyPairOf,
} from "../../lib/signing/mod.ts";
import { keyFingerprint, readPublicKeys } from "../../lib/signature/mod.ts";
import { DEFAULT_BUILDER_ID_PREFIX } from "../../lib/signing/mod.ts";
import {
  IMAGE_SIGNING_SECRET,
  secretEntries,
  type SigningFormat,
  signingSecretManifest,
  type SigningSetup,
  SigningSetupError,
  signingSetupOf,
} from "../../lib/signing/mod.ts";
import { discoverPipelinesVersion, signTask, tektonApisAt } from "../../lib/tekton/mod.ts";
import { encodeBase64 } from "../../lib/base64.ts";
import {
  KeyNotActiveError,
  KeyNotFoundError,
  type KeyRecord,
  resolveKey,
  storeKey,
  VaultError,
} from "../../lib/vault/mod.ts";

type SetupOptions = OptionsOf<typeof SETUP_SIGNING>;

/** The entry of a key Secret holding the public keys. */
const KEY_ENTRY = "key";

/** A step of the setup, as reported. */
interface Step {
  readonly step: string;
  readonly outcome: string;
  readonly detail?: string;
}

/** Runs `setup-signing`. */
export async function run(options: SetupOptions, ctx: CommandContext): Promise<number> {
  const log = makeLogger(options, ctx.io);
  const flags = await checkFlags(options, ctx);
  using client = await ctx.kube(options);
  const cluster = await checkCluster(client, flags);
  const vault = await connectVault(options, ctx, {}, flags.credentials);
  log.step(`Vault: ${vault.where}`);

  const current = await currentSetup(client, flags);
  const key = await chooseKey(options, ctx, vault, flags, current, log);
  const planned = await plan(client, flags, cluster, vault, key);

  if (options.dryRun) {
    printPlan(ctx, options, planned, key);
    return 0;
  }

  const steps: Step[] = [];
  const results: ApplyResult[] = [];
  const record = (result: ApplyResult) => {
    log.result(result, false);
    results.push(result);
  };
  steps.push({ step: "key", outcome: key.action, detail: describeKey(key) });
  log.info(`Key: ${key.action} ${describeKey(key)}`);

  let keyId = key.record?.id;
  if (key.action === "made") {
    // The alias is the name: IBM's tools reach the key by it too. A rotation moves it to the new
    // key and keeps the old one (active, without the alias) until the user deletes it.
    const stored = await storeKey(vault.client, {
      name: flags.keyName,
      payload: key.pair!.privateKey,
      aliases: [flags.keyName],
      description: `Image signing key (${key.pair!.description}, fingerprint ${
        key.pair!.fingerprint
      }), made by toolkit image-security setup-signing`,
      ...(options.replace ? { replace: "keep" as const } : {}),
    }, {
      now: ctx.clock.now,
      sleep: ctx.clock.sleep,
      progress: (message) => log.step(message),
    });
    keyId = stored.id;
    steps.push({ step: "vault", outcome: "stored", detail: `key "${flags.keyName}" ${stored.id}` });
    log.info(
      `Vault: stored the private key as "${flags.keyName}" (id ${stored.id}, alias ${
        stored.aliases.join(", ")
      }, extractable)`,
    );
    for (const replaced of stored.replaced) {
      log.info(
        `Vault: key ${replaced.key.id} kept, without the alias ${
          replaced.aliasesMoved.join(", ")
        }: delete it once nothing signs with it`,
      );
    }
  } else {
    steps.push({ step: "vault", outcome: "unchanged", detail: `key ${keyId}` });
    log.info(`Vault: the private key is key ${keyId}`);
  }
  key.pair?.privateKey.fill(0);

  const writes: [string, () => Promise<ApplyResult>][] = [
    ["the image-signing Secret", () => applyObject(client, SECRETS, planned.signingSecret(keyId!))],
    ["the public key Secret", () => applyObject(client, SECRETS, planned.keySecret)],
    ["the signing Task", () => applyObject(client, planned.tasks, planned.task)],
    ["the policy", () => applyObject(client, planned.policyType, planned.policy)],
  ];
  for (const [what, write] of writes) {
    try {
      record(await write());
    } catch (error) {
      if (!(error instanceof ToolkitError)) throw error;
      const done = results.map((r) => `${r.type.kind} "${r.name}"`);
      throw new ToolkitError(
        `Cannot write ${what}: ${error.message}` +
          (key.action === "made"
            ? `. The new private key is kept in the vault as key ${keyId}: run setup-signing again with --vault-key ${keyId} to finish`
            : "") +
          (done.length > 0 ? ` (written: ${done.join(", ")}; no policy was applied)` : ""),
        { cause: error },
      );
    }
  }
  const policy = results.at(-1)!;
  log.info(
    `Pipelines in namespaces that hold Secret ${IMAGE_SIGNING_SECRET} (toolkit sync copies it from ${flags.templateNamespace}) sign with key ${key.fingerprint}; ` +
      `${policy.type.kind} "${policy.name}" requires it for ${flags.repositories.join(", ")}`,
  );
  if (options.output) {
    ctx.io.stdout.write(formatData({
      format: flags.format,
      fingerprint: key.fingerprint,
      keyId,
      vault: vault.where,
      templateNamespace: flags.templateNamespace,
      repositories: flags.repositories,
      builderId: flags.builderId,
      steps,
      ...reportData({ results }),
    }, options.output));
  }
  return 0;
}

/** The flags, checked. */
interface Flags {
  readonly repositories: string[];
  readonly templateNamespace: string;
  readonly policyNamespace: string | undefined;
  readonly keySecretNamespace: string;
  readonly keySecretName: string;
  readonly policyName: string;
  readonly keyName: string;
  readonly format: SigningFormat;
  readonly apiKey: string;
  /** The vault credentials, read once (a file, the environment, stdin or a flag). */
  readonly credentials: VaultCredentials;
  readonly mutateImage: boolean;
  readonly retireOldKeys: boolean;
  /** `runDetails.builder.id` of the pipeline's provenance. */
  readonly builderId: string;
}

async function checkFlags(options: SetupOptions, ctx: CommandContext): Promise<Flags> {
  const repositories = (options.repository ?? []).map(String).map((r) => r.trim());
  if (repositories.length === 0) {
    throw new UsageError(
      "Missing --repository: the repositories the pipelines push to, e.g. --repository us.icr.io/team/*",
    );
  }
  for (const repository of repositories) checkRepository(repository);
  const templateNamespace = checkNamespaceName(options.templateNamespace, "template namespace");
  const policyNamespace = options.namespace ? checkNamespaceName(options.namespace) : undefined;
  const keySecretNamespace = policyNamespace ??
    checkNamespaceName(options.controllerNamespace, "controller namespace");
  for (
    const [flag, name] of [
      ["--key-secret", options.keySecret],
      ["--policy-name", options.policyName],
    ] as const
  ) {
    const problem = objectNameProblem(name);
    if (problem) throw new UsageError(`Invalid ${flag} "${name}": ${problem}`);
  }
  const keyName = options.keyName.trim();
  if (keyName.length < 2 || keyName.length > 90) {
    throw new UsageError(
      `Invalid --key-name "${options.keyName}": a vault key name has 2 to 90 characters`,
    );
  }
  const format = options.format as SigningFormat;
  if (format === "cosign" && options.keyType !== "rsa") {
    throw new UsageError("--key-type is for OpenPGP keys (--format simple)");
  }
  const credentials = await vaultCredentials(options, ctx);
  const apiKey = credentials.apiKey;
  if (apiKey === undefined) {
    throw new UsageError(
      "Missing the IAM API key the pipelines sign in with: pass --api-key-file FILE (or " +
        "set IBMCLOUD_API_KEY, or give --api-key -); a --token expires, so it cannot be stored",
    );
  }
  return {
    repositories,
    templateNamespace,
    policyNamespace,
    keySecretNamespace,
    keySecretName: options.keySecret,
    policyName: options.policyName,
    keyName,
    format,
    apiKey,
    credentials,
    mutateImage: options.mutateImage,
    retireOldKeys: options.retireOldKeys === true,
    builderId: checkBuilderId(options.builderId, templateNamespace),
  };
}

/** The provenance's builder id: `--builder-id` (an absolute URI), else toolkit's for the namespace. */
function checkBuilderId(given: string | undefined, templateNamespace: string): string {
  const value = given?.trim();
  if (!value) return `${DEFAULT_BUILDER_ID_PREFIX}${templateNamespace}`;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || /\s/.test(value) || !/^[a-z][a-z0-9+.-]*:/i.test(value)) {
    throw new UsageError(
      `Invalid --builder-id "${given}": expected an absolute URI such as https://tekton.example/team`,
    );
  }
  return value;
}

/** A repository pattern naming a registry and a namespace in it (`HOST/NAMESPACE/*`). */
function checkRepository(repository: string): void {
  const problem = patternProblem(repository);
  if (problem) throw new UsageError(`Invalid --repository "${repository}": it ${problem}`);
  const pattern = parsePattern(repository);
  const first = pattern.path.split("/")[0] ?? "";
  if (
    pattern.host === undefined || pattern.host.includes("*") || first === "" ||
    first.includes("*") || !repository.includes("/")
  ) {
    throw new UsageError(
      `Invalid --repository "${repository}": name the registry and a namespace in it ` +
        "(HOST/NAMESPACE/*, e.g. us.icr.io/team/*): a wider pattern would require this key's " +
        "signature of images nobody here builds (system images too)",
    );
  }
}

/** What the cluster serves, checked. */
interface Cluster {
  readonly policyGroup: string;
  readonly pipelinesVersion: "v1" | "v1beta1";
}

async function checkCluster(client: KubeClient, flags: Flags): Promise<Cluster> {
  await requireTemplateNamespace(client, flags.templateNamespace);
  await requireNamespace(client, flags.keySecretNamespace);
  const [toolkit, portieris, pipelinesVersion] = await Promise.all([
    client.discovery.servedVersions(API_GROUP),
    client.discovery.servedVersions(PORTIERIS_API_GROUP),
    discoverPipelinesVersion(client),
  ]);
  const policyGroup = toolkit.includes(API_VERSION)
    ? API_GROUP
    : portieris.includes(API_VERSION)
    ? PORTIERIS_API_GROUP
    : undefined;
  if (policyGroup === undefined) {
    throw new ToolkitError(
      "The cluster has no image policy API (toolkit.dev/v1 or portieris.cloud.ibm.com/v1): " +
        "enable enforcement first with `toolkit image-security enable`",
    );
  }
  if (pipelinesVersion !== "v1" && pipelinesVersion !== "v1beta1") {
    throw new ToolkitError(
      `The cluster serves Tekton Pipelines at tekton.dev/${pipelinesVersion} only: the signing Task needs v1 or v1beta1; upgrade Tekton`,
    );
  }
  return { policyGroup, pipelinesVersion };
}

/** The setup an earlier run left in the template namespace, if any. */
async function currentSetup(
  client: KubeClient,
  flags: Flags,
): Promise<{ setup?: SigningSetup; broken?: string } | undefined> {
  const secret = await client.read(SECRETS, flags.templateNamespace, IMAGE_SIGNING_SECRET);
  if (!secret) return undefined;
  try {
    return {
      setup: signingSetupOf(
        secretEntries(secret),
        `Secret "${flags.templateNamespace}/${IMAGE_SIGNING_SECRET}"`,
      ),
    };
  } catch (error) {
    if (error instanceof SigningSetupError) return { broken: error.message };
    throw error;
  }
}

/** The key the setup signs with, and how it was found. */
interface ChosenKey {
  readonly action: "made" | "reused" | "adopted";
  readonly format: SigningFormat;
  readonly fingerprint: string;
  readonly publicKey: string;
  /** The new pair (`made`; absent in a dry run). */
  readonly pair?: SigningKeyPair;
  /** The vault's key (`reused`, `adopted`). */
  readonly record?: KeyRecord;
  readonly cosignPassword?: string | undefined;
  readonly description: string;
}

function describeKey(key: ChosenKey): string {
  return `${key.description} key ${key.fingerprint}${
    key.record ? ` (vault key ${key.record.id})` : ""
  }`;
}

function sameUrl(a: string, b: string): boolean {
  const clean = (u: string) => u.trim().replace(/\/+$/, "").replace(/\/api\/v2$/, "");
  return clean(a) === clean(b);
}

async function chooseKey(
  options: SetupOptions,
  ctx: CommandContext,
  vault: Vault,
  flags: Flags,
  current: { setup?: SigningSetup; broken?: string } | undefined,
  log: Logger,
): Promise<ChosenKey> {
  const where = `Secret "${flags.templateNamespace}/${IMAGE_SIGNING_SECRET}"`;
  const replace = options.replace === true;
  const setup = current?.setup;
  if (current?.broken && !replace) {
    throw new UsageError(`${current.broken}; or pass --replace to set signing up anew`);
  }
  if (setup && !replace) {
    const differences: string[] = [];
    if (!sameUrl(setup.vaultUrl, vault.baseUrl) || setup.instanceId !== vault.instanceId) {
      differences.push(`it uses the vault ${setup.vaultUrl} (instance ${setup.instanceId})`);
    }
    if (setup.format !== flags.format) differences.push(`its key is a ${setup.format} key`);
    if (differences.length === 0 && options.vaultKey) {
      const wanted = await resolveKey(vault.client, options.vaultKey);
      if (wanted.key.id !== setup.keyId) differences.push(`it signs with vault key ${setup.keyId}`);
    }
    if (differences.length > 0) {
      throw new UsageError(
        `Signing is set up with another key: ${where}: ${differences.join("; ")}. ` +
          "Pass --replace to replace it (the old public key stays trusted until --retire-old-keys)",
      );
    }
    let held: KeyInMemory;
    try {
      held = await readKey(vault, setup.keyId, ctx.io);
    } catch (error) {
      if (error instanceof KeyNotFoundError || error instanceof KeyNotActiveError) {
        throw new UsageError(
          `${where} names vault key ${setup.keyId}, which cannot be used (${error.message}): ` +
            "pass --replace to make a new key",
          { cause: error },
        );
      }
      throw error;
    }
    const pair = await signingKeyPairOf(held.material, `vault key ${held.key.id}`, {
      cosignPassword: setup.cosignPassword,
    });
    held.material.fill(0);
    if (setup.fingerprint && setup.fingerprint.toLowerCase() !== pair.fingerprint.toLowerCase()) {
      throw new UsageError(
        `${where} names the fingerprint ${setup.fingerprint}, but vault key ${held.key.id} is ` +
          `${pair.fingerprint}: pass --replace to set signing up with one key again`,
      );
    }
    log.step(`Reusing the signing key of ${where}`);
    return keyFrom("reused", pair, held.key);
  }
  if (options.vaultKey) {
    const held = await readKey(vault, options.vaultKey, ctx.io);
    const password = isCosignPrivateKey(held.material)
      ? (await cosignPassword(ctx, options, { message: `Password of vault key ${held.key.id}` }))
        ?.password
      : undefined;
    const pair = await signingKeyPairOf(held.material, `vault key "${options.vaultKey}"`, {
      cosignPassword: password,
    });
    held.material.fill(0);
    if (pair.format !== flags.format) {
      throw new UsageError(
        `Vault key "${options.vaultKey}" is a ${pair.format} key: pass --format ${pair.format}`,
      );
    }
    return keyFrom("adopted", pair, held.key);
  }
  // The vault is reached, and the credentials checked, before a key is made; a key holding the
  // alias the new key takes is in the way unless this is a rotation.
  const holder = await keyWithAlias(vault, flags.keyName);
  if (holder && !replace) {
    throw new UsageError(
      `${vault.where} has a key with the alias "${flags.keyName}" already (id ${holder.id}): ` +
        `use it with --vault-key ${holder.id}, rotate to a new key with --replace, or name the ` +
        "new key with --key-name",
    );
  }
  if (options.dryRun) {
    return {
      action: "made",
      format: flags.format,
      fingerprint: "<new key>",
      publicKey: "<the new public key>",
      description: flags.format === "cosign" ? "a new ECDSA P-256 (cosign)" : "a new OpenPGP",
    };
  }
  log.step("Making the key pair in memory");
  const pair = await makeSigningKeyPair({
    format: flags.format,
    keyType: options.keyType as "rsa" | "ed25519",
    name: options.signer,
    email: options.signerEmail || undefined,
  });
  return { ...keyFrom("made", pair), pair };
}

/** The key holding `alias`, if any (its metadata: no material). */
async function keyWithAlias(vault: Vault, alias: string): Promise<KeyRecord | undefined> {
  try {
    return await vault.client.getKeyMetadata(alias);
  } catch (error) {
    if (error instanceof VaultError && error.status === 404) return undefined;
    throw error;
  }
}

function keyFrom(
  action: ChosenKey["action"],
  pair: SigningKeyPair,
  record?: KeyRecord,
): ChosenKey {
  return {
    action,
    format: pair.format,
    fingerprint: pair.fingerprint,
    publicKey: pair.publicKey,
    cosignPassword: pair.cosignPassword,
    description: pair.description,
    ...(record ? { record } : {}),
  };
}

/** Everything to write, made before the first write. */
interface Plan {
  readonly signingSecret: (keyId: string) => KubeObject;
  readonly keySecret: KubeObject;
  readonly tasks: ResourceType;
  readonly task: KubeObject;
  readonly policyType: ResourceType;
  readonly policy: KubeObject;
  /** Earlier public keys kept in the key Secret. */
  readonly keptKeys: number;
}

async function plan(
  client: KubeClient,
  flags: Flags,
  cluster: Cluster,
  vault: Vault,
  key: ChosenKey,
): Promise<Plan> {
  const keySecretRef = `${flags.keySecretNamespace}/${flags.keySecretName}`;
  const setup = (keyId: string): SigningSetup => ({
    vaultUrl: vault.baseUrl,
    instanceId: vault.instanceId,
    keyId,
    ...(vault.keyRing !== undefined ? { keyRing: vault.keyRing } : {}),
    iamUrl: vault.iamUrl,
    apiKey: flags.apiKey,
    fingerprint: key.fingerprint,
    format: key.format,
    keySecret: keySecretRef,
    repositories: flags.repositories,
    builderId: flags.builderId,
    ...(key.cosignPassword !== undefined ? { cosignPassword: key.cosignPassword } : {}),
  });
  const managed = { "app.kubernetes.io/managed-by": "toolkit" };
  const signingSecret = (keyId: string) =>
    signingSecretManifest(setup(keyId), {
      namespace: flags.templateNamespace,
      labels: { ...toolLabels(IMAGE_SIGNING_SECRET), ...managed },
    });

  const existing = await client.read(SECRETS, flags.keySecretNamespace, flags.keySecretName);
  const kept = existing && !key.fingerprint.startsWith("<")
    ? await otherPublicKeys(existing, key, keySecretRef)
    : [];
  const keys = [key.publicKey.trim(), ...(flags.retireOldKeys ? [] : kept)];
  const keySecret: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: flags.keySecretName,
      namespace: flags.keySecretNamespace,
      labels: { ...managed, "app.kubernetes.io/part-of": "toolkit" },
      annotations: {
        description:
          "Public keys the image policy trusts (entry key); written by toolkit image-security setup-signing",
      },
    },
    type: "Opaque",
    data: { [KEY_ENTRY]: encodeBase64(`${keys.join("\n")}\n`) },
  };

  const clusterWide = flags.policyNamespace === undefined;
  // A cosign key's signatures are required by sigstoreSigned (keyed: PEM keys, no transparency
  // log needed, as the signing step makes none), an OpenPGP key's by signedBy.
  const requirement = {
    type: key.format === "cosign" ? "sigstoreSigned" : "signedBy",
    keySecret: flags.keySecretName,
    ...(clusterWide ? { keySecretNamespace: flags.keySecretNamespace } : {}),
  };
  const policy: KubeObject = {
    apiVersion: `${cluster.policyGroup}/${API_VERSION}`,
    kind: clusterWide ? "ClusterImagePolicy" : "ImagePolicy",
    metadata: {
      name: flags.policyName,
      ...(clusterWide ? {} : { namespace: flags.policyNamespace }),
      labels: { ...managed, "app.kubernetes.io/part-of": "toolkit" },
    },
    spec: {
      repositories: flags.repositories.map((name) => ({
        name,
        policy: {
          ...(flags.mutateImage ? {} : { mutateImage: false }),
          simple: { requirements: [requirement] },
        },
      })),
    },
  };
  try {
    validatePolicy(policy, [cluster.policyGroup]);
  } catch (error) {
    if (error instanceof InvalidPolicyError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const apis = tektonApisAt(cluster.pipelinesVersion, "v1beta1");
  return {
    signingSecret,
    keySecret,
    tasks: apis.tasks,
    task: signTask({ version: cluster.pipelinesVersion, namespace: flags.templateNamespace }),
    policyType: clusterWide
      ? clusterImagePolicies(cluster.policyGroup)
      : imagePolicies(cluster.policyGroup),
    policy,
    keptKeys: flags.retireOldKeys ? 0 : kept.length,
  };
}

/**
 * The public keys of the key Secret other than `key`'s, each as one block (armoured OpenPGP, or
 * PEM for cosign keys), in their order.
 */
async function otherPublicKeys(
  secret: KubeObject,
  key: ChosenKey,
  where: string,
): Promise<string[]> {
  const text = secretEntries(secret)[KEY_ENTRY];
  if (text === undefined || text.trim() === "") return [];
  try {
    if (key.format === "simple") {
      return (await readPublicKeys(text))
        .filter((k) => keyFingerprint(k) !== key.fingerprint.toUpperCase())
        .map((k) => k.armor().trim());
    }
    const others: string[] = [];
    for (const block of decodePem(text)) {
      if (block.label !== "PUBLIC KEY") continue;
      if ((await publicKeySha256(block.bytes)).toHex() === key.fingerprint) continue;
      others.push(encodePem(block.label, block.bytes).trim());
    }
    return others;
  } catch (error) {
    throw new ToolkitError(
      `Cannot read the public keys of Secret "${where}" (entry "${KEY_ENTRY}"): ${
        error instanceof Error ? error.message : error
      }; fix or delete it, or name another Secret with --key-secret`,
      { cause: error },
    );
  }
}

/** `--dry-run`: every object that would be written (the API key redacted), in order. */
function printPlan(ctx: CommandContext, options: SetupOptions, planned: Plan, key: ChosenKey) {
  const redacted = planned.signingSecret(key.record?.id ?? "<the new key's id>");
  const data = redacted.data as Record<string, string>;
  data.apikey = encodeBase64("<redacted>");
  if (data["cosign-password"]) data["cosign-password"] = encodeBase64("<redacted>");
  const objects = [redacted, planned.keySecret, planned.task, planned.policy];
  ctx.io.stderr.write(
    key.action === "made"
      ? "Dry run: a new key would be made and stored in the vault; nothing was written\n"
      : `Dry run: the ${key.action === "reused" ? "current" : "given"} vault key ${
        key.record!.id
      } would be used; nothing was written\n`,
  );
  ctx.io.stdout.write(
    options.output === "json"
      ? formatData({ apiVersion: "v1", kind: "List", items: objects }, "json")
      : objects.map((o) => formatData(o, "yaml")).join("---\n"),
  );
}
