/**
 * Node's default digest for `crypto.verify(null, data, key, signature)`, which Deno's
 * `node:crypto` lacks. Node (OpenSSL 3) hashes with SHA-256 when no algorithm is given for an
 * EC or RSA key; Deno 2.9 throws `no default digest` instead. `@sigstore/core` verifies Rekor's
 * signed entry timestamps, checkpoints, SCTs and timestamp responses exactly that way and turns
 * the throw into `false`, so under Deno every inclusion promise "could not be verified" (it fails
 * closed, but nothing verifies). Bun had the same gap (oven-sh/bun#40559, fixed by
 * oven-sh/bun#33753 the same way).
 *
 * {@linkcode installNodeDefaultDigest} wraps the `verify` of `node:crypto`'s module object (the
 * one `require("crypto")` returns to npm packages) so that a missing algorithm for an EC, RSA or
 * DSA key means SHA-256, as in Node. Every other call (an algorithm given, Ed25519, Ed448,
 * RSA-PSS keys with their own parameters) is passed through unchanged: a call that worked before
 * works the same, one that threw for the missing default now behaves as in Node. It is the one
 * change toolkit makes to a runtime module, made on purpose and only here; remove it once Deno's
 * `node:crypto` supplies the default.
 *
 * @module
 */
import nodeCrypto from "node:crypto";

/** Key types whose default digest OpenSSL 3 (and so Node) gives as SHA-256. */
const SHA256_BY_DEFAULT = new Set(["ec", "rsa", "dsa"]);

let installed = false;

type VerifyKey = Parameters<typeof nodeCrypto.verify>[2];

function keyType(key: VerifyKey): string | undefined {
  if (key instanceof nodeCrypto.KeyObject) return key.asymmetricKeyType;
  if (typeof key === "object" && key !== null && "key" in key) {
    const inner = (key as { key: unknown }).key;
    if (inner instanceof nodeCrypto.KeyObject) return inner.asymmetricKeyType;
  }
  try {
    return nodeCrypto.createPublicKey(key as Parameters<typeof nodeCrypto.createPublicKey>[0])
      .asymmetricKeyType;
  } catch {
    return undefined;
  }
}

/** Installs the default digest (once; later calls do nothing). */
export function installNodeDefaultDigest(): void {
  if (installed) return;
  installed = true;
  const original = nodeCrypto.verify;
  const patched = function verify(
    algorithm: string | null | undefined,
    data: Parameters<typeof original>[1],
    key: VerifyKey,
    signature: Parameters<typeof original>[3],
    callback?: (error: Error | null, result: boolean) => void,
  ): boolean | void {
    let chosen = algorithm;
    if (chosen === null || chosen === undefined) {
      const type = keyType(key);
      if (type !== undefined && SHA256_BY_DEFAULT.has(type)) chosen = "sha256";
    }
    return callback === undefined
      ? original(chosen as string | null | undefined, data, key, signature)
      : original(chosen as string | null | undefined, data, key, signature, callback);
  };
  (nodeCrypto as { verify: unknown }).verify = patched;
}
