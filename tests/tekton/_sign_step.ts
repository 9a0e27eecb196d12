/**
 * The signing Task's step run here as the Pod Tekton builds would run it (`runStep` of
 * tests/env/tekton_pipeline.ts), for the signing end-to-end tests and the demo: the container's
 * `/usr/local/bin/toolkit` (the CLI image's binary, compiled from `cli/main.ts`) is `cli/main.ts`
 * run by Deno, allowed to write only to the step's writable volumes (the container's root
 * filesystem is read-only); the Secrets are those of the cluster's namespace, read with kubectl.
 * And the enforcement the signature is for: the webhook registered with the API server, and Pods
 * created through it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { kubectlOk, type TestCluster } from "../env/cluster.ts";
import {
  CONTROLLER_NAMESPACE,
  dryRunPod,
  eventually,
  podManifest,
  startWebhook,
  type TestWebhook,
  WEBHOOK_NAME,
  webhookConfiguration,
} from "../admission/_webhook.ts";
import { type Json, runStep, type StepResult, taskRunPod } from "../env/tekton_pipeline.ts";
import { TOOLKIT_BINARY } from "../../lib/tekton/mod.ts";
import { createKeyProtectClient } from "../../lib/vault/mod.ts";
import { startKeyProtectServer } from "../fakes/key_protect_server.ts";
import * as openpgp from "openpgp";
import { decodeBase64 } from "../../lib/base64.ts";
import { dssePae } from "../../lib/signature/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** How the step's `toolkit` runs here: `cli/main.ts`, no program to run (no gpg), writes limited. */
export function toolkitInStep(writable: readonly string[]): string[] {
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    `--config=${ROOT}deno.json`,
    "--allow-read",
    "--allow-net",
    "--allow-env",
    "--allow-sys",
    ...(writable.length > 0 ? [`--allow-write=${writable.join(",")}`] : []),
    `${ROOT}cli/main.ts`,
  ];
}

/**
 * What the runtime brings besides the container's environment: Deno's own cache (the image's
 * binary is compiled and needs none) and, with `trust`, the CA of a test registry served over
 * HTTPS as the image's trust store (a real registry's certificate is publicly trusted).
 */
export function runtimeEnv(trust?: string): Record<string, string> {
  const home = Deno.env.get("HOME") ?? "/root";
  return {
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${home}/.cache/deno`,
    ...(trust ? { DENO_CERT: trust } : {}),
  };
}

/** The Secrets of `namespace`, as the API server has them. */
export async function namespaceSecrets(
  cluster: TestCluster,
  namespace: string,
): Promise<Record<string, Json>> {
  const list = JSON.parse(
    await kubectlOk(cluster, ["get", "secrets", "-n", namespace, "-o", "json"]),
  ) as { items: Json[] };
  return Object.fromEntries(list.items.map((s) => [s.metadata.name, s]));
}

/** Builds the Pod of `taskRun` with Tekton's code and runs its `sign` step (or `step`). */
export async function runSignStep(options: {
  /** The step to run: `sign` (default) or `provenance`. */
  readonly step?: string;
  readonly task: Json;
  readonly taskRun: Json;
  readonly secrets: Record<string, Json>;
  /** Directories of workspaces, by mount path. */
  readonly volumes?: Record<string, string>;
  /** A CA file the step trusts (see {@link runtimeEnv}). */
  readonly trust?: string;
}): Promise<StepResult & { readonly pod: Json }> {
  const pod = await taskRunPod(options.task, options.taskRun);
  const result = await runStep({
    pod,
    step: options.step ?? "sign",
    secrets: options.secrets,
    ...(options.volumes ? { volumes: options.volumes } : {}),
    commands: { [TOOLKIT_BINARY]: toolkitInStep },
    runtimeEnv: runtimeEnv(options.trust),
  });
  return { ...result, pod };
}

/** Every file under `dirs` whose content holds `needle` (a private key must be in none). */
export async function filesHolding(dirs: readonly string[], needle: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        const text = new TextDecoder().decode(
          await Deno.readFile(path).catch(() => new Uint8Array()),
        );
        if (text.includes(needle)) found.push(path);
      }
    }
  };
  for (const dir of dirs) await walk(dir);
  return found;
}

/** The Key Protect stand-in with one API key, as the signing tests use it. */
export interface SigningVault extends AsyncDisposable {
  readonly url: string;
  readonly iamUrl: string;
  readonly instanceId: string;
  readonly apiKey: string;
  /** `--kms-url`, `--instance-id`, `--iam-url`. */
  readonly flags: readonly string[];
  /** A line of the body of the (one) signing key's armoured private key: no output may hold it. */
  privateKeyLine(): Promise<string>;
}

/** Starts the Key Protect and IAM stand-in (`tests/fakes/key_protect_server.ts`). */
export async function startSigningVault(): Promise<SigningVault> {
  const instanceId = crypto.randomUUID();
  const apiKey = `signing-test-${crypto.randomUUID()}`;
  const token = `token-${crypto.randomUUID()}`;
  const vault = await startKeyProtectServer({ instanceId, apiKeys: [apiKey], tokens: [token] });
  const client = createKeyProtectClient({
    baseUrl: vault.url,
    instanceId,
    token: () => Promise.resolve(token),
  });
  return {
    url: vault.url,
    iamUrl: vault.iamUrl,
    instanceId,
    apiKey,
    flags: ["--kms-url", vault.url, "--instance-id", instanceId, "--iam-url", vault.iamUrl],
    async privateKeyLine() {
      const keys = (await client.listKeys()).filter((k) => k.extractable);
      if (keys.length !== 1) throw new Error(`the vault holds ${keys.length} signing keys`);
      const lines = new TextDecoder().decode((await client.getKey(keys[0]!.id)).payload)
        .split("\n").filter((l) => l.length > 40);
      return lines[Math.floor(lines.length / 2)]!;
    },
    [Symbol.asyncDispose]: () => vault.stop(),
  };
}

/** The webhook started for `cluster` and registered with its API server, which now calls it. */
export async function startEnforcement(
  cluster: TestCluster,
  options: {
    /** Webhook flags besides the cluster's (`--insecure-registry`, `--registries.d`, …). */
    readonly args: readonly string[];
    /** A namespace and an image the webhook denies, to tell when the API server calls it. */
    readonly probe: { readonly namespace: string; readonly image: string };
  },
): Promise<TestWebhook> {
  const webhook = await startWebhook([
    "--kubeconfig",
    cluster.kubeconfigPath,
    "--namespace",
    CONTROLLER_NAMESPACE,
    ...options.args,
  ]);
  try {
    await kubectlOk(cluster, ["apply", "-f", "-"], webhookConfiguration(webhook.url, webhook.ca));
    await eventually("the API server to call the webhook", async () => {
      const r = await dryRunPod(cluster, "probe", options.probe.namespace, options.probe.image);
      return r.code !== 0 && r.stderr.includes(WEBHOOK_NAME);
    });
    return webhook;
  } catch (error) {
    await webhook.stop();
    throw error;
  }
}

/** Creates a Pod of `image`: the image as the API server stored it, or why it was refused. */
export async function createPod(
  cluster: TestCluster,
  namespace: string,
  name: string,
  image: string,
): Promise<{ admitted: true; image: string } | { admitted: false; message: string }> {
  const r = await cluster.kubectl(["create", "-f", "-"], {
    stdin: podManifest(name, namespace, { containers: [image] }),
  });
  if (r.code !== 0) return { admitted: false, message: r.stderr };
  const stored = await kubectlOk(cluster, [
    "get",
    "pod",
    name,
    "-n",
    namespace,
    "-o",
    "jsonpath={.spec.containers[0].image}",
  ]);
  return { admitted: true, image: stored };
}

/**
 * With the webhook enforcing (its flags `webhookArgs`), a Pod of `signed` is admitted and stored
 * as `pinned`, and a Pod of `unsigned` is denied with `denial`.
 */
export async function assertEnforced(
  cluster: TestCluster,
  options: {
    readonly webhookArgs: readonly string[];
    readonly namespace: string;
    readonly signed: string;
    readonly pinned: string;
    readonly unsigned: string;
    readonly denial: RegExp;
  },
): Promise<void> {
  await using _webhook = await startEnforcement(cluster, {
    args: options.webhookArgs,
    probe: { namespace: options.namespace, image: options.unsigned },
  });
  assert.deepEqual(await createPod(cluster, options.namespace, "signed", options.signed), {
    admitted: true,
    image: options.pinned,
  });
  const denied = await createPod(cluster, options.namespace, "unsigned", options.unsigned);
  assert.equal(denied.admitted, false);
  assert.match((denied as { message: string }).message, options.denial);
}

/** The DSSE envelopes (parsed) of the `sha256-<hex>.att` tag of `digest`, read over plain HTTP. */
export async function attestationEnvelopes(
  registryUrl: string,
  repository: string,
  digest: string,
): Promise<{ envelope: Json; predicateType: string }[]> {
  const tag = `${digest.replace(":", "-")}.att`;
  const answer = await fetch(`${registryUrl}/v2/${repository}/manifests/${tag}`, {
    headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
  });
  if (answer.status === 404) {
    await answer.body?.cancel();
    return [];
  }
  assert.equal(answer.status, 200, `${tag}: ${answer.status}`);
  const manifest = await answer.json() as {
    layers: { digest: string; mediaType: string; annotations: Record<string, string> }[];
  };
  return await Promise.all(manifest.layers.map(async (layer) => {
    assert.equal(layer.mediaType, "application/vnd.dsse.envelope.v1+json");
    const blob = await fetch(`${registryUrl}/v2/${repository}/blobs/${layer.digest}`);
    return { envelope: await blob.json(), predicateType: layer.annotations.predicateType! };
  }));
}

/**
 * The statement of an OpenPGP attestation, read as a verifier reads it: the DSSE signature (a
 * binary detached OpenPGP signature over the PAE) verified with `armoredPublicKey` first.
 */
export async function verifiedOpenPgpStatement(
  envelope: Json,
  armoredPublicKey: string,
): Promise<Json> {
  const payload = decodeBase64(envelope.payload);
  const publicKey = await openpgp.readKey({ armoredKey: armoredPublicKey });
  const verified = await openpgp.verify({
    message: await openpgp.createMessage({ binary: dssePae(envelope.payloadType, payload) }),
    signature: await openpgp.readSignature({
      binarySignature: decodeBase64(envelope.signatures[0].sig),
    }),
    verificationKeys: publicKey,
    expectSigned: true,
  });
  await verified.signatures[0]!.verified;
  assert.equal(envelope.signatures[0].keyid, publicKey.getFingerprint().toUpperCase());
  return JSON.parse(new TextDecoder().decode(payload));
}
