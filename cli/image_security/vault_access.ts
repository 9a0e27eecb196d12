/**
 * Reaching the vault from the vault flags (`VAULT_FLAGS` of `cli/flags.ts`), for `vault store`,
 * `vault fetch`, `sign --vault-key` and `setup-signing`: the URL and instance checked, the
 * credentials (a bearer token, or an IAM API key from `--api-key`, `--api-key-file` or
 * `IBMCLOUD_API_KEY` exchanged at `--iam-url`), and a key found by id, name or alias. Every mistake
 * in the flags is a usage error naming the flag; no message ever holds a token or an API key.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { VAULT_FLAGS } from "../flags.ts";
import { readUserFile } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  DEFAULT_IAM_URL,
  iamTokenSource,
  isKeyId,
  type KeyProtectClient,
  type KeyRecord,
  VaultError,
} from "../../lib/vault/mod.ts";

/** The vault flags as a command receives them. */
export type VaultOptions = Omit<OptionsOf<{ flags: typeof VAULT_FLAGS }>, "verbose" | "quiet">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A string option trimmed; blank counts as absent. */
export function blankless(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text ? text : undefined;
}

/** A vault, connected. */
export interface Vault {
  readonly client: KeyProtectClient;
  /** `https://us-south.kms.cloud.ibm.com (instance 0f1e…)`, for messages. */
  readonly where: string;
  /** The base URL, as given. */
  readonly baseUrl: string;
  /** The instance id (a CRN reduced to its id). */
  readonly instanceId: string;
  /** The IAM token endpoint. */
  readonly iamUrl: string;
  /** The IAM API key, when the credentials are one (not a bare token). */
  readonly apiKey: string | undefined;
}

/** Settings used where a flag is not given (the entries of the `image-signing` Secret). */
export interface VaultDefaults {
  readonly kmsUrl?: string | undefined;
  readonly instanceId?: string | undefined;
  readonly apiKey?: string | undefined;
  readonly iamUrl?: string | undefined;
}

/**
 * The API key of `--api-key` (or `IBMCLOUD_API_KEY`) or `--api-key-file`; undefined when none is
 * given. Both at once are a usage error.
 */
export async function apiKeyOf(options: VaultOptions, cwd: string): Promise<string | undefined> {
  const given = blankless(options.apiKey);
  const file = blankless(options.apiKeyFile);
  if (file === undefined) return given;
  if (given !== undefined) {
    throw new UsageError(
      "Give the API key once: --api-key-file, or --api-key (or IBMCLOUD_API_KEY), not both",
    );
  }
  const key = new TextDecoder().decode(await readUserFile(cwd, file, "--api-key-file")).trim();
  if (key === "") throw new UsageError(`Cannot use --api-key-file "${file}": the file is empty`);
  return key;
}

/** Checks the connection flags and makes the client; every mistake is a UsageError. */
export async function connectVault(
  options: VaultOptions,
  ctx: CommandContext,
  defaults: VaultDefaults = {},
): Promise<Vault> {
  const kmsUrl = blankless(options.kmsUrl) ?? blankless(defaults.kmsUrl);
  if (kmsUrl === undefined) {
    throw new UsageError(
      "Missing the vault URL: pass --kms-url or set KMS_URL " +
        "(Key Protect: https://<region>.kms.cloud.ibm.com)",
    );
  }
  const baseUrl = checkUrl("--kms-url", kmsUrl);
  const instanceFlag = blankless(options.instanceId) ?? blankless(defaults.instanceId);
  if (instanceFlag === undefined) {
    throw new UsageError(
      "Missing the vault's instance id: pass --instance-id or set KMS_INSTANCE_ID",
    );
  }
  const instanceId = instanceIdOf(instanceFlag);

  const tokenFlag = blankless(options.token);
  const apiKey = await apiKeyOf(options, ctx.io.cwd) ?? blankless(defaults.apiKey);
  const iamUrl = checkUrl(
    "--iam-url",
    blankless(options.iamUrl) ?? blankless(defaults.iamUrl) ?? DEFAULT_IAM_URL,
  );
  let token: () => Promise<string>;
  if (tokenFlag !== undefined) {
    const value = tokenFlag.replace(/^Bearer\s+/i, "");
    token = () => Promise.resolve(value);
  } else if (apiKey !== undefined) {
    token = iamTokenSource({ apiKey, iamUrl });
  } else {
    throw new UsageError(
      "Missing credentials: pass --token (or set KMS_TOKEN) with an IAM access token, " +
        "or --api-key, --api-key-file (or set IBMCLOUD_API_KEY) to get one from IAM",
    );
  }
  return {
    client: await ctx.vault({ baseUrl, instanceId, token }),
    where: `${new URL(baseUrl).origin} (instance ${instanceId})`,
    baseUrl,
    instanceId,
    iamUrl,
    apiKey,
  };
}

/** An http(s) URL; plain http only to this machine, since a bearer token goes with it. */
export function checkUrl(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`Cannot use ${flag} "${value}": it is not a URL`);
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new UsageError(
      `Cannot use ${flag} "${value}": it must be an https URL (plain http only for localhost)`,
    );
  }
  return value;
}

/** The instance id: a UUID, or the instance's CRN (`crn:v1:…:kms:<region>:a/<account>:<id>::`). */
function instanceIdOf(value: string): string {
  const candidate = value.startsWith("crn:") ? value.split(":")[7] ?? "" : value;
  if (!UUID.test(candidate)) {
    throw new UsageError(
      `Cannot use --instance-id "${value}": it is neither an instance id (a UUID) nor an instance CRN`,
    );
  }
  return candidate;
}

/** Fetches the key by id; else the newest key with that name; else by alias. */
export async function findKey(client: KeyProtectClient, name: string): Promise<KeyRecord> {
  if (isKeyId(name)) return await client.getKey(name);
  const byName = await client.findKeyByName(name);
  if (byName) return await client.getKey(byName.id);
  try {
    return await client.getKey(name);
  } catch (error) {
    if (error instanceof VaultError && error.status === 404) {
      const prefix = `Cannot fetch key "${name}": `;
      const detail = error.message.startsWith(prefix)
        ? error.message.slice(prefix.length)
        : error.message;
      throw new VaultError(`${prefix}no key has this name or alias: ${detail}`, {
        status: 404,
        reasons: error.reasons,
      });
    }
    throw error;
  }
}
