/**
 * Names of the objects an import makes: deterministic (the same source gives the same names, so
 * applying an import again updates its objects) and valid Kubernetes names (a DNS label: at most
 * 63 lower-case alphanumerics and `-`, which also suits Secrets and ConfigMaps).
 *
 * @module
 */

/** The longest name made (a DNS-1123 label). */
export const MAX_OBJECT_NAME_LENGTH = 63;

/** 8 hex digits of FNV-1a (32 bits) over the UTF-16 code units of `text`: stable, not secret. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * The object name of the parts joined by `-` (`<source-name>-<rule>`), lower-cased, every run of
 * other characters made one `-`, trimmed of `-`. When that changed the text beyond lower-casing
 * `-`-joined parts would (two sources could then meet) or it is longer than
 * {@linkcode MAX_OBJECT_NAME_LENGTH}, it is cut and suffixed with `-` and the
 * {@linkcode shortHash} of the parts as given, so distinct sources keep distinct names.
 */
export function objectName(...parts: readonly string[]): string {
  const given = parts.filter((part) => part !== "").join("-");
  const clean = given.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  if (clean === given.toLowerCase() && clean.length <= MAX_OBJECT_NAME_LENGTH && clean !== "") {
    return clean;
  }
  const suffix = shortHash(given);
  const room = MAX_OBJECT_NAME_LENGTH - suffix.length - 1;
  const head = clean.slice(0, room).replace(/-+$/g, "");
  return head === "" ? `import-${suffix}` : `${head}-${suffix}`;
}
