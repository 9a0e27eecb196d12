/**
 * The rules Key Protect sets for key aliases (cloud.ibm.com/docs/key-protect, "Creating key
 * aliases"): 2 to 90 letters, digits, `-` or `_`; not a UUID; not one of the service's reserved
 * words; unique in the instance; at most five per key.
 *
 * @module
 */

/** The most aliases one key may have. */
export const MAX_ALIASES_PER_KEY = 5;

/** Words Key Protect reserves: no alias may be one of them. */
export const RESERVED_ALIASES: ReadonlySet<string> = new Set([
  "allowed_ip",
  "key",
  "keys",
  "metadata",
  "policy",
  "policies",
  "registration",
  "registrations",
  "ring",
  "rings",
  "rotate",
  "wrap",
  "unwrap",
  "rewrap",
  "version",
  "versions",
]);

const ALIAS_CHARACTERS = /^[A-Za-z0-9_-]{2,90}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why `alias` cannot be a Key Protect alias, or undefined when it can. */
export function aliasProblem(alias: string): string | undefined {
  if (!ALIAS_CHARACTERS.test(alias)) {
    return "an alias is 2 to 90 letters, digits, '-' or '_'";
  }
  if (UUID.test(alias)) return "an alias cannot be a UUID (that is a key id)";
  if (RESERVED_ALIASES.has(alias)) return `"${alias}" is a word Key Protect reserves`;
  return undefined;
}

/** True when `value` could be an alias (so looking it up as one makes sense). */
export function isAliasShaped(value: string): boolean {
  return aliasProblem(value) === undefined;
}
