/**
 * A local stand-in for IBM Cloud Key Protect and the IBM Cloud IAM token endpoint, which are
 * cloud services that cannot run here. It exists only so that the vault client and the
 * `image-security vault` commands can be tested without an IBM Cloud account.
 *
 * It follows the public API of the two services:
 *
 * - IAM `POST /identity/token`: a form with `grant_type=urn:ibm:params:oauth:grant-type:apikey`
 *   and `apikey`; answers `{access_token, refresh_token, ims_user_id, token_type, expires_in,
 *   expiration, scope}`, or IAM's error body `{errorCode, errorMessage, errorDetails?,
 *   context}` (400 `BXNIM0415E` for an unknown API key, 400 `BXNIM0109E` for a missing
 *   property, 405 `BXNIM0060E` for another method).
 * - Key Protect `POST /api/v2/keys`, `GET /api/v2/keys` (`limit` 1–5000, default 200,
 *   `offset`; destroyed keys left out), `GET /api/v2/keys/<id or alias>`. Every call needs
 *   `authorization: Bearer <token>` (401 without it or with a token IAM did not issue or that
 *   has expired) and `bluemix-instance` (400 when absent or not a UUID, 401 for another
 *   instance). Key creation needs `content-type: application/vnd.ibm.kms.key+json` and a
 *   well-formed collection body (400 otherwise). Errors use Key Protect's body
 *   `{"metadata":{"collectionType":"application/vnd.ibm.kms.error+json","collectionTotal":1},
 *   "resources":[{"errorMsg":…,"reasons":[{"code","message","status","moreInfo"}]}]}`.
 *   Key records carry `id` (a UUID), `name`, `type`, `extractable`, `state`, `creationDate`,
 *   `crn`, `imported` and, on reading a standard key, its base64 `payload`.
 *
 * The texts of `BXNIM0415E`, `BXNIM0109E`, `BXNIM0060E`, `KEY_NOT_FOUND_ERR`, `BAD_BODY_ERR`,
 * `INVALID_FIELD_ERR` and the 401 message are those IBM publishes. No published example was
 * found for the answers to a missing `bluemix-instance` header, a wrong content type, or an
 * unsupported IAM grant type: there the status and body shape follow the API and the wording
 * is this stand-in's own. Tokens are random opaque strings (IAM issues JWTs; clients must
 * treat them as opaque either way).
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
}

/** A request the stand-in received. */
export interface RecordedRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The path, e.g. `/api/v2/keys`. */
  readonly path: string;
  /** The query string with its `?`, or "". */
  readonly search: string;
}

/** The running stand-in. */
export interface KeyProtectServer extends AsyncDisposable {
  /** The Key Protect base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The IAM token endpoint, `http://127.0.0.1:<port>/identity/token`. */
  readonly iamUrl: string;
  /** Every request received so far, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Stops the server. */
  stop(): Promise<void>;
}

const KEY_TYPE = "application/vnd.ibm.kms.key+json";
const ERROR_TYPE = "application/vnd.ibm.kms.error+json";
const APIKEY_GRANT = "urn:ibm:params:oauth:grant-type:apikey";
const MORE_INFO = "https://cloud.ibm.com/apidocs/key-protect";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALIAS = /^[a-zA-Z0-9_-]{2,90}$/;
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

interface StoredKey {
  id: string;
  name: string;
  description?: string;
  aliases: string[];
  extractable: boolean;
  imported: boolean;
  state: number;
  creationDate: string;
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
    headers: { "content-type": "application/json", "correlation-id": crypto.randomUUID() },
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
  const lifetime = options.tokenLifetimeSeconds ?? 3600;
  const apiKeys = new Set(options.apiKeys ?? []);
  const tokens = new Map<string, number>(); // token → expiry (ms since the epoch)
  for (const token of options.tokens ?? []) tokens.set(token, Number.POSITIVE_INFINITY);
  const keys: StoredKey[] = [];
  const requests: RecordedRequest[] = [];
  const accountId = crypto.randomUUID().replaceAll("-", "");

  function crn(id: string): string {
    return `crn:v1:bluemix:public:kms:us-south:a/${accountId}:${options.instanceId}:key:${id}`;
  }

  function representation(key: StoredKey, withPayload: boolean): Record<string, unknown> {
    return {
      type: KEY_TYPE,
      id: key.id,
      name: key.name,
      ...(key.description !== undefined ? { description: key.description } : {}),
      ...(key.aliases.length > 0 ? { aliases: key.aliases } : {}),
      state: key.state,
      extractable: key.extractable,
      crn: crn(key.id),
      imported: key.imported,
      creationDate: key.creationDate,
      createdBy: "IBMid-0000000000",
      algorithmType: "AES",
      lastUpdateDate: key.creationDate,
      keyVersion: { id: key.keyVersionId, creationDate: key.creationDate },
      keyRingID: "default",
      dualAuthDelete: { enabled: false },
      deleted: false,
      ...(withPayload && key.extractable && key.payload !== undefined
        ? { payload: key.payload }
        : {}),
    };
  }

  async function issueToken(request: Request): Promise<Response> {
    if (request.method !== "POST") {
      return iamError(
        405,
        "BXNIM0060E",
        "Web application exception 'javax.ws.rs.ClientErrorException' during request processing.",
        "HTTP 405 Method Not Allowed",
      );
    }
    const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
    const text = await request.text();
    // IAM reads only form fields: any other body leaves every property missing.
    const form = new URLSearchParams(
      contentType.toLowerCase() === "application/x-www-form-urlencoded" ? text : "",
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
    const now = Date.now();
    tokens.set(token, now + lifetime * 1000);
    return json(200, {
      access_token: token,
      refresh_token: "not_supported",
      ims_user_id: 1234567,
      token_type: "Bearer",
      expires_in: lifetime,
      expiration: Math.floor(now / 1000) + lifetime,
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
    if (expiry === undefined || expiry <= Date.now()) return unauthorized();
    if (instance.toLowerCase() !== options.instanceId.toLowerCase()) return unauthorized();
    return undefined;
  }

  async function createKey(request: Request): Promise<Response> {
    const what = "Key could not be created";
    const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (contentType.toLowerCase() !== KEY_TYPE) {
      // Stand-in wording: no published example of this answer was found.
      return kmsError(400, `Bad Request: The content-type header must be ${KEY_TYPE}`);
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
    if (
      typeof metadata !== "object" || metadata === null ||
      (metadata as { collectionType?: unknown }).collectionType !== KEY_TYPE
    ) {
      return badBody(what, `metadata.collectionType must be ${KEY_TYPE}`);
    }
    if (!Array.isArray(resources) || resources.length !== 1) {
      return badBody(what, "resources must hold exactly one key");
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
    const aliases = resource.aliases ?? [];
    if (
      !Array.isArray(aliases) || aliases.length > 5 ||
      aliases.some((a) => typeof a !== "string" || !ALIAS.test(a) || UUID.test(a))
    ) {
      return invalidField(
        what,
        "aliases",
        "up to 5 strings of 2 to 90 letters, digits, '-' or '_' that are not UUIDs",
      );
    }
    for (const alias of aliases as string[]) {
      if (keys.some((k) => k.aliases.includes(alias))) {
        return kmsReasonError(409, what, {
          code: "KEY_ALIAS_NOT_UNIQUE_ERR",
          message: "One or more aliases are already associated with a key in the instance",
        });
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
      payload = resource.payload as string;
    }
    const key: StoredKey = {
      id: crypto.randomUUID(),
      name,
      ...(description !== undefined ? { description } : {}),
      aliases: aliases as string[],
      extractable,
      imported: payload !== undefined,
      state: 1,
      creationDate: new Date().toISOString(),
      // Without material the service generates a 256-bit key.
      payload: payload ?? randomBase64(32),
      keyVersionId: crypto.randomUUID(),
    };
    keys.push(key);
    const full = (request.headers.get("prefer") ?? "").includes("return=representation");
    return json(201, {
      metadata: { collectionType: KEY_TYPE, collectionTotal: 1 },
      resources: [full ? representation(key, true) : { type: KEY_TYPE, id: key.id }],
    });
  }

  function listKeys(url: URL): Response {
    const what = "Keys could not be retrieved";
    const limit = Number(url.searchParams.get("limit") ?? "200");
    if (!Number.isInteger(limit) || limit < 1 || limit > 5000) {
      return kmsReasonError(400, what, {
        code: "INVALID_QUERY_PARAM_ERR",
        message: "The query parameter 'limit' must be: an integer between 1 and 5000",
      });
    }
    const offset = Number(url.searchParams.get("offset") ?? "0");
    if (!Number.isInteger(offset) || offset < 0) {
      return kmsReasonError(400, what, {
        code: "INVALID_QUERY_PARAM_ERR",
        message: "The query parameter 'offset' must be: a non-negative integer",
      });
    }
    const states = (url.searchParams.get("state") ?? "0,1,2,3").split(",").map(Number);
    const page = keys.filter((k) => states.includes(k.state)).slice(offset, offset + limit);
    return json(200, {
      metadata: { collectionType: KEY_TYPE, collectionTotal: page.length },
      ...(page.length > 0 ? { resources: page.map((k) => representation(k, false)) } : {}),
    });
  }

  function getKey(idOrAlias: string): Response {
    const key = keys.find((k) => k.id === idOrAlias || k.aliases.includes(idOrAlias));
    if (!key || key.state === 5) {
      return kmsReasonError(404, "Key could not be retrieved", {
        code: "KEY_NOT_FOUND_ERR",
        message: "Key does not exist",
      });
    }
    return json(200, {
      metadata: { collectionType: KEY_TYPE, collectionTotal: 1 },
      resources: [representation(key, true)],
    });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    requests.push({ method: request.method, path: url.pathname, search: url.search });
    if (url.pathname === "/identity/token") return await issueToken(request);

    const match = /^\/api\/v2\/keys(?:\/([^/]+))?\/?$/.exec(url.pathname);
    if (!match) return kmsError(404, "Not Found: The requested resource could not be found");
    const denied = authorize(request);
    if (denied) {
      await request.body?.cancel();
      return denied;
    }
    const id = match[1] === undefined ? undefined : decodeURIComponent(match[1]);
    if (id === undefined && request.method === "POST") return await createKey(request);
    if (id === undefined && request.method === "GET") return listKeys(url);
    if (id !== undefined && request.method === "GET") return getKey(id);
    await request.body?.cancel();
    return kmsError(405, "Method Not Allowed: The method is not supported for this resource");
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handle);
  const url = `http://127.0.0.1:${server.addr.port}`;
  let stopped: Promise<void> | undefined;
  function stop(): Promise<void> {
    stopped ??= server.shutdown();
    return stopped;
  }
  return Promise.resolve({
    url,
    iamUrl: `${url}/identity/token`,
    requests,
    stop,
    [Symbol.asyncDispose]: stop,
  });
}
