/**
 * `toolkit image-security key-secret NAME --key FILE [-n NS]`: creates (or updates) the
 * generic Secret whose `key` entry holds the armoured OpenPGP public key(s) that a policy's
 * `signedBy` requirement names in `keySecret`. The file is checked first: it must hold public
 * keys only, so a private key is never uploaded by mistake. `--dry-run` prints the Secret.
 *
 * @module
 */
import type { CommandArgs, CommandContext } from "../command.ts";
import { formatData, outputFormat } from "../output.ts";
import { connect, namespaceOf, requireNamespace, stringArg } from "../dev/common.ts";
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
export async function run(args: CommandArgs, ctx: CommandContext): Promise<number> {
  const format = outputFormat(args, ["yaml", "json"], "yaml") as "yaml" | "json";
  const name = String(args.name);
  const problem = objectNameProblem(name);
  if (problem) throw new UsageError(`Invalid Secret name "${name}": ${problem}`);
  const bytes = await readUserFile(ctx.io.cwd, String(args.key), "--key");
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
  if (args["dry-run"] === true) {
    const namespace = stringArg(args, "namespace");
    ctx.io.stdout.write(formatData(keySecretManifest(name, namespace, armoured), format));
    return 0;
  }
  const client = await connect(args, ctx);
  const namespace = namespaceOf(args, client);
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
  return 0;
}
