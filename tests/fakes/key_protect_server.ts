/**
 * A local **stand-in** for IBM Cloud Key Protect and the IBM Cloud IAM token endpoint, cloud
 * services that cannot run here. It exists only so that toolkit's vault client and the
 * `image-security vault` commands can be tested without an IBM Cloud account, and its fidelity
 * is itself checked by a client nobody here wrote: IBM's Go SDK (`github.com/IBM/keyprotect-go-
 * client` v0.15.1, built by `tests/env/provision.sh` as `keyprotect-sdk`; see
 * `tests/vault/keyprotect_sdk_test.ts`).
 *
 * It follows, and only follows, these public documents:
 * - the Key Protect API reference and guides (cloud.ibm.com/apidocs/key-protect and
 *   cloud.ibm.com/docs/key-protect, whose source is github.com/ibm-cloud-docs/key-protect:
 *   `create-standard-keys.md`, `import-standard-keys.md`, `retrieve-key.md`, `view-keys.md`,
 *   `delete-keys.md`, `disable-keys.md`, `create-key-alias.md`, `key-rings.md`,
 *   `concepts/key-states.md`, `error-messages.md`);
 * - the requests IBM's SDKs send (`keyprotect-go-client` v0.15.1: `kp.go`, `keys.go`,
 *   `listkeys.go`, `key_alias.go`, `key_rings.go`, `iam/iam.go`, and the fixtures of
 *   `kp_test.go`; `keyprotect-java-client`, generated from the API definition);
 * - IAM's token endpoint as IBM documents it (`retrieve-access-token.md`).
 *
 * What it serves:
 * - IAM `POST /identity/token` (and `/oidc/token`, the Go SDK's default): a form with
 *   `grant_type=urn:ibm:params:oauth:grant-type:apikey` and `apikey`; answers `{access_token,
 *   refresh_token, ims_user_id, token_type, expires_in, expiration, scope}`, or IAM's error body
 *   `{errorCode, errorMessage, errorDetails?, context: {requestId, …}}` (400 `BXNIM0415E` for an
 *   unknown API key, 400 `BXNIM0109E` for a missing property, 405 `BXNIM0060E` for another
 *   method).
 * - Key Protect, every call with `authorization: Bearer <token>` (401 without it or with a token
 *   IAM did not issue or that has expired) and `bluemix-instance` (400 when absent or not a UUID,
 *   401 for another instance); a `correlation-id` sent is echoed, else one is made;
 *   `x-kms-key-ring` scopes every call to that ring (an unknown ring is 404
 *   `KEY_RING_NOT_FOUND_ERR`; creation without it puts the key in `default`):
 *   - `POST /api/v2/keys`: one key in the collection body. The content type may be absent (the
 *     Go SDK sends none), `application/json` or `application/vnd.ibm.kms.key+json` (the Java
 *     SDK's and the guides'); `prefer: return=representation` answers with the key and its
 *     material, anything else with its metadata. A standard key holds up to 7,500 bytes; aliases
 *     follow the alias rules and must be free (409 `KEY_ALIAS_NOT_UNIQUE_ERR`).
 *   - `GET /api/v2/keys`: `limit` (1–5000, default 200), `offset`, `state` (integers 0–5, comma
 *     separated; default every state but destroyed), `extractable`; newest last, as created.
 *   - `GET /api/v2/keys/<id or alias>` (with the material of a standard key) and
 *     `…/metadata` (without); a deleted key is still read (state 5, no material).
 *   - `DELETE /api/v2/keys/<id or alias>`: the key becomes destroyed (state 5) and keeps its
 *     aliases; a second delete is 410 `KEY_DELETED_ERR`. `prefer: return=representation`
 *     answers 200 with the key, else 204.
 *   - `POST|DELETE /api/v2/keys/<id or alias>/aliases/<alias>`: 201 with the alias record /
 *     204. As the guide says, a deleted alias is held for a while before it can be created again
 *     (`aliasReleaseMs`, 0 unless set); until then its creation is a 409.
 *   - `POST /api/v2/keys/<id or alias>/actions/disable|enable`: root keys only (400
 *     `KEY_ROOT_REQ_ERR` for a standard key), active → suspended → active (409
 *     `KEY_ACTION_INVALID_STATE_ERR` otherwise). A key whose `expirationDate` has passed is
 *     deactivated (state 3).
 *   - `GET /api/v2/key_rings`, `POST /api/v2/key_rings/<id>`.
 *   Errors use Key Protect's body `{"metadata":{"collectionType":"application/vnd.ibm.kms.
 *   error+json","collectionTotal":1},"resources":[{"errorMsg":…,"reasons":[{"code","message",
 *   "status","moreInfo"}]}]}`.
 *
 * Published texts are used where IBM publishes them (`BXNIM0415E`, `BXNIM0109E`, `BXNIM0060E`,
 * `KEY_NOT_FOUND_ERR`, `KEY_DELETED_ERR`, `KEY_ROOT_REQ_ERR`, `KEY_ACTION_INVALID_STATE_ERR`,
 * `BAD_BODY_ERR`, `INVALID_FIELD_ERR`, the 401 message). The codes `KEY_ALIAS_NOT_UNIQUE_ERR`
 * and `KEY_RING_NOT_FOUND_ERR` are the service's (they appear in IBM's Terraform provider tests
 * and in clients that handle them), but no example body was found: their status (409, 404) and
 * wording are this stand-in's, as are the answers to a missing `bluemix-instance`, an
 * unsupported content type or IAM grant type, an alias created again too soon, and a key above
 * 7,500 bytes. Tokens are random opaque strings (IAM issues JWTs; clients treat them as opaque).
 *
 * For tests it can also answer the next requests with injected failures ({@linkcode
 * KeyProtectServer.failNext}: a 429 or 503 burst, with `Retry-After`, before or after the
 * request is carried out), and its clock can be passed in.
 *
 * @module
 */

/** How the stand-in is set up. */
export interface KeyProtectServerOptions {
  /** The one service instance it serves (a UUID), expected in `bluemix-instance`. */
  instanceId: string;
  /** API keys IAM accepts. */
  apiKeys?: readonly string[];
  /** Bearer tokens accepted as if IAM had issued them (they do not expire). */
  tokens?: readonly string[];
  /** The lifetime of the tokens IAM issues, in seconds. @default {3600} */
  tokenLifetimeSeconds?: number;
  /** Key rings the instance has besides `default`. */
  keyRings?: readonly string[];
  /** How long a deleted alias is held before it can be created again. @default {0} */
  aliasReleaseMs?: number;
  /** The stand-in's clock (token expiry, dates, alias release). @default {Date.now} */
  now?: () => number;
}

/** A request the stand-in received. */
export interface RecordedRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The path, e.g. `/api/v2/keys`. */
  readonly path: string;
  /** The query string with its `?`, or "". */
  readonly search: string;
  /** The `correlation-id` header, if sent. */
  readonly correlationId?: string;
  /** The `x-kms-key-ring` header, if sent. */
  readonly keyRing?: string;
  /** The `content-type` header, if sent. */
  readonly contentType?: string;
  /** The status answered. */
  status?: number;
}

/** A failure to answer instead of the real answer. */
export interface InjectedFault {
  /** The status, e.g. 429 or 503. */
  readonly status: number;
  /** A `Retry-After` header value. */
  readonly retryAfter?: string;
  /** Which service: Key Protect (`kms`, the default) or IAM. */
  readonly service?: "kms" | "iam";
  /** Only requests with this method (default: any). */
  readonly method?: string;
  /** Only requests to this path (default: any). */
  readonly path?: string;
  /**
   * Carry the request out, then answer with the failure (an answer lost on the way back).
   * Default: fail before doing anything.
   */
  readonly afterHandling?: boolean;
}

/** A key as the stand-in holds it (for assertions). */
export interface StoredKey {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly aliases: readonly string[];
  readonly extractable: boolean;
  readonly state: number;
  readonly keyRingID: string;
  readonly creationDate: string;
  readonly expirationDate?: string;
  /** The material, base64. */
  readonly payload?: string;
}

/** The running stand-in. */
export interface KeyProtectServer extends AsyncDisposable {
  /** The Key Protect base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The IAM token endpoint, `http://127.0.0.1:<port>/identity/token`. */
  readonly iamUrl: string;
  /** Every request received so far, in order. */
  readonly requests: readonly RecordedRequest[];
  /** The keys held, in creation order. */
  keys(): readonly StoredKey[];
  /** Answers the next matching requests with these failures, one each, in order. */
  failNext(...faults: InjectedFault[]): void;
  /** Stops the server. */
  stop(): Promise<void>;
}

const KEY_TYPE = "application/vnd.ibm.kms.key+json";
const ALIAS_TYPE = "application/vnd.ibm.kms.alias+json";
const KEY_RING_TYPE = "application/vnd.ibm.kms.key_ring+json";
const ERROR_TYPE = "application/vnd.ibm.kms.error+json";
const APIKEY_GRANT = "urn:ibm:params:oauth:grant-type:apikey";
const MORE_INFO = "https://cloud.ibm.com/apidocs/key-protect";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALIAS = /^[a-zA-Z0-9_-]{2,90}$/;
// The alias rules as IBM's guide states them, written here again on purpose: the stand-in must
// not share the client's reading of the documents it is meant to check.
const RESERVED = new Set(
  ("allowed_ip key keys metadata policy policies registration registrations ring rings rotate " +
    "wrap unwrap rewrap version versions").split(" "),
);
const KEY_RING_ID = /^[a-zA-Z0-9-]{2,100}$/;
const MAX_STANDARD_BYTES = 7500;
const CREATE_CONTENT_TYPES = new Set(["", "application/json", KEY_TYPE]);
const RESOURCE_FIELDS = new Set([
  "type",
  "name",
  "description",
  "aliases",
  "extractable",
  "payload",
  "expirationDate",
  "encryptedNonce",
  "iv",
  "encryptionAlgorithm",
  "keyRingID",
]);

interface Key {
  id: string;
  name: string;
  description?: string;
  aliases: string[];
  extractable: boolean;
  imported: boolean;
  state: number;
  keyRingID: string;
  creationDate: string;
  lastUpdateDate: string;
  expirationDate?: string;
  deletionDate?: string;
  payload?: string;
  keyVersionId: string;
}

interface Reason {
  code: string;
  message: string;
  status: number;
  target?: { type: string; name: string };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Key Protect's error body. */
function kmsError(status: number, errorMsg: string, reasons: Reason[] = []): Response {
  const resource: Record<string, unknown> = { errorMsg };
  if (reasons.length > 0) {
    resource.reasons = reasons.map((r) => ({ ...r, moreInfo: MORE_INFO }));
  }
  return json(status, {
    metadata: { collectionType: ERROR_TYPE, collectionTotal: 1 },
    resources: [resource],
  });
}

const PHRASES: Record<number, string> = {
  400: "Bad Request",
  404: "Not Found",
  409: "Conflict",
  410: "Gone",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** `Bad Request: Key could not be created: Please see 'reasons' for more details (CODE)`. */
function kmsReasonError(status: number, what: string, reason: Omit<Reason, "status">): Response {
  return kmsError(
    status,
    `${PHRASES[status]}: ${what}: Please see 'reasons' for more details (${reason.code})`,
    [{ ...reason, status }],
  );
}

function unauthorized(): Response {
  return kmsError(401, "Unauthorized: The user does not have access to the specified resource");
}

function badBody(what: string, detail: string): Response {
  return kmsReasonError(400, what, {
    code: "BAD_BODY_ERR",
    message:
      `Invalid body data was passed: Please ensure the data passed had valid formatting with no invalid characters: ${detail}`,
  });
}

function invalidField(what: string, field: string, rule: string): Response {
  return kmsReasonError(400, what, {
    code: "INVALID_FIELD_ERR",
    message: `The field '${field}' must be: ${rule}`,
    target: { type: "field", name: field },
  });
}

function invalidQuery(what: string, parameter: string, rule: string): Response {
  return kmsReasonError(400, what, {
    code: "INVALID_QUERY_PARAM_ERR",
    message: `The query parameter '${parameter}' must be: ${rule}`,
  });
}

function keyNotFound(what: string): Response {
  return kmsReasonError(404, what, { code: "KEY_NOT_FOUND_ERR", message: "Key does not exist" });
}

function keyRingNotFound(what: string, ring: string): Response {
  // Stand-in wording and status: the code is the service's, no example body was found.
  return kmsReasonError(404, what, {
    code: "KEY_RING_NOT_FOUND_ERR",
    message: `The key ring '${ring}' does not exist in this instance`,
  });
}

function aliasNotUnique(what: string): Response {
  // Stand-in wording and status: the code is the service's, no example body was found.
  return kmsReasonError(409, what, {
    code: "KEY_ALIAS_NOT_UNIQUE_ERR",
    message: "One or more aliases are already associated with a key in the instance",
  });
}

/** IAM's error body. */
function iamError(
  status: number,
  errorCode: string,
  errorMessage: string,
  errorDetails?: string,
): Response {
  return json(status, {
    errorCode,
    errorMessage,
    ...(errorDetails ? { errorDetails } : {}),
    context: {
      requestId: crypto.randomUUID().replaceAll("-", ""),
      requestType: "incoming.Identity_Token",
      url: "https://iam.cloud.ibm.com",
      locale: "en_US",
    },
  });
}

function base64Bytes(text: string): number | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  try {
    return atob(text).length;
  } catch {
    return undefined;
  }
}

function randomBase64(bytes: number): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(bytes))));
}

function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Starts the stand-in on 127.0.0.1 on a free port. Stop it with `stop()` or `await using`.
 *
 * @example
 * ```ts ignore
 * await using kp = await startKeyProtectServer({ instanceId, apiKeys: ["good-key"] });
 * const client = createKeyProtectClient({
 *   baseUrl: kp.url,
 *   instanceId,
 *   token: iamTokenSource({ apiKey: "good-key", iamUrl: kp.iamUrl }),
 * });
 * ```
 */
export function startKeyProtectServer(
  options: KeyProtectServerOptions,
): Promise<KeyProtectServer> {
  if (!UUID.test(options.instanceId)) {
    throw new TypeError(
      `Cannot start the Key Protect stand-in: "${options.instanceId}" is not a UUID`,
    );
  }
  const now = options.now ?? Date.now;
  const lifetime = options.tokenLifetimeSeconds ?? 3600;
  const aliasReleaseMs = options.aliasReleaseMs ?? 0;
  const apiKeys = new Set(options.apiKeys ?? []);
  const tokens = new Map<string, number>(); // token → expiry (ms since the epoch)
  for (const token of options.tokens ?? []) tokens.set(token, Number.POSITIVE_INFINITY);
  const keyRings = new Map<string, string>([["default", new Date(now()).toISOString()]]);
  for (const ring of options.keyRings ?? []) keyRings.set(ring, new Date(now()).toISOString());
  const keys: Key[] = [];
  const releasing = new Map<string, number>(); // deleted alias → when it can be created again
  const requests: RecordedRequest[] = [];
  const faults: InjectedFault[] = [];
  const accountId = crypto.randomUUID().replaceAll("-", "");
  const isoNow = () => new Date(now()).toISOString();

  function crn(id: string): string {
    return `crn:v1:bluemix:public:kms:us-south:a/${accountId}:${options.instanceId}:key:${id}`;
  }

  /** Moves keys whose expiration date has passed to deactivated (within the hour, says IBM). */
  function expire(): void {
    for (const key of keys) {
      if (key.state === 1 && key.expirationDate && Date.parse(key.expirationDate) <= now()) {
        key.state = 3;
        key.lastUpdateDate = key.expirationDate;
      }
    }
  }

  function representation(key: Key, withPayload: boolean): Record<string, unknown> {
    return {
      type: KEY_TYPE,
      id: key.id,
      name: key.name,
      ...(key.description !== undefined ? { description: key.description } : {}),
      ...(key.aliases.length > 0 ? { aliases: key.aliases } : {}),
      state: key.state,
      ...(key.expirationDate ? { expirationDate: key.expirationDate } : {}),
      extractable: key.extractable,
      crn: crn(key.id),
      imported: key.imported,
      creationDate: key.creationDate,
      createdBy: "IBMid-0000000000",
      algorithmType: "AES",
      lastUpdateDate: key.lastUpdateDate,
      keyVersion: { id: key.keyVersionId, creationDate: key.creationDate },
      keyRingID: key.keyRingID,
      dualAuthDelete: { enabled: false },
      deleted: key.state === 5,
      ...(key.deletionDate
        ? { deletionDate: key.deletionDate, deletedBy: "IBMid-0000000000" }
        : {}),
      ...(withPayload && key.extractable && key.state !== 5 && key.payload !== undefined
        ? { payload: key.payload }
        : {}),
    };
  }

  function keyCollection(status: number, list: Key[], withPayload: boolean): Response {
    return json(status, {
      metadata: { collectionType: KEY_TYPE, collectionTotal: list.length },
      ...(list.length > 0 ? { resources: list.map((k) => representation(k, withPayload)) } : {}),
    });
  }

  async function issueToken(request: Request): Promise<Response> {
    if (request.method !== "POST") {
      await request.body?.cancel();
      return iamError(
        405,
        "BXNIM0060E",
        "Web application exception 'javax.ws.rs.ClientErrorException' during request processing.",
        "HTTP 405 Method Not Allowed",
      );
    }
    const text = await request.text();
    // IAM reads only form fields: any other body leaves every property missing.
    const form = new URLSearchParams(
      mediaType(request) === "application/x-www-form-urlencoded" ? text : "",
    );
    const grantType = form.get("grant_type");
    if (!grantType) {
      return iamError(
        400,
        "BXNIM0109E",
        "Property missing or empty.",
        "Property 'grant_type' either missing or empty.",
      );
    }
    if (grantType !== APIKEY_GRANT) {
      // Stand-in wording: no published example of this answer was found.
      return iamError(400, "BXNIM0104E", "Grant type not supported.", `Grant type '${grantType}'`);
    }
    const apiKey = form.get("apikey");
    if (!apiKey) {
      return iamError(
        400,
        "BXNIM0109E",
        "Property missing or empty.",
        "Property 'apikey' either missing or empty.",
      );
    }
    if (!apiKeys.has(apiKey)) {
      return iamError(400, "BXNIM0415E", "Provided API key could not be found.");
    }
    const token = `${crypto.randomUUID()}.${randomBase64(24)}`;
    const issued = now();
    tokens.set(token, issued + lifetime * 1000);
    return json(200, {
      access_token: token,
      refresh_token: "not_supported",
      ims_user_id: 1234567,
      token_type: "Bearer",
      expires_in: lifetime,
      expiration: Math.floor(issued / 1000) + lifetime,
      scope: "ibm openid",
    });
  }

  /** The checks every Key Protect call makes; a Response when one fails. */
  function authorize(request: Request): Response | undefined {
    const instance = request.headers.get("bluemix-instance");
    if (!instance || !UUID.test(instance)) {
      // Stand-in wording: no published example of this answer was found.
      return kmsError(
        400,
        "Bad Request: The 'bluemix-instance' header is missing or is not a valid instance ID",
      );
    }
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
    const expiry = match ? tokens.get(match[1]!) : undefined;
    if (expiry === undefined || expiry <= now()) return unauthorized();
    if (instance.toLowerCase() !== options.instanceId.toLowerCase()) return unauthorized();
    return undefined;
  }

  /** The key `ref` (id or alias) names, within the ring of the request if it names one. */
  function find(ref: string, ring: string | undefined): Key | undefined {
    return keys.find((k) =>
      (k.id === ref || k.aliases.includes(ref)) && (ring === undefined || k.keyRingID === ring)
    );
  }

  async function createKey(request: Request, ring: string | undefined): Promise<Response> {
    const what = "Key could not be created";
    const contentType = mediaType(request);
    if (!CREATE_CONTENT_TYPES.has(contentType)) {
      await request.body?.cancel();
      // Stand-in wording: the guides send the key type, the Go SDK none, the Java SDK the key
      // type; other types are refused.
      return kmsError(
        415,
        `Unsupported Media Type: The content-type '${contentType}' is not supported; send ${KEY_TYPE} or application/json`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(await request.text());
    } catch (error) {
      return badBody(what, error instanceof Error ? error.message : String(error));
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return badBody(what, "the body is not a JSON object");
    }
    const { metadata, resources } = body as { metadata?: unknown; resources?: unknown };
    if (typeof metadata !== "object" || metadata === null || Object.keys(metadata).length === 0) {
      return badBody(what, "CollectionMetadata is empty");
    }
    if ((metadata as { collectionType?: unknown }).collectionType !== KEY_TYPE) {
      return badBody(what, `metadata.collectionType must be ${KEY_TYPE}`);
    }
    if (!Array.isArray(resources) || resources.length !== 1) {
      return badBody(what, "Only creation of one key per request is supported");
    }
    if ((metadata as { collectionTotal?: unknown }).collectionTotal !== resources.length) {
      return badBody(what, "metadata.collectionTotal does not match the number of resources");
    }
    const resource = resources[0] as Record<string, unknown>;
    if (typeof resource !== "object" || resource === null || Array.isArray(resource)) {
      return badBody(what, "resources[0] is not an object");
    }
    for (const field of Object.keys(resource)) {
      if (!RESOURCE_FIELDS.has(field)) return badBody(what, `json: unknown field "${field}"`);
    }
    if (resource.type !== KEY_TYPE) return invalidField(what, "type", KEY_TYPE);
    const name = resource.name;
    if (typeof name !== "string" || name.length < 2 || name.length > 90) {
      return invalidField(what, "name", "a string of 2 to 90 characters");
    }
    const description = resource.description;
    if (
      description !== undefined && (typeof description !== "string" || description.length > 240)
    ) {
      return invalidField(what, "description", "a string of up to 240 characters");
    }
    const extractable = resource.extractable ?? false;
    if (typeof extractable !== "boolean") return invalidField(what, "extractable", "a boolean");
    const expirationDate = resource.expirationDate;
    if (
      expirationDate !== undefined &&
      (typeof expirationDate !== "string" || Number.isNaN(Date.parse(expirationDate)))
    ) {
      return invalidField(what, "expirationDate", "a date in RFC 3339 format");
    }
    const aliases = resource.aliases ?? [];
    if (
      !Array.isArray(aliases) || aliases.length > 5 ||
      aliases.some((a) =>
        typeof a !== "string" || !ALIAS.test(a) || UUID.test(a) || RESERVED.has(a)
      )
    ) {
      return invalidField(
        what,
        "aliases",
        "up to 5 strings of 2 to 90 letters, digits, '-' or '_' that are neither UUIDs nor reserved names",
      );
    }
    for (const alias of aliases as string[]) {
      if (keys.some((k) => k.aliases.includes(alias)) || (releasing.get(alias) ?? 0) > now()) {
        return aliasNotUnique(what);
      }
    }
    let payload: string | undefined;
    if (resource.payload !== undefined) {
      const size = typeof resource.payload === "string" ? base64Bytes(resource.payload) : undefined;
      if (size === undefined || size === 0) {
        return invalidField(what, "payload", "a base64 encoded string");
      }
      if (!extractable && ![16, 24, 32].includes(size)) {
        return invalidField(what, "payload", "a base64 encoded 128, 192 or 256 bit key");
      }
      if (extractable && size > MAX_STANDARD_BYTES) {
        // Stand-in wording: IBM documents the limit, not the answer.
        return invalidField(what, "payload", `at most ${MAX_STANDARD_BYTES} bytes of key material`);
      }
      payload = resource.payload as string;
    }
    const created = isoNow();
    const key: Key = {
      id: crypto.randomUUID(),
      name,
      ...(description !== undefined ? { description } : {}),
      aliases: aliases as string[],
      extractable,
      imported: payload !== undefined,
      state: 1,
      keyRingID: ring ?? "default",
      creationDate: created,
      lastUpdateDate: created,
      ...(expirationDate !== undefined
        ? { expirationDate: new Date(expirationDate as string).toISOString() }
        : {}),
      // Without material the service generates a 256-bit key.
      payload: payload ?? randomBase64(32),
      keyVersionId: crypto.randomUUID(),
    };
    keys.push(key);
    expire();
    const full = (request.headers.get("prefer") ?? "").includes("return=representation");
    return keyCollection(201, [key], full);
  }

  function listKeys(url: URL, ring: string | undefined): Response {
    const what = "Keys could not be retrieved";
    const limitText = url.searchParams.get("limit") ?? "200";
    const limit = Number(limitText);
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > 5000) {
      return invalidQuery(what, "limit", "an integer between 1 and 5000");
    }
    const offsetText = url.searchParams.get("offset") ?? "0";
    if (!/^\d+$/.test(offsetText)) return invalidQuery(what, "offset", "a non-negative integer");
    const offset = Number(offsetText);
    const stateText = url.searchParams.get("state") ?? "0,1,2,3";
    if (!/^[0-5](,[0-5])*$/.test(stateText)) {
      return invalidQuery(
        what,
        "state",
        "a list of integers from 0 to 5 delimited by commas with no whitespace or trailing commas",
      );
    }
    const states = stateText.split(",").map(Number);
    const extractableText = url.searchParams.get("extractable");
    if (extractableText !== null && !/^(true|false)$/i.test(extractableText)) {
      return invalidQuery(what, "extractable", "true or false");
    }
    const extractable = extractableText === null
      ? undefined
      : extractableText.toLowerCase() === "true";
    const page = keys
      .filter((k) =>
        states.includes(k.state) && (ring === undefined || k.keyRingID === ring) &&
        (extractable === undefined || k.extractable === extractable)
      )
      .slice(offset, offset + limit);
    return keyCollection(200, page, false);
  }

  function deleteKey(request: Request, key: Key): Response {
    if (key.state === 5) {
      return kmsError(
        410,
        "Gone: Key could not be deleted. Please see `reasons` for more details.",
        [{
          code: "KEY_DELETED_ERR",
          message: "Key has already been deleted. Please delete references to this key.",
          status: 410,
        }],
      );
    }
    key.state = 5;
    key.deletionDate = isoNow();
    key.lastUpdateDate = key.deletionDate;
    if ((request.headers.get("prefer") ?? "").includes("return=representation")) {
      return keyCollection(200, [key], false);
    }
    return new Response(null, { status: 204 });
  }

  function keyAction(key: Key, action: string): Response {
    if (action !== "disable" && action !== "enable") {
      // Only the actions toolkit's tests need; the others exist in the service.
      return kmsError(400, `Bad Request: The stand-in does not serve the '${action}' action`);
    }
    const verb = action === "disable" ? "disabled" : "enabled";
    if (key.extractable) {
      return kmsError(
        400,
        `Bad Request: Key could not be ${verb}. Please see \`reasons\` for more details.`,
        [{
          code: "KEY_ROOT_REQ_ERR",
          message: "Requested action can only be completed with a root key.",
          status: 400,
        }],
      );
    }
    const from = action === "disable" ? 1 : 2;
    if (key.state !== from) {
      return kmsError(
        409,
        `Conflict: Key is not in ${
          from === 1 ? "active" : "suspended"
        } state: Key could not be ${verb}. Please see \`reasons\` for more details.`,
        [{
          code: "KEY_ACTION_INVALID_STATE_ERR",
          message: "Key is not in a valid state",
          status: 409,
        }],
      );
    }
    key.state = action === "disable" ? 2 : 1;
    key.lastUpdateDate = isoNow();
    return new Response(null, { status: 204 });
  }

  function createAlias(key: Key, alias: string): Response {
    const what = "Key alias could not be created";
    if (!ALIAS.test(alias) || UUID.test(alias) || RESERVED.has(alias)) {
      return invalidField(
        what,
        "alias",
        "2 to 90 letters, digits, '-' or '_', neither a UUID nor a reserved name",
      );
    }
    if (key.state === 5) return keyNotFound(what);
    if (key.aliases.includes(alias)) {
      return aliasRecord(200, key, alias);
    }
    if (keys.some((k) => k.aliases.includes(alias)) || (releasing.get(alias) ?? 0) > now()) {
      return aliasNotUnique(what);
    }
    if (key.aliases.length >= 5) {
      // Stand-in wording: the limit is documented, the answer is not.
      return invalidField(what, "aliases", "at most 5 aliases per key");
    }
    key.aliases.push(alias);
    key.lastUpdateDate = isoNow();
    return aliasRecord(201, key, alias);
  }

  function aliasRecord(status: number, key: Key, alias: string): Response {
    return json(status, {
      metadata: { collectionType: ALIAS_TYPE, collectionTotal: 1 },
      resources: [{
        keyId: key.id,
        alias,
        createdBy: "IBMid-0000000000",
        creationDate: key.lastUpdateDate,
      }],
    });
  }

  function deleteAlias(key: Key, alias: string): Response {
    if (!key.aliases.includes(alias)) return keyNotFound("Key alias could not be deleted");
    key.aliases = key.aliases.filter((a) => a !== alias);
    key.lastUpdateDate = isoNow();
    if (aliasReleaseMs > 0) releasing.set(alias, now() + aliasReleaseMs);
    return new Response(null, { status: 204 });
  }

  async function keyRingsCall(request: Request, id: string | undefined): Promise<Response> {
    await request.body?.cancel();
    if (id === undefined && request.method === "GET") {
      const rings = [...keyRings.entries()];
      return json(200, {
        metadata: { collectionType: KEY_RING_TYPE, collectionTotal: rings.length },
        resources: rings.map(([ringId, creationDate]) => ({
          id: ringId,
          creationDate,
          createdBy: "IBMid-0000000000",
        })),
      });
    }
    if (id !== undefined && request.method === "POST") {
      if (!KEY_RING_ID.test(id) || keyRings.has(id)) {
        // Stand-in wording: no published example of this answer was found.
        return kmsError(
          409,
          `Conflict: Key ring could not be created: '${id}' exists or is not a valid key ring id`,
        );
      }
      keyRings.set(id, isoNow());
      return new Response(null, { status: 201 });
    }
    return kmsError(405, "Method Not Allowed: The method is not supported for this resource");
  }

  async function kms(request: Request, url: URL): Promise<Response> {
    const denied = authorize(request);
    if (denied) {
      await request.body?.cancel();
      return denied;
    }
    const rings = /^\/api\/v2\/key_rings(?:\/([^/]+))?\/?$/.exec(url.pathname);
    if (rings) {
      return await keyRingsCall(
        request,
        rings[1] === undefined ? undefined : decodeURIComponent(rings[1]),
      );
    }
    const match =
      /^\/api\/v2\/keys(?:\/([^/]+)(?:\/(metadata|aliases\/[^/]+|actions\/[^/]+))?)?\/?$/.exec(
        url.pathname,
      );
    if (!match) {
      await request.body?.cancel();
      return kmsError(404, "Not Found: The requested resource could not be found");
    }
    const ring = request.headers.get("x-kms-key-ring") ?? undefined;
    const ref = match[1] === undefined ? undefined : decodeURIComponent(match[1]);
    const sub = match[2];
    if (ring !== undefined && !keyRings.has(ring)) {
      await request.body?.cancel();
      const what = ref === undefined && request.method === "POST"
        ? "Key could not be created"
        : "Key could not be retrieved";
      return keyRingNotFound(what, ring);
    }
    expire();
    if (ref === undefined) {
      if (request.method === "POST") return await createKey(request, ring);
      if (request.method === "GET") return listKeys(url, ring);
    } else {
      await request.body?.cancel();
      const key = find(ref, ring);
      const what = request.method === "DELETE" && sub === undefined
        ? "Key could not be deleted"
        : "Key could not be retrieved";
      if (!key) return keyNotFound(what);
      if (sub === undefined && request.method === "GET") return keyCollection(200, [key], true);
      if (sub === "metadata" && request.method === "GET") return keyCollection(200, [key], false);
      if (sub === undefined && request.method === "DELETE") return deleteKey(request, key);
      if (sub?.startsWith("aliases/")) {
        const alias = decodeURIComponent(sub.slice("aliases/".length));
        if (request.method === "POST") return createAlias(key, alias);
        if (request.method === "DELETE") return deleteAlias(key, alias);
      }
      if (sub?.startsWith("actions/") && request.method === "POST") {
        return keyAction(key, sub.slice("actions/".length));
      }
    }
    await request.body?.cancel();
    return kmsError(405, "Method Not Allowed: The method is not supported for this resource");
  }

  function faultResponse(fault: InjectedFault): Response {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
    const body = fault.service === "iam"
      ? {
        errorCode: "BXNIM0999E",
        errorMessage: PHRASES[fault.status] ?? "Error",
        context: { requestId: crypto.randomUUID().replaceAll("-", "") },
      }
      : {
        metadata: { collectionType: ERROR_TYPE, collectionTotal: 1 },
        resources: [{ errorMsg: `${PHRASES[fault.status] ?? "Error"}: injected by the test` }],
      };
    return new Response(JSON.stringify(body), { status: fault.status, headers });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      search: url.search,
      ...optionalHeader(request, "correlation-id", "correlationId"),
      ...optionalHeader(request, "x-kms-key-ring", "keyRing"),
      ...optionalHeader(request, "content-type", "contentType"),
    };
    requests.push(recorded);
    const iam = url.pathname === "/identity/token" || url.pathname === "/oidc/token";
    const service = iam ? "iam" : "kms";
    const index = faults.findIndex((f) =>
      (f.service ?? "kms") === service && (f.method === undefined || f.method === request.method) &&
      (f.path === undefined || f.path === url.pathname)
    );
    const fault = index >= 0 ? faults.splice(index, 1)[0] : undefined;
    let response: Response;
    if (fault && !fault.afterHandling) {
      await request.body?.cancel();
      response = faultResponse(fault);
    } else {
      response = iam ? await issueToken(request) : await kms(request, url);
      if (fault) {
        await response.body?.cancel();
        response = faultResponse(fault);
      }
    }
    recorded.status = response.status;
    if (!iam) {
      response.headers.set(
        "correlation-id",
        request.headers.get("correlation-id") ?? crypto.randomUUID(),
      );
    }
    return response;
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handle);
  const base = `http://127.0.0.1:${server.addr.port}`;
  let stopped: Promise<void> | undefined;
  function stop(): Promise<void> {
    stopped ??= server.shutdown();
    return stopped;
  }
  return Promise.resolve({
    url: base,
    iamUrl: `${base}/identity/token`,
    requests,
    keys: () => {
      expire();
      return keys.map((k) => ({
        id: k.id,
        name: k.name,
        ...(k.description !== undefined ? { description: k.description } : {}),
        aliases: [...k.aliases],
        extractable: k.extractable,
        state: k.state,
        keyRingID: k.keyRingID,
        creationDate: k.creationDate,
        ...(k.expirationDate ? { expirationDate: k.expirationDate } : {}),
        ...(k.payload !== undefined ? { payload: k.payload } : {}),
      }));
    },
    failNext: (...more: InjectedFault[]) => void faults.push(...more),
    stop,
    [Symbol.asyncDispose]: stop,
  });
}

function optionalHeader<K extends string>(
  request: Request,
  header: string,
  key: K,
): { [P in K]?: string } {
  const value = request.headers.get(header);
  return (value === null ? {} : { [key]: value }) as { [P in K]?: string };
}
