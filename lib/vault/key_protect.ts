/**
 * A client for the key API of IBM Cloud Key Protect (`/api/v2/keys`). Hyper Protect Crypto
 * Services serves the same API at another base URL, so the same client works with it: nothing
 * here is specific to one of them.
 *
 * @module
 */
import { decodeBase64 as decodeBytes, encodeBase64 } from "../base64.ts";
import { exchange, isRecord, statusLine } from "./_http.ts";
import type { FetchFunction } from "../fetch.ts";
import { safeExcerpt } from "../errors.ts";
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

/** How to reach a vault. */
export interface KeyProtectClientOptions {
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
  /** The fetch function. @default {globalThis.fetch} */
  fetch?: FetchFunction;
  /** How long to wait for each answer. @default {30000} */
  timeoutMs?: number;
  /** How many keys to ask for per page when listing. @default {200} */
  pageSize?: number;
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
  /** The key's aliases. */
  readonly aliases?: readonly string[];
  /** The key's Cloud Resource Name. */
  readonly crn?: string;
  /** The key ring the key belongs to. */
  readonly keyRingID?: string;
  /** True when the key material was supplied by the user. */
  readonly imported?: boolean;
  /** The key material, decoded from base64 (only on reading a standard key). */
  readonly payload?: Uint8Array;
}

/** A standard key to create from existing material. */
export interface CreateKeyRequest {
  /** The display name (Key Protect accepts 2 to 90 characters; names need not be unique). */
  name: string;
  /** The key material (stored base64-encoded). */
  payload: Uint8Array;
  /** A description. */
  description?: string;
  /** Aliases (unique in the instance; up to five). */
  aliases?: readonly string[];
  /** Always true: a standard key, whose material can be fetched again. */
  extractable: true;
}

/** The key operations toolkit needs. */
export interface KeyProtectClient {
  /** Creates a standard key holding `payload` and returns its record (with its new `id`). */
  createKey(request: CreateKeyRequest): Promise<KeyRecord>;
  /** Reads a key with its material, by id or alias. */
  getKey(idOrAlias: string): Promise<KeyRecord>;
  /** Lists every key the caller may see (all pages; the vault leaves out destroyed keys). */
  listKeys(): Promise<KeyRecord[]>;
  /**
   * Finds a key by its name. Key Protect does not make names unique: when several keys have
   * the name, the newest (latest `creationDate`; on a tie, the one listed last) is returned.
   * `undefined` when none has it.
   * The record comes from the list, so it has no `payload`: read it with {@link getKey}.
   */
  findKeyByName(name: string): Promise<KeyRecord | undefined>;
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
  const fetchFn: FetchFunction = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pageSize = options.pageSize ?? 200;

  async function call(
    action: string,
    url: string,
    init: { method: string; accept: string; body?: string; headers?: Record<string, string> },
  ): Promise<Record<string, unknown>> {
    const token = await options.token();
    const headers: Record<string, string> = {
      "accept": init.accept,
      "authorization": `Bearer ${token}`,
      "bluemix-instance": options.instanceId,
      ...init.headers,
    };
    const answer = await exchange(fetchFn, url, {
      method: init.method,
      headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
    }, { action, timeoutMs, secrets: [token] });
    let body: unknown;
    try {
      body = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      body = undefined;
    }
    if (answer.status < 200 || answer.status > 299) {
      throw vaultError(action, answer.status, answer.statusText, answer.text, body, token);
    }
    if (!isRecord(body)) {
      throw new VaultError(`${action}: the vault's answer is not a JSON object`, {
        status: answer.status,
      });
    }
    return body;
  }

  function resources(action: string, body: Record<string, unknown>): unknown[] {
    if (!Array.isArray(body.resources)) {
      throw new VaultError(`${action}: the vault's answer has no "resources" list`);
    }
    return body.resources;
  }

  async function listKeys(): Promise<KeyRecord[]> {
    const action = `Cannot list the keys of instance "${options.instanceId}"`;
    const keys: KeyRecord[] = [];
    for (let offset = 0;; offset += pageSize) {
      if (offset >= MAX_PAGES * pageSize) {
        throw new VaultError(`${action}: the vault keeps returning full pages`);
      }
      const query = new URLSearchParams({ limit: String(pageSize), offset: String(offset) });
      const body = await call(action, `${keysUrl}?${query}`, {
        method: "GET",
        accept: COLLECTION_MEDIA_TYPE,
      });
      // An empty page has no "resources" at all.
      const page = body.resources === undefined ? [] : resources(action, body);
      for (const item of page) keys.push(toKeyRecord(action, item));
      if (page.length < pageSize) return keys;
    }
  }

  return {
    async createKey(request: CreateKeyRequest): Promise<KeyRecord> {
      const action = `Cannot store key "${request.name}"`;
      const resource: Record<string, unknown> = {
        type: KEY_MEDIA_TYPE,
        name: request.name,
        ...(request.description !== undefined ? { description: request.description } : {}),
        ...(request.aliases !== undefined ? { aliases: [...request.aliases] } : {}),
        extractable: true,
        payload: encodeBase64(request.payload),
      };
      const body = await call(action, keysUrl, {
        method: "POST",
        accept: "application/json",
        headers: { "content-type": KEY_MEDIA_TYPE, "prefer": "return=representation" },
        body: JSON.stringify({
          metadata: { collectionType: KEY_MEDIA_TYPE, collectionTotal: 1 },
          resources: [resource],
        }),
      });
      const [first] = resources(action, body);
      return toKeyRecord(action, first);
    },

    async getKey(idOrAlias: string): Promise<KeyRecord> {
      const action = `Cannot fetch key "${idOrAlias}"`;
      if (idOrAlias === "") throw new VaultError(`${action}: the id is empty`);
      const body = await call(action, `${keysUrl}/${encodeURIComponent(idOrAlias)}`, {
        method: "GET",
        accept: KEY_MEDIA_TYPE,
      });
      const [first] = resources(action, body);
      return toKeyRecord(action, first);
    },

    listKeys,

    async findKeyByName(name: string): Promise<KeyRecord | undefined> {
      let newest: KeyRecord | undefined;
      for (const key of await listKeys()) {
        if (key.name !== name) continue;
        if (!newest || Date.parse(key.creationDate) >= Date.parse(newest.creationDate)) {
          newest = key;
        }
      }
      return newest;
    },
  };
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
    ...(Array.isArray(item.aliases)
      ? { aliases: item.aliases.filter((a): a is string => typeof a === "string") }
      : {}),
    ...(typeof item.imported === "boolean" ? { imported: item.imported } : {}),
    ...(typeof item.payload === "string" && item.payload !== ""
      ? { payload: decodeBase64(action, item.payload) }
      : {}),
  };
}

/** Turns an error answer into a message that keeps the vault's `errorMsg` and `reasons`. */
function vaultError(
  action: string,
  status: number,
  statusText: string,
  text: string,
  body: unknown,
  token: string,
): VaultError {
  const line = statusLine({ status, statusText });
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
    return new VaultError(`${action}: ${detail}`, { status, reasons });
  }
  const detail = safeExcerpt(text, { secrets: [token] });
  return new VaultError(`${action}: ${line}${detail ? `: ${detail}` : ""}`, { status });
}

function parseReasons(value: unknown): VaultReason[] {
  if (!Array.isArray(value)) return [];
  const reasons: VaultReason[] = [];
  for (const item of value) {
    if (!isRecord(item) || typeof item.code !== "string") continue;
    reasons.push({
      code: item.code,
      message: typeof item.message === "string" ? item.message : "",
      ...(typeof item.status === "number" ? { status: item.status } : {}),
      ...(typeof item.moreInfo === "string" ? { moreInfo: item.moreInfo } : {}),
    });
  }
  return reasons;
}
