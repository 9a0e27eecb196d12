/**
 * Content digests (`sha256:<hex>`) of manifests and other registry content, computed with
 * WebCrypto.
 *
 * @module
 */

import { isDigest } from "../image/mod.ts";

/**
 * The digest algorithms registries use, with their WebCrypto names. A Map, so that a name like
 * `constructor` is unknown rather than an Object property.
 */
const ALGORITHMS: ReadonlyMap<string, AlgorithmIdentifier> = new Map([
  ["sha256", "SHA-256"],
  ["sha384", "SHA-384"],
  ["sha512", "SHA-512"],
]);

/** A digest algorithm: `sha256`, `sha384` or `sha512`. */
export type DigestAlgorithm = "sha256" | "sha384" | "sha512";

/** Returns the digest of `bytes` as `<algorithm>:<lowercase hex>`. */
export async function computeDigest(
  bytes: Uint8Array,
  algorithm: DigestAlgorithm = "sha256",
): Promise<string> {
  const name = ALGORITHMS.get(algorithm);
  if (name === undefined) throw new TypeError(`Unsupported digest algorithm "${algorithm}"`);
  const hash = new Uint8Array(await crypto.subtle.digest(name, bytes as Uint8Array<ArrayBuffer>));
  return `${algorithm}:${Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Returns the algorithm of a valid digest, or undefined when `digest` is not one. */
export function digestAlgorithm(digest: string): DigestAlgorithm | undefined {
  if (!isDigest(digest)) return undefined;
  return digest.slice(0, digest.indexOf(":")) as DigestAlgorithm;
}

/**
 * Returns the digest of `bytes` computed with the algorithm of `expected` and whether it equals
 * `expected`. An `expected` that is no valid digest never matches.
 */
export async function checkDigest(
  bytes: Uint8Array,
  expected: string,
): Promise<{ matches: boolean; actual: string }> {
  const algorithm = digestAlgorithm(expected) ?? "sha256";
  const actual = await computeDigest(bytes, algorithm);
  return { matches: isDigest(expected) && actual === expected, actual };
}
