/**
 * `toolkit image-security key-secret NAME --key FILE [-n NS]`: creates the generic Secret whose
 * `key` entry holds the armoured OpenPGP public key(s) that a policy's `signedBy` requirement
 * names in `keySecret`. The file is checked first: it must hold public keys only, so a private
 * key is never uploaded by mistake. Enforcement trusts what the Secret holds, so a Secret of
 * that name that holds other keys (or is not a key Secret at all) is replaced only with
 * `--replace`, or a yes on a terminal (`cli/replace.ts`); the same keys again change nothing.
 * `--dry-run` prints the Secret.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { KEY_SECRET } from "./key_secret_command.ts";
import { formatData } from "../output.ts";
import { namespaceOf, printReport, requireNamespace } from "../dev/common.ts";
import { readKeyAs, readUserFile } from "./files.ts";
import { encodeBase64 } from "../../lib/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { confirmReplace } from "../replace.ts";
import { UsageError } from "../../lib/errors.ts";
import { applyObject, type KubeObject, objectNameProblem, SECRETS } from "../../lib/kube/mod.ts";
import { keyFingerprint, readPublicKeys } from "../../lib/signature/mod.ts";

/** The Secret for the keys in `armoured`, in `namespace` (undefined: the context's). */
export function keySecretManifest(
  name: string,
  namespace: string | undefined,
  armoured: string,
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      labels: { "app.kubernetes.io/managed-by": "toolkit" },
    },
    type: "Opaque",
    data: { key: encodeBase64(armoured) },
  };
}

/** What an existing Secret holds: its `key` entry, and how messages describe it. */
async function heldKeys(
  secret: KubeObject,
): Promise<{ armoured: string | undefined; description: string }> {
  const data = (secret as { data?: Record<string, string> }).data ?? {};
  const entries = Object.keys(data);
  const encoded = data.key;
  if (encoded === undefined) {
    return {
      armoured: undefined,
      description: `exists and is not a key Secret (${
        entries.length ? `entries: ${entries.join(", ")}` : "no entries"
      })`,
    };
  }
  const text = decodeBase64Text(encoded);
  try {
    const keys = await readPublicKeys(new TextEncoder().encode(text));
    return {
      armoured: text,
      description: `holds other keys (${keys.map(keyFingerprint).join(", ")})`,
    };
  } catch {
    return { armoured: text, description: "exists and its key entry holds no public key" };
  }
}

/** Runs `key-secret`. */
export async function run(
  options: OptionsOf<typeof KEY_SECRET>,
  ctx: CommandContext,
): Promise<number> {
  const name = options.name;
  const problem = objectNameProblem(name);
  if (problem) throw new UsageError(`Invalid Secret name "${name}": ${problem}`);
  const bytes = await readUserFile(ctx.io.cwd, options.key, "--key");
  const keys = await readKeyAs(() => readPublicKeys(bytes));
  // Kept armoured, one block per key, as Portieris and toolkit read it.
  const armoured = keys.map((k) => k.armor()).join("\n");
  const fingerprints = keys.map(keyFingerprint);
  if (options.dryRun) {
    const manifest = keySecretManifest(name, options.namespace || undefined, armoured);
    ctx.io.stdout.write(formatData(manifest, options.output ?? "yaml"));
    return 0;
  }
  using client = await ctx.kube(options);
  const namespace = namespaceOf(options.namespace, client);
  await requireNamespace(client, namespace);
  const existing = await client.read(SECRETS, namespace, name);
  if (existing !== undefined) {
    const held = await heldKeys(existing);
    if (held.armoured !== armoured) {
      await confirmReplace(ctx, {
        what: `Secret "${namespace}/${name}"`,
        differs: held.description,
        replace: options.replace,
      });
    }
  }
  const result = await applyObject(
    client,
    SECRETS,
    keySecretManifest(name, namespace, armoured) as never,
  );
  ctx.io.stderr.write(
    `Secret "${namespace}/${name}" ${result.outcome} with ${keys.length} key${
      keys.length === 1 ? "" : "s"
    }: ${fingerprints.join(", ")}\n`,
  );
  printReport(ctx.io, options.output, { results: [result] }, { fingerprints });
  return 0;
}
