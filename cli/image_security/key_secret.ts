/**
 * `toolkit image-security key-secret NAME --key FILE [-n NS]`: creates (or updates) the
 * generic Secret whose `key` entry holds the public key(s) that a policy's requirement names in
 * `keySecret`: armoured OpenPGP keys for `signedBy`, PEM public keys (`cosign.pub`) for
 * `sigstoreSigned`. The file is checked first: it must hold public keys only, so a private key
 * is never uploaded by mistake. `--dry-run` prints the Secret.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { KEY_SECRET } from "./key_secret_command.ts";
import { applyOne } from "./apply_one.ts";
import { readUserFile } from "./files.ts";
import { encodeBase64 } from "../../lib/mod.ts";
import { UsageError } from "../../lib/errors.ts";
import { type KubeObject, objectNameProblem, SECRETS } from "../../lib/kube/mod.ts";
import { InvalidKeyError, keyFingerprint, readPublicKeys } from "../../lib/signature/mod.ts";
import { isPemPublicKey, readSigstorePublicKeys } from "../../lib/sigstore/mod.ts";

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
  let armoured: string;
  let fingerprints: string[];
  try {
    if (isPemPublicKey(bytes)) {
      // PEM keys for sigstoreSigned, each re-encoded, with its id (sha256 of the DER key).
      const keys = await readSigstorePublicKeys(new TextDecoder().decode(bytes));
      armoured = keys.map((k) => k.pem).join("");
      fingerprints = keys.map((k) => k.id);
    } else {
      const keys = await readPublicKeys(bytes);
      // Kept armoured, one block per key, as Portieris and toolkit read it.
      armoured = keys.map((k) => k.armor()).join("\n");
      fingerprints = keys.map(keyFingerprint);
    }
  } catch (error) {
    if (error instanceof InvalidKeyError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  return await applyOne(options, ctx, {
    type: SECRETS,
    name,
    manifest: (namespace) => keySecretManifest(name, namespace, armoured),
    detail: ` with ${fingerprints.length} key${fingerprints.length === 1 ? "" : "s"}: ${
      fingerprints.join(", ")
    }`,
    extra: { fingerprints },
  });
}
