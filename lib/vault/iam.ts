/**
 * IBM Cloud IAM access tokens from an API key: the token source that Key Protect and Hyper
 * Protect Crypto Services requests are authorised with. Token requests are retried as Key
 * Protect's are (429 and 5xx but 501, with backoff; see `_http.ts`), as IBM's Go SDK does.
 *
 * @module
 */
import {
  type Answer,
  attemptsNote,
  exchange,
  isRecord,
  statusLine,
  transportOf,
  type VaultTransportOptions,
} from "./_http.ts";
import { safeExcerpt } from "../errors.ts";
import { parseJsonWithin } from "../json_shape.ts";
import { VaultError } from "./vault_error.ts";

/** The public IBM Cloud IAM token endpoint. */
export const DEFAULT_IAM_URL = "https://iam.cloud.ibm.com/identity/token";

/** The OAuth grant type IAM uses to exchange an API key for an access token. */
export const IAM_APIKEY_GRANT_TYPE = "urn:ibm:params:oauth:grant-type:apikey";

/**
 * How {@link iamTokenSource} gets its tokens. `now` is also the clock the token's lifetime is
 * measured with.
 */
export interface IamTokenSourceOptions extends VaultTransportOptions {
  /** The IBM Cloud API key (a user's or a service ID's). */
  apiKey: string;
  /**
   * The token endpoint.
   * @default {"https://iam.cloud.ibm.com/identity/token"}
   */
  iamUrl?: string;
}

/** The margin before a token's expiry at which a new one is fetched. */
const REFRESH_MARGIN_MS = 60_000;

interface CachedToken {
  readonly value: string;
  readonly refreshAt: number;
}

/**
 * Returns a function that yields an IAM access token for the API key (without the `Bearer `
 * prefix). The token is fetched on the first call and reused until shortly before it expires
 * (one minute before, or half-way through its life if it lives less than two minutes);
 * concurrent calls share one request. A failure is not cached: the next call asks again.
 *
 * Errors are {@link VaultError}s that keep IAM's `errorMessage`, `errorDetails`, `errorCode`
 * (e.g. `BXNIM0415E` for an unknown API key) and request id (`context.requestId`, what IAM
 * support asks for), and never contain the API key or a token.
 *
 * @example
 * ```ts ignore
 * const token = iamTokenSource({ apiKey: Deno.env.get("IBMCLOUD_API_KEY")! });
 * const client = createKeyProtectClient({ baseUrl, instanceId, token });
 * ```
 */
export function iamTokenSource(options: IamTokenSourceOptions): () => Promise<string> {
  const iamUrl = options.iamUrl ?? DEFAULT_IAM_URL;
  const transport = transportOf(options);
  const clock = transport.now;
  let cached: CachedToken | undefined;
  let pending: Promise<string> | undefined;

  async function request(): Promise<string> {
    const action = `Cannot get an IAM token from "${iamUrl}"`;
    if (!options.apiKey) throw new VaultError(`${action}: the API key is empty`);
    const requestedAt = clock();
    const answer = await exchange(transport, iamUrl, {
      method: "POST",
      headers: {
        "accept": "application/json",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ grant_type: IAM_APIKEY_GRANT_TYPE, apikey: options.apiKey }),
    }, { action, secrets: [options.apiKey], service: "IAM" });

    let body: unknown;
    try {
      // A token answer (`access_token`, `expires_in`, …) or an error: a few dozen values.
      body = parseJsonWithin(answer.text, { maxValues: 1024, maxDepth: 16 }, "the IAM answer");
    } catch {
      body = undefined;
    }
    if (answer.status !== 200) throw iamError(action, answer, body, options.apiKey);
    const token = isRecord(body) ? body.access_token : undefined;
    if (typeof token !== "string" || token === "") {
      throw new VaultError(`${action}: the answer has no access_token`, { status: answer.status });
    }
    cached = { value: token, refreshAt: refreshTime(body as Record<string, unknown>, requestedAt) };
    return token;
  }

  return function token(): Promise<string> {
    if (cached && clock() < cached.refreshAt) return Promise.resolve(cached.value);
    if (!pending) {
      pending = request().finally(() => {
        pending = undefined;
      });
    }
    return pending;
  };
}

/** When to fetch a new token: before `expires_in` (or `expiration`) runs out. */
function refreshTime(body: Record<string, unknown>, requestedAt: number): number {
  let expiresAt: number | undefined;
  if (typeof body.expires_in === "number" && body.expires_in > 0) {
    expiresAt = requestedAt + body.expires_in * 1000;
  } else if (typeof body.expiration === "number" && body.expiration > 0) {
    expiresAt = body.expiration * 1000;
  }
  if (expiresAt === undefined) return requestedAt; // unknown lifetime: do not reuse it
  const lifetime = expiresAt - requestedAt;
  return expiresAt - Math.min(REFRESH_MARGIN_MS, lifetime / 2);
}

function iamError(
  action: string,
  answer: Answer,
  body: unknown,
  apiKey: string,
): VaultError {
  const { status } = answer;
  const line = statusLine(answer);
  const tries = `${attemptsNote(answer.attempts, answer.elapsedMs)}${answer.stopped}`;
  const context = isRecord(body) && isRecord(body.context) ? body.context : undefined;
  const requestId =
    typeof context?.requestId === "string" && /^[\w.-]{1,128}$/.test(context.requestId)
      ? context.requestId
      : undefined;
  const common = {
    status,
    attempts: answer.attempts,
    ...(requestId ? { correlationId: requestId } : {}),
  };
  const trailer = `${tries}${requestId ? ` [IAM request id: ${requestId}]` : ""}`;
  if (
    isRecord(body) && (typeof body.errorMessage === "string" || typeof body.errorCode === "string")
  ) {
    const code = typeof body.errorCode === "string" ? body.errorCode : undefined;
    const parts = [body.errorMessage, body.errorDetails]
      .filter((p): p is string => typeof p === "string" && p !== "")
      .map((p) => p.trim());
    const detail = safeExcerpt(parts.join(" ") || "no message", {
      secrets: [apiKey],
      maxChars: 500,
    });
    return new VaultError(`${action}: ${line}: ${detail}${code ? ` (${code})` : ""}${trailer}`, {
      ...common,
      ...(code ? { code } : {}),
    });
  }
  const detail = safeExcerpt(answer.text, { secrets: [apiKey] });
  return new VaultError(`${action}: ${line}${detail ? `: ${detail}` : ""}${trailer}`, common);
}
