/**
 * `toolkit image-security key-secret NAME --key FILE [-n NS]`: creates (or updates) the
 * generic Secret whose `key` entry holds the public key(s) that a policy's requirement names in
 * `keySecret`: armoured OpenPGP keys for `signedBy`, PEM public keys (`cosign.pub`) for
 * `sigstoreSigned`. The file is checked first: it must hold public keys only, so a private key
 * is never uploaded by mistake. Enforcement trusts what the Secret holds, so a Secret of that
 * name that holds other keys (or is not a key Secret at all) is replaced only with `--replace`,
 * or a yes on a terminal (`cli/replace.ts`); the same keys again change nothing. `--dry-run`
 * prints the Secret.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { KEY_SECRET } from "./key_secret_command.ts";
import { applyOne } from "./apply_one.ts";
import { readKeyAs, readUserFile } from "./files.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { encodeBase64 } from "../../lib/mod.ts";
import { UsageError } from "../../lib/errors.ts";
import { type KubeObject, objectNameProblem, SECRETS } from "../../lib/kube/mod.ts";
import { keyFingerprint, readPublicKeys } from "../../lib/signature/mod.ts";
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

/** The keys of a key file, as the Secret keeps them, and their fingerprints (or key ids). */
async function keysOf(bytes: Uint8Array): Promise<{ armoured: string; fingerprints: string[] }> {
  if (isPemPublicKey(bytes)) {
    // PEM keys for sigstoreSigned, each re-encoded, with its id (sha256 of the DER key).
    const keys = await readSigstorePublicKeys(new TextDecoder().decode(bytes));
    return { armoured: keys.map((k) => k.pem).join(""), fingerprints: keys.map((k) => k.id) };
  }
  const keys = await readPublicKeys(bytes);
  // Kept armoured, one block per key, as Portieris and toolkit read it.
  return {
    armoured: keys.map((k) => k.armor()).join("\n"),
    fingerprints: keys.map(keyFingerprint),
  };
}

/**
 * How an existing Secret differs from one holding `armoured` (after "already"), or undefined
 * when it holds exactly these keys.
 */
async function heldKeys(secret: KubeObject, armoured: string): Promise<string | undefined> {
  const data = (secret as { data?: Record<string, string> }).data ?? {};
  const encoded = data.key;
  if (encoded === undefined) {
    const entries = Object.keys(data);
    return `exists and is not a key Secret (${
      entries.length ? `entries: ${entries.join(", ")}` : "no entries"
    })`;
  }
  const text = decodeBase64Text(encoded);
  if (text === armoured) return undefined;
  try {
    const { fingerprints } = await keysOf(new TextEncoder().encode(text));
    return `holds other keys (${fingerprints.join(", ")})`;
  } catch {
    return "exists and its key entry holds no public key";
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
  const { armoured, fingerprints } = await readKeyAs(() => keysOf(bytes));
  return await applyOne(options, ctx, {
    type: SECRETS,
    name,
    manifest: (namespace) => keySecretManifest(name, namespace, armoured),
    detail: ` with ${fingerprints.length} key${fingerprints.length === 1 ? "" : "s"}: ${
      fingerprints.join(", ")
    }`,
    extra: { fingerprints },
    held: (existing) => heldKeys(existing, armoured),
  });
}
