/**
 * Storing a private key in a vault so that it can be found again by name, alias or id, by
 * toolkit and by IBM's own tools alike: {@linkcode storeKey} creates a standard key with aliases
 * (Key Protect resolves `GET /keys/<alias>` itself; names it does not), refuses a name or alias
 * another key holds, or, asked to replace, rotates: the new key is stored, the aliases move to
 * it, and the old key is deleted or kept.
 *
 * Moving an alias is not instant in Key Protect ("delete the alias, wait up to five minutes,
 * then recreate the alias"), so re-creating it is retried, with waits, for up to
 * {@linkcode DEFAULT_ALIAS_RELEASE_TIMEOUT_MS}.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";
import { aliasProblem, MAX_ALIASES_PER_KEY } from "./aliases.ts";
import { formatDuration } from "./_http.ts";
import {
  KEY_STATES,
  type KeyProtectClient,
  type KeyRecord,
  MAX_STANDARD_KEY_BYTES,
} from "./key_protect.ts";
import { describeKey, summarizeKey } from "./resolve.ts";
import { KeyInUseError, type KeySummary, VaultError } from "./vault_error.ts";

/** What happens to the key being replaced: Key Protect cannot suspend a standard key. */
export type OldKeyAction = "delete" | "keep";

/** The choices of {@link OldKeyAction}, for flags and help. */
export const OLD_KEY_ACTIONS: readonly OldKeyAction[] = ["delete", "keep"];

/** How long a moved alias is waited for by default: Key Protect says up to five minutes. */
export const DEFAULT_ALIAS_RELEASE_TIMEOUT_MS = 6 * 60_000;

/** A key to store. */
export interface StoreKeyRequest {
  /** The display name (2 to 90 characters). */
  readonly name: string;
  /** The private key, as it is (at most {@link MAX_STANDARD_KEY_BYTES}). */
  readonly payload: Uint8Array;
  /** A description. */
  readonly description?: string;
  /** The aliases to give it (1 to 5; see `aliases.ts`). */
  readonly aliases: readonly string[];
  /**
   * When the name or an alias is taken: absent, refuse ({@link KeyInUseError}); otherwise
   * rotate, and delete or keep the active keys replaced, or ask (a function told the keys in the
   * way, called only when there are some).
   */
  readonly replace?: OldKeyAction | ((holders: readonly KeySummary[]) => Promise<OldKeyAction>);
}

/** Time and progress for {@link storeKey}. */
export interface StoreKeyOptions {
  /** The current time in ms. @default {Date.now} */
  readonly now?: () => number;
  /** Waits `ms`. @default {setTimeout} */
  readonly sleep?: (ms: number) => Promise<void>;
  /** How long to keep trying to re-create a moved alias. */
  readonly aliasReleaseTimeoutMs?: number;
  /** Told each step of a rotation. */
  readonly progress?: (message: string) => void;
}

/** A key a rotation replaced. */
export interface ReplacedKey {
  /** The old key, as it was. */
  readonly key: KeySummary;
  /** Deleted, or kept (without the aliases that moved). */
  readonly action: "deleted" | "kept";
  /** The aliases taken from it and given to the new key. */
  readonly aliasesMoved: readonly string[];
}

/** The key {@link storeKey} stored. */
export interface StoredKey {
  /** The new key's id. */
  readonly id: string;
  /** Its name. */
  readonly name: string;
  /** Its aliases. */
  readonly aliases: readonly string[];
  /** The key ring it is in (absent: the client named none, so `default`). */
  readonly keyRing?: string;
  /** The keys it replaced (empty unless it rotated). */
  readonly replaced: readonly ReplacedKey[];
}

/**
 * The problems of a store request that no vault needs to be asked about (name, size, aliases),
 * as sentences; empty when there are none.
 */
export function storeRequestProblems(request: StoreKeyRequest): string[] {
  const problems: string[] = [];
  const nameLength = [...request.name].length;
  if (nameLength < 2 || nameLength > 90) problems.push("a key name is 2 to 90 characters");
  if (request.payload.length === 0) problems.push("the key is empty");
  if (request.payload.length > MAX_STANDARD_KEY_BYTES) {
    problems.push(
      `the key is ${request.payload.length} bytes; Key Protect keeps at most ` +
        `${MAX_STANDARD_KEY_BYTES} bytes in a standard key`,
    );
  }
  if (request.aliases.length === 0) problems.push("a key needs at least one alias");
  if (request.aliases.length > MAX_ALIASES_PER_KEY) {
    problems.push(`a key has at most ${MAX_ALIASES_PER_KEY} aliases`);
  }
  const seen = new Set<string>();
  for (const alias of request.aliases) {
    const problem = aliasProblem(alias);
    if (problem) problems.push(`alias "${alias}": ${problem}`);
    if (seen.has(alias)) problems.push(`alias "${alias}" is given twice`);
    seen.add(alias);
  }
  return problems;
}

/** A key in the way of a store: what it holds that the new key wants. */
interface Holder {
  readonly key: KeyRecord;
  readonly hasName: boolean;
  readonly aliases: string[];
}

/**
 * Stores `request.payload` as a standard key named `request.name` with `request.aliases`.
 *
 * The active standard keys with the same name and the keys holding one of the aliases (in any
 * state: Key Protect keeps an alias on a deleted key) are in the way: without `replace` the
 * store is refused with a {@link KeyInUseError} naming them; with it, the new key is stored
 * first, then the aliases are taken from the old keys, the active old keys are deleted or kept,
 * and the aliases are given to the new key. Aliases of root keys are never taken.
 *
 * A failure half-way is a {@link VaultError} that says what was done and what is left.
 */
export async function storeKey(
  client: KeyProtectClient,
  request: StoreKeyRequest,
  options: StoreKeyOptions = {},
): Promise<StoredKey> {
  const action = `Cannot store key "${request.name}"`;
  const problems = storeRequestProblems(request);
  if (problems.length > 0) throw new ToolkitError(`${action}: ${problems.join("; ")}`);
  const progress = options.progress ?? (() => {});

  const holders = await holdersOf(client, request);
  const stored = (id: string, aliases: readonly string[], replaced: ReplacedKey[]): StoredKey => ({
    id,
    name: request.name,
    aliases,
    ...(client.keyRing ? { keyRing: client.keyRing } : {}),
    replaced,
  });
  const create = async (aliases: readonly string[]): Promise<KeyRecord> => {
    try {
      return await client.createKey({
        name: request.name,
        payload: request.payload,
        extractable: true,
        aliases,
        ...(request.description !== undefined ? { description: request.description } : {}),
      });
    } catch (error) {
      const ours = await lostCreation(client, request.name, aliases, holders, error);
      if (ours) return ours;
      throw error;
    }
  };

  if (holders.length === 0) {
    const key = await create(request.aliases);
    return stored(key.id, request.aliases, []);
  }

  const lines = holders.map((h) => `  ${describeKey(summarizeKey(h.key))}: ${holds(h)}`);
  if (request.replace === undefined) {
    throw new KeyInUseError(
      `${action}: ${
        holders.length === 1 ? "another key holds" : "other keys hold"
      } its name or aliases:\n${lines.join("\n")}`,
      request.name,
      holders.map((h) => summarizeKey(h.key)),
    );
  }
  const roots = holders.filter((h) => !h.key.extractable && h.aliases.length > 0);
  if (roots.length > 0) {
    throw new KeyInUseError(
      `${action}: an alias it needs belongs to a root key, and toolkit never takes the aliases ` +
        `of root keys (other services may use them):\n` +
        roots.map((h) => `  ${describeKey(summarizeKey(h.key))}: ${holds(h)}`).join("\n"),
      request.name,
      roots.map((h) => summarizeKey(h.key)),
    );
  }

  const oldKey = typeof request.replace === "function"
    ? await request.replace(holders.map((h) => summarizeKey(h.key)))
    : request.replace;

  // Rotate. 1. the new key, with the aliases nobody holds.
  const taken = new Set(holders.flatMap((h) => h.aliases));
  const free = request.aliases.filter((a) => !taken.has(a));
  const created = await create(free);
  progress(`Stored the new key as ${created.id}`);
  const done: string[] = [`stored the new key as ${created.id}`];
  const replaced: ReplacedKey[] = [];
  const halfway = (step: string, error: unknown, left: string[]): VaultError => {
    const detail = error instanceof Error ? error.message : String(error);
    return new VaultError(
      `Stored key "${request.name}" as ${created.id}, but replacing the old key did not finish: ` +
        `${step}: ${detail}\nDone: ${done.join("; ")}.\nLeft to do: ${left.join("; ")}.`,
      {
        cause: error,
        ...(error instanceof VaultError && error.status !== undefined
          ? { status: error.status }
          : {}),
        ...(error instanceof VaultError && error.correlationId
          ? { correlationId: error.correlationId }
          : {}),
      },
    );
  };
  const aliasCommand = (alias: string) =>
    `ibmcloud kp key alias-create ${created.id} -a ${alias} -i ${client.instanceId}`;

  // 2. the aliases, taken from their holders.
  for (const holder of holders) {
    for (const alias of holder.aliases) {
      try {
        await client.deleteAlias(holder.key.id, alias);
      } catch (error) {
        throw halfway(`taking the alias "${alias}" from key ${holder.key.id}`, error, [
          ...[...taken].map(aliasCommand),
          "delete or keep the old key",
        ]);
      }
      done.push(`took the alias "${alias}" from key ${holder.key.id}`);
    }
  }

  // 3. the active old keys, deleted or kept.
  for (const holder of holders) {
    const active = holder.key.state === KEY_STATES.active;
    if (active && oldKey === "delete") {
      try {
        await client.deleteKey(holder.key.id);
      } catch (error) {
        throw halfway(`deleting the old key ${holder.key.id}`, error, [
          `delete key ${holder.key.id}`,
          ...[...taken].map(aliasCommand),
        ]);
      }
      done.push(`deleted the old key ${holder.key.id}`);
      progress(`Deleted the old key ${holder.key.id}`);
    }
    replaced.push({
      key: summarizeKey(holder.key),
      action: active && oldKey === "delete" ? "deleted" : "kept",
      aliasesMoved: holder.aliases,
    });
  }

  // 4. the aliases, given to the new key once Key Protect has released them.
  const moved = request.aliases.filter((a) => taken.has(a));
  for (const [index, alias] of moved.entries()) {
    try {
      await createAliasWhenReleased(client, created.id, alias, options, progress);
    } catch (error) {
      throw halfway(
        `giving the new key the alias "${alias}"`,
        error,
        moved.slice(index).map(aliasCommand),
      );
    }
    done.push(`gave the new key the alias "${alias}"`);
  }
  return stored(created.id, [...free, ...moved], replaced);
}

/**
 * The key an earlier attempt of a retried create made, when its answer was lost (a 5xx or no
 * answer, then a retry refused with `KEY_ALIAS_NOT_UNIQUE_ERR`): the key that now holds the first
 * alias, if nobody held it before and it has the name. Else undefined.
 */
async function lostCreation(
  client: KeyProtectClient,
  name: string,
  aliases: readonly string[],
  holders: readonly Holder[],
  error: unknown,
): Promise<KeyRecord | undefined> {
  if (
    !(error instanceof VaultError) || error.status !== 409 || error.attempts < 2 ||
    error.code !== "KEY_ALIAS_NOT_UNIQUE_ERR" || aliases.length === 0
  ) {
    return undefined;
  }
  const key = await client.getKeyMetadata(aliases[0]!).catch(() => undefined);
  if (
    !key || key.name !== name || key.state !== KEY_STATES.active ||
    holders.some((h) => h.key.id === key.id)
  ) {
    return undefined;
  }
  return key;
}

/** The keys in the way of `request`, each once. */
async function holdersOf(client: KeyProtectClient, request: StoreKeyRequest): Promise<Holder[]> {
  const byId = new Map<string, Holder>();
  const named = await client.listKeys({ states: [KEY_STATES.active], extractable: true });
  for (const key of named) {
    if (key.name === request.name) byId.set(key.id, { key, hasName: true, aliases: [] });
  }
  for (const alias of request.aliases) {
    let key: KeyRecord;
    try {
      key = await client.getKeyMetadata(alias);
    } catch (error) {
      if (
        error instanceof VaultError && error.status === 404 &&
        (error.code === undefined || error.code === "KEY_NOT_FOUND_ERR")
      ) {
        continue;
      }
      throw error;
    }
    const holder = byId.get(key.id) ?? { key, hasName: false, aliases: [] };
    holder.aliases.push(alias);
    byId.set(key.id, holder);
  }
  return [...byId.values()].filter((h) => h.hasName || h.aliases.length > 0);
}

function holds(holder: Holder): string {
  const parts = [
    ...(holder.hasName ? ["has the name"] : []),
    ...(holder.aliases.length > 0
      ? [`holds the alias${holder.aliases.length > 1 ? "es" : ""} ${holder.aliases.join(", ")}`]
      : []),
  ];
  return parts.join(" and ");
}

/**
 * Gives `id` the alias, retrying while Key Protect still holds it from the key it was taken
 * from (409), with waits of 5 s doubling up to 30 s, for up to the release timeout.
 */
async function createAliasWhenReleased(
  client: KeyProtectClient,
  id: string,
  alias: string,
  options: StoreKeyOptions,
  progress: (message: string) => void,
): Promise<void> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const timeout = options.aliasReleaseTimeoutMs ?? DEFAULT_ALIAS_RELEASE_TIMEOUT_MS;
  const start = now();
  let wait = 5000;
  let told = false;
  for (;;) {
    try {
      await client.createAlias(id, alias);
      if (told) progress(`Gave the new key the alias "${alias}"`);
      return;
    } catch (error) {
      if (!(error instanceof VaultError) || error.status !== 409) throw error;
      const elapsed = now() - start;
      if (elapsed + wait > timeout) {
        throw new VaultError(
          `Key Protect had not released the alias after ${formatDuration(elapsed)}: ` +
            error.message,
          {
            cause: error,
            status: 409,
            reasons: error.reasons,
            ...(error.correlationId ? { correlationId: error.correlationId } : {}),
          },
        );
      }
      if (!told) {
        progress(
          `Waiting for Key Protect to release the alias "${alias}" ` +
            `(it can take up to five minutes)...`,
        );
        told = true;
      }
      await sleep(wait);
      wait = Math.min(wait * 2, 30_000);
    }
  }
}
