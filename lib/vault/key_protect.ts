/**
 * A client for the key API of IBM Cloud Key Protect (`/api/v2/keys`), as IBM documents it
 * (cloud.ibm.com/apidocs/key-protect) and its Go SDK (`github.com/IBM/keyprotect-go-client`)
 * calls it: keys, their metadata, aliases, key rings (`x-kms-key-ring`), a `correlation-id` on
 * every request, and retries of 429 and 5xx answers (see `_http.ts`). Hyper Protect Crypto
 * Services serves the same API at another base URL, so the same client works with it.
 *
 * This is the request layer; `resolve.ts` finds a key by id, alias or name and reads its
 * material, `store.ts` stores one (with aliases, refusing or rotating a key in the way).
 *
 * @module
 */
import { decodeBase64 as decodeBytes, encodeBase64 } from "../base64.ts";
import {
  type Answer,
  attemptsNote,
  correlationNote,
  exchange,
  isRecord,
  statusLine,
  transportOf,
  type VaultTransportOptions,
} from "./_http.ts";
import { safeExcerpt } from "../errors.ts";
import { jsonLimitsForLength, parseJsonWithin } from "../json_shape.ts";
import { VaultError, type VaultReason } from "./vault_error.ts";

/** The media type of a key resource (request bodies, `type` of each key). */
export const KEY_MEDIA_TYPE = "application/vnd.ibm.kms.key+json";

/** The media type Key Protect documents for the `accept` header of a key list. */
export const COLLECTION_MEDIA_TYPE = "application/vnd.ibm.collection+json";

/** The states of a key (NIST SP 800-57), as numbers in the API. */
export const KEY_STATES = {
  preActivation: 0,
  active: 1,
  suspended: 2,
  deactivated: 3,
  destroyed: 5,
} as const;

/** A key state number. */
export type KeyState = (typeof KEY_STATES)[keyof typeof KEY_STATES];

/** `active`, `suspended`, …: the name of a key state, for messages. */
export function keyStateName(state: number): string {
  switch (state) {
    case 0:
      return "pre-active";
    case 1:
      return "active";
    case 2:
      return "suspended";
    case 3:
      return "deactivated";
    case 5:
      return "destroyed";
    default:
      return `in state ${state}`;
  }
}

/** The most bytes of material a standard key may hold (Key Protect: 7,500). */
export const MAX_STANDARD_KEY_BYTES = 7500;

/** How to reach a vault. */
export interface KeyProtectClientOptions extends VaultTransportOptions {
  /**
   * The vault's base URL, e.g. `https://us-south.kms.cloud.ibm.com` for Key Protect or the
   * key management endpoint of a Hyper Protect Crypto Services instance. A trailing `/` or
   * `/api/v2` is ignored.
   */
  baseUrl: string;
  /** The service instance id (sent as `bluemix-instance`). */
  instanceId: string;
  /** Yields a bearer token (IAM access token) for each request; see `iamTokenSource`. */
  token: () => Promise<string>;
  /**
   * The key ring (sent as `x-kms-key-ring`): keys are created in it, and reads, lists and
   * changes see only its keys. Absent: keys go to the `default` ring and every ring is searched.
   */
  keyRing?: string;
  /** How many keys to ask for per page when listing. @default {200} */
  pageSize?: number;
  /** Makes the `correlation-id` of each request (a v4 UUID). @default {crypto.randomUUID} */
  newCorrelationId?: () => string;
}

/** A key as the vault describes it. Fields the vault does not send are absent. */
export interface KeyRecord {
  /** The key id (a UUID). */
  readonly id: string;
  /** The display name (names are not unique). */
  readonly name: string;
  /** The description given at creation. */
  readonly description?: string;
  /** `application/vnd.ibm.kms.key+json`. */
  readonly type: string;
  /** True for a standard key (its material can be read back), false for a root key. */
  readonly extractable: boolean;
  /** The key state; see {@link KEY_STATES}. */
  readonly state: number;
  /** When the key was created (ISO 8601). */
  readonly creationDate: string;
  /** The key's aliases (unique in the instance; up to five). */
  readonly aliases?: readonly string[];
  /** The key's Cloud Resource Name. */
  readonly crn?: string;
  /** The key ring the key belongs to. */
  readonly keyRingID?: string;
  /** True when the key material was supplied by the user. */
  readonly imported?: boolean;
  /** When the key expires (and becomes deactivated), if it does. */
  readonly expirationDate?: string;
  /** The key material, decoded from base64 (only on reading a standard key with its material). */
  readonly payload?: Uint8Array;
}

/** A standard key to create from existing material. */
export interface CreateKeyRequest {
  /** The display name (Key Protect accepts 2 to 90 characters; names need not be unique). */
  name: string;
  /** The key material (stored base64-encoded; at most {@link MAX_STANDARD_KEY_BYTES}). */
  payload: Uint8Array;
  /** A description. */
  description?: string;
  /** Aliases (unique in the instance; up to five). */
  aliases?: readonly string[];
  /** Always true: a standard key, whose material can be fetched again. */
  extractable: true;
}

/** Which keys {@link KeyProtectClient.listKeys} returns. */
export interface ListKeysFilter {
  /** Only keys in these states (the vault's default: every state but destroyed). */
  states?: readonly KeyState[];
  /** Only standard keys (true) or only root keys (false). */
  extractable?: boolean;
}

/** The key operations of the Key Protect API that toolkit uses. */
export interface KeyProtectClient {
  /** The instance id, for messages. */
  readonly instanceId: string;
  /** The key ring the client is bound to, if any. */
  readonly keyRing: string | undefined;
  /** Creates a standard key holding `payload` and returns its record (with its new `id`). */
  createKey(request: CreateKeyRequest): Promise<KeyRecord>;
  /** Reads a key with its material (`GET /keys/<id or alias>`), in whatever state it is. */
  getKey(idOrAlias: string): Promise<KeyRecord>;
  /** Reads a key's metadata without its material (`GET /keys/<id or alias>/metadata`). */
  getKeyMetadata(idOrAlias: string): Promise<KeyRecord>;
  /** Lists the keys the filter selects, every page (`limit`/`offset`). */
  listKeys(filter?: ListKeysFilter): Promise<KeyRecord[]>;
  /** Deletes a key (it becomes destroyed; Key Protect keeps it restorable for 30 days). */
  deleteKey(idOrAlias: string): Promise<void>;
  /** Gives a key one more alias. */
  createAlias(idOrAlias: string, alias: string): Promise<void>;
  /** Takes an alias from a key. */
  deleteAlias(idOrAlias: string, alias: string): Promise<void>;
}

/** A bound on list pages, against a vault that ignores `offset`. */
const MAX_PAGES = 1000;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` has the form of a key id (a UUID) rather than a name or alias. */
export function isKeyId(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * Makes a client for a Key Protect compatible vault.
 *
 * @example
 * ```ts ignore
 * const client = createKeyProtectClient({
 *   baseUrl: "https://us-south.kms.cloud.ibm.com",
 *   instanceId: "0f1e…",
 *   token: iamTokenSource({ apiKey }),
 * });
 * const key = await client.createKey({ name: "signing", payload, extractable: true });
 * ```
 */
export function createKeyProtectClient(options: KeyProtectClientOptions): KeyProtectClient {
  const base = options.baseUrl.trim().replace(/\/+$/, "").replace(/\/api\/v2$/, "");
  const keysUrl = `${base}/api/v2/keys`;
  const transport = transportOf(options);
  const pageSize = options.pageSize ?? 200;
  const newCorrelationId = options.newCorrelationId ?? (() => crypto.randomUUID());
  const keyPath = (idOrAlias: string) => `${keysUrl}/${encodeURIComponent(idOrAlias)}`;

  /**
   * One call: the answer's JSON object, `undefined` for an empty success (204), or a VaultError
   * that keeps the vault's text, the attempts and the correlation id.
   */
  async function call(
    action: string,
    url: string,
    init: { method: string; accept: string; body?: string; headers?: Record<string, string> },
  ): Promise<Record<string, unknown> | undefined> {
    const token = await options.token();
    const correlationId = newCorrelationId();
    const headers: Record<string, string> = {
      "accept": init.accept,
      "authorization": `Bearer ${token}`,
      "bluemix-instance": options.instanceId,
      "correlation-id": correlationId,
      ...(options.keyRing ? { "x-kms-key-ring": options.keyRing } : {}),
      ...init.headers,
    };
    const answer = await exchange(transport, url, {
      method: init.method,
      headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
    }, { action, secrets: [token], service: "Key Protect", correlationId });
    let body: unknown;
    try {
      body = answer.text
        ? parseJsonWithin(answer.text, jsonLimitsForLength(answer.text.length, 32), "the answer")
        : undefined;
    } catch {
      body = undefined;
    }
    if (answer.status < 200 || answer.status > 299) {
      throw vaultError(action, answer, body, token, correlationId);
    }
    if (answer.text === "") return undefined;
    if (!isRecord(body)) {
      throw new VaultError(
        `${action}: the vault's answer is not a JSON object${correlationNote(correlationId)}`,
        { status: answer.status, correlationId },
      );
    }
    return body;
  }

  async function callForKey(
    action: string,
    url: string,
    init: { method: string; accept: string; body?: string; headers?: Record<string, string> },
  ): Promise<KeyRecord> {
    const body = await call(action, url, init);
    const [first] = resources(action, body);
    return toKeyRecord(action, first);
  }

  async function listKeys(filter: ListKeysFilter = {}): Promise<KeyRecord[]> {
    const action = `Cannot list the keys of instance "${options.instanceId}"`;
    const keys: KeyRecord[] = [];
    for (let offset = 0;; offset += pageSize) {
      if (offset >= MAX_PAGES * pageSize) {
        throw new VaultError(`${action}: the vault keeps returning full pages`);
      }
      const query = new URLSearchParams({ limit: String(pageSize), offset: String(offset) });
      if (filter.states !== undefined) query.set("state", filter.states.join(","));
      if (filter.extractable !== undefined) query.set("extractable", String(filter.extractable));
      const body = await call(action, `${keysUrl}?${query}`, {
        method: "GET",
        accept: COLLECTION_MEDIA_TYPE,
      });
      // An empty page has no "resources" at all.
      const page = body?.resources === undefined ? [] : resources(action, body);
      for (const item of page) keys.push(toKeyRecord(action, item));
      if (page.length < pageSize) return keys;
    }
  }

  function requireRef(action: string, idOrAlias: string): void {
    if (idOrAlias === "") throw new VaultError(`${action}: the id or alias is empty`);
  }

  return {
    instanceId: options.instanceId,
    keyRing: options.keyRing,

    createKey(request: CreateKeyRequest): Promise<KeyRecord> {
      const action = `Cannot store key "${request.name}"`;
      const resource: Record<string, unknown> = {
        type: KEY_MEDIA_TYPE,
        name: request.name,
        ...(request.description !== undefined ? { description: request.description } : {}),
        ...(request.aliases !== undefined && request.aliases.length > 0
          ? { aliases: [...request.aliases] }
          : {}),
        extractable: true,
        payload: encodeBase64(request.payload),
      };
      // return=minimal: the new key's metadata without its material (which the caller has).
      return callForKey(action, keysUrl, {
        method: "POST",
        accept: "application/json",
        headers: { "content-type": KEY_MEDIA_TYPE, "prefer": "return=minimal" },
        body: JSON.stringify({
          metadata: { collectionType: KEY_MEDIA_TYPE, collectionTotal: 1 },
          resources: [resource],
        }),
      });
    },

    getKey(idOrAlias: string): Promise<KeyRecord> {
      const action = `Cannot fetch key "${idOrAlias}"`;
      requireRef(action, idOrAlias);
      return callForKey(action, keyPath(idOrAlias), { method: "GET", accept: KEY_MEDIA_TYPE });
    },

    getKeyMetadata(idOrAlias: string): Promise<KeyRecord> {
      const action = `Cannot read key "${idOrAlias}"`;
      requireRef(action, idOrAlias);
      return callForKey(action, `${keyPath(idOrAlias)}/metadata`, {
        method: "GET",
        accept: KEY_MEDIA_TYPE,
      });
    },

    listKeys,

    async deleteKey(idOrAlias: string): Promise<void> {
      const action = `Cannot delete key "${idOrAlias}"`;
      requireRef(action, idOrAlias);
      await call(action, keyPath(idOrAlias), {
        method: "DELETE",
        accept: "application/json",
        headers: { "prefer": "return=minimal" },
      });
    },

    async createAlias(idOrAlias: string, alias: string): Promise<void> {
      const action = `Cannot give key "${idOrAlias}" the alias "${alias}"`;
      requireRef(action, idOrAlias);
      await call(action, `${keyPath(idOrAlias)}/aliases/${encodeURIComponent(alias)}`, {
        method: "POST",
        accept: "application/json",
      });
    },

    async deleteAlias(idOrAlias: string, alias: string): Promise<void> {
      const action = `Cannot take the alias "${alias}" from key "${idOrAlias}"`;
      requireRef(action, idOrAlias);
      await call(action, `${keyPath(idOrAlias)}/aliases/${encodeURIComponent(alias)}`, {
        method: "DELETE",
        accept: "application/json",
      });
    },
  };
}

function resources(action: string, body: Record<string, unknown> | undefined): unknown[] {
  if (!Array.isArray(body?.resources)) {
    throw new VaultError(`${action}: the vault's answer has no "resources" list`);
  }
  return body.resources;
}

function decodeBase64(action: string, text: string): Uint8Array {
  try {
    return decodeBytes(text);
  } catch (error) {
    throw new VaultError(`${action}: the key's payload is not valid base64`, { cause: error });
  }
}

function toKeyRecord(action: string, item: unknown): KeyRecord {
  if (!isRecord(item) || typeof item.id !== "string") {
    throw new VaultError(`${action}: the vault's answer has no key with an id`);
  }
  const optionalString = (key: string) =>
    typeof item[key] === "string" ? { [key]: item[key] as string } : {};
  return {
    id: item.id,
    name: typeof item.name === "string" ? item.name : "",
    type: typeof item.type === "string" ? item.type : KEY_MEDIA_TYPE,
    extractable: item.extractable === true,
    state: typeof item.state === "number" ? item.state : KEY_STATES.active,
    creationDate: typeof item.creationDate === "string" ? item.creationDate : "",
    ...optionalString("description"),
    ...optionalString("crn"),
    ...optionalString("keyRingID"),
    ...optionalString("expirationDate"),
    ...(Array.isArray(item.aliases)
      ? { aliases: item.aliases.filter((a): a is string => typeof a === "string") }
      : {}),
    ...(typeof item.imported === "boolean" ? { imported: item.imported } : {}),
    ...(typeof item.payload === "string" && item.payload !== ""
      ? { payload: decodeBase64(action, item.payload) }
      : {}),
  };
}

/**
 * Turns an error answer into a message that keeps the vault's `errorMsg` and `reasons`, the
 * attempts and the correlation id.
 */
function vaultError(
  action: string,
  answer: Answer,
  body: unknown,
  token: string,
  correlationId: string,
): VaultError {
  const { status } = answer;
  const line = statusLine(answer);
  const trailer = `${attemptsNote(answer.attempts, answer.elapsedMs)}${answer.stopped}${
    correlationNote(correlationId)
  }`;
  const common = { status, attempts: answer.attempts, correlationId };
  const first = isRecord(body) && Array.isArray(body.resources) ? body.resources[0] : undefined;
  if (isRecord(first) && typeof first.errorMsg === "string") {
    const reasons = parseReasons(first.reasons);
    // errorMsg starts with the reason phrase ("Not Found: …"): do not repeat it.
    const phrase = line.replace(/^\d+\s*/, "");
    const errorMsg = phrase && first.errorMsg.startsWith(`${phrase}:`)
      ? first.errorMsg.slice(phrase.length + 1).trim()
      : first.errorMsg;
    const reasonText = reasons.map((r) => `${r.code}: ${r.message}`).join("; ");
    const detail = safeExcerpt(`${line}: ${errorMsg}${reasonText ? ` [${reasonText}]` : ""}`, {
      secrets: [token],
      maxChars: 500,
    });
    return new VaultError(`${action}: ${detail}${trailer}`, { ...common, reasons });
  }
  const detail = safeExcerpt(answer.text, { secrets: [token] });
  return new VaultError(`${action}: ${line}${detail ? `: ${detail}` : ""}${trailer}`, common);
}

function parseReasons(value: unknown): VaultReason[] {
  if (!Array.isArray(value)) return [];
  const reasons: VaultReason[] = [];
  for (const item of value) {
    if (!isRecord(item) || typeof item.code !== "string") continue;
    reasons.push({
      code: item.code.trim(),
      message: typeof item.message === "string" ? item.message : "",
      ...(typeof item.status === "number" ? { status: item.status } : {}),
      ...(typeof item.moreInfo === "string" ? { moreInfo: item.moreInfo } : {}),
    });
  }
  return reasons;
}
