/**
 * Finding a key by what a user calls it, and reading its material into memory: the two steps of
 * fetching a signing key from a vault (`vault fetch`, and signing with a key kept in a vault).
 *
 * {@linkcode resolveKey} takes an id, an alias or a name and settles on one **active standard**
 * key (state 1, `extractable`), or fails saying why: nothing has that id, alias or name
 * ({@linkcode KeyNotFoundError}); what has it is suspended, deactivated, destroyed or a root key
 * ({@linkcode KeyNotActiveError}); several active keys share the name
 * ({@linkcode AmbiguousKeyError}, listing them). Names are not unique in Key Protect and keys
 * outlive their use, so a newer key that is suspended never hides the active one.
 * {@linkcode fetchKeyMaterial} then reads the chosen key's material, into memory only.
 *
 * @example
 * ```ts ignore
 * const { key, via } = await resolveKey(client, "signing");
 * const material = await fetchKeyMaterial(client, key);
 * ```
 *
 * @module
 */
import {
  isKeyId,
  KEY_STATES,
  type KeyProtectClient,
  type KeyRecord,
  keyStateName,
} from "./key_protect.ts";
import {
  AmbiguousKeyError,
  KEY_NOT_FOUND,
  KeyNotActiveError,
  KeyNotFoundError,
  type KeySummary,
  VaultError,
  vendorCode,
} from "./vault_error.ts";
import { isAliasShaped } from "./aliases.ts";

/** How {@linkcode resolveKey} found the key. */
export type ResolvedVia = "id" | "alias" | "name";

/** The key a reference resolved to. */
export interface ResolvedKey {
  /** The key's metadata (no material): an active standard key. */
  readonly key: KeyRecord;
  /** Whether the reference was the key's id, one of its aliases, or its name. */
  readonly via: ResolvedVia;
  /** Things the user should know about the choice (an alias that led to an inactive key, …). */
  readonly notes: readonly string[];
}

/** True for a key whose material can be fetched: active and standard. */
export function isFetchable(key: Pick<KeyRecord, "state" | "extractable">): boolean {
  return key.state === KEY_STATES.active && key.extractable;
}

/** A key's id, name, aliases, state, type and date, for errors and messages. */
export function summarizeKey(key: KeyRecord): KeySummary {
  return {
    id: key.id,
    name: key.name,
    ...(key.aliases && key.aliases.length > 0 ? { aliases: key.aliases } : {}),
    state: key.state,
    extractable: key.extractable,
    creationDate: key.creationDate,
  };
}

/** `0f1e… (name "signing", aliases signing, prod; active, created 2026-01-01T…)`. */
export function describeKey(key: KeySummary): string {
  const aliases = key.aliases && key.aliases.length > 0
    ? `, aliases ${key.aliases.join(", ")}`
    : "";
  const kind = key.extractable ? "" : " root key";
  const created = key.creationDate ? `, created ${key.creationDate}` : "";
  return `${key.id} (name "${key.name}"${aliases}; ${keyStateName(key.state)}${kind}${created})`;
}

/** Why a key cannot be fetched: `it is suspended`, `it is a root key, …`. */
function whyNotFetchable(key: KeyRecord): string {
  if (key.state !== KEY_STATES.active) return `it is ${keyStateName(key.state)}`;
  return "it is a root key, whose material never leaves the vault";
}

/**
 * Resolves `ref` (a key id, an alias or a name) to one active standard key:
 *
 * 1. a UUID is an id: that key, if it is active and standard;
 * 2. a string that can be an alias is looked up as one: its key, if active and standard;
 * 3. otherwise (or when the alias's key is not), the active standard keys named `ref`: one is
 *    the answer, several are an {@link AmbiguousKeyError} listing them.
 *
 * Only metadata is read (no key material travels). Vault failures (401, 5xx after retries) are
 * {@link VaultError}s as the client throws them.
 */
export async function resolveKey(client: KeyProtectClient, ref: string): Promise<ResolvedKey> {
  const action = `Cannot fetch key "${ref}"`;
  if (ref === "") throw new KeyNotFoundError(`${action}: the id, alias or name is empty`, ref);

  if (isKeyId(ref)) {
    const key = await metadataOrUndefined(client, ref);
    if (!key) {
      throw new KeyNotFoundError(
        `${action}: no key has this id${where(client)} ${vendorCode(KEY_NOT_FOUND)}`,
        ref,
        KEY_NOT_FOUND,
      );
    }
    if (!isFetchable(key)) {
      throw new KeyNotActiveError(
        `${action}: ${whyNotFetchable(key)}: ${describeKey(summarizeKey(key))}`,
        ref,
        [summarizeKey(key)],
      );
    }
    return { key, via: "id", notes: [] };
  }

  const notes: string[] = [];
  let aliasKey: KeyRecord | undefined;
  if (isAliasShaped(ref)) {
    aliasKey = await metadataOrUndefined(client, ref);
    if (aliasKey && isFetchable(aliasKey)) return { key: aliasKey, via: "alias", notes };
    if (aliasKey) {
      notes.push(
        `the alias "${ref}" belongs to key ${aliasKey.id}, which cannot be fetched: ` +
          `${whyNotFetchable(aliasKey)}; looking for an active key named "${ref}" instead`,
      );
    }
  }

  const named = (await client.listKeys({ states: [KEY_STATES.active], extractable: true }))
    .filter((k) => k.name === ref);
  if (named.length === 1) return { key: named[0]!, via: "name", notes };
  if (named.length > 1) {
    const candidates = named.map(summarizeKey);
    throw new AmbiguousKeyError(
      `${action}: ${named.length} active keys have this name; fetch one by id or alias:\n` +
        candidates.map((c) => `  ${describeKey(c)}`).join("\n"),
      ref,
      candidates,
    );
  }

  // Nothing to fetch: say what there is instead.
  const others = (await client.listKeys({
    states: [
      KEY_STATES.preActivation,
      KEY_STATES.active,
      KEY_STATES.suspended,
      KEY_STATES.deactivated,
    ],
  })).filter((k) => k.name === ref && !isFetchable(k));
  const unusable = [
    ...(aliasKey ? [aliasKey] : []),
    ...others.filter((k) => k.id !== aliasKey?.id),
  ];
  if (unusable.length > 0) {
    const candidates = unusable.map(summarizeKey);
    throw new KeyNotActiveError(
      `${action}: no active standard key has this alias or name; ` +
        (candidates.length === 1
          ? "the one key found cannot be fetched"
          : "the keys found cannot be fetched") +
        ` (only active standard keys can):\n` +
        unusable.map((k) => `  ${describeKey(summarizeKey(k))}: ${whyNotFetchable(k)}`).join("\n"),
      ref,
      candidates,
    );
  }
  throw new KeyNotFoundError(
    `${action}: no key has this ${isAliasShaped(ref) ? "alias or name" : "name"}${where(client)} ${
      vendorCode(KEY_NOT_FOUND)
    }`,
    ref,
    KEY_NOT_FOUND,
  );
}

/**
 * Reads the material of `key` (a record from {@link resolveKey}, or an id) into memory: never
 * onto disk. Fails when the key is no longer active, is a root key, or holds no material.
 */
export async function fetchKeyMaterial(
  client: KeyProtectClient,
  key: Pick<KeyRecord, "id"> | string,
): Promise<Uint8Array> {
  const id = typeof key === "string" ? key : key.id;
  const full = await client.getKey(id);
  const action = `Cannot fetch key "${id}"`;
  if (!isFetchable(full)) {
    throw new KeyNotActiveError(
      `${action}: ${whyNotFetchable(full)}: ${describeKey(summarizeKey(full))}`,
      id,
      [summarizeKey(full)],
    );
  }
  if (!full.payload || full.payload.length === 0) {
    throw new VaultError(`${action}: the vault returned no key material`);
  }
  return full.payload;
}

/**
 * A key's metadata by id or alias, or undefined when the vault says no such key (404
 * `KEY_NOT_FOUND_ERR`; another 404, such as an unknown key ring, is an error).
 */
async function metadataOrUndefined(
  client: KeyProtectClient,
  idOrAlias: string,
): Promise<KeyRecord | undefined> {
  try {
    return await client.getKeyMetadata(idOrAlias);
  } catch (error) {
    if (
      error instanceof VaultError && error.status === 404 &&
      (error.code === undefined || error.code === "KEY_NOT_FOUND_ERR")
    ) {
      return undefined;
    }
    throw error;
  }
}

function where(client: KeyProtectClient): string {
  return client.keyRing
    ? ` in key ring "${client.keyRing}" of instance ${client.instanceId}`
    : ` in instance ${client.instanceId}`;
}
