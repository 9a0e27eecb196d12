/**
 * `toolkit image-security key-secret NAME --key FILE [-n NS]`: creates (or updates) the
 * generic Secret whose `key` entry holds the armoured OpenPGP public key(s) that a policy's
 * `signedBy` requirement names in `keySecret`. The file is checked first: it must hold public
 * keys only, so a private key is never uploaded by mistake. `--dry-run` prints the Secret.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { KEY_SECRET } from "./key_secret_command.ts";
import { formatData } from "../output.ts";
import { namespaceOf, printReport, requireNamespace } from "../dev/common.ts";
import { readUserFile } from "./files.ts";
import { encodeBase64 } from "../../lib/mod.ts";
import { UsageError } from "../../lib/errors.ts";
import { applyObject, type KubeObject, objectNameProblem, SECRETS } from "../../lib/kube/mod.ts";
import { InvalidKeyError, keyFingerprint, readPublicKeys } from "../../lib/signature/mod.ts";

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

/** Runs `key-secret`. */
export async function run(
  options: OptionsOf<typeof KEY_SECRET>,
  ctx: CommandContext,
): Promise<number> {
  const name = options.name;
  const problem = objectNameProblem(name);
  if (problem) throw new UsageError(`Invalid Secret name "${name}": ${problem}`);
  const bytes = await readUserFile(ctx.io.cwd, options.key, "--key");
  let keys;
  try {
    keys = await readPublicKeys(bytes);
  } catch (error) {
    if (error instanceof InvalidKeyError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
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
