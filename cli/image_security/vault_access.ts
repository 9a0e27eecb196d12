/**
 * Reaching the vault from the vault flags (`VAULT_FLAGS` of `cli/flags.ts`), for `vault store`,
 * `vault fetch`, `sign --vault-key` and `setup-signing`: the URL, instance and key ring checked,
 * the credentials (a bearer token from `--token-file`, `KMS_TOKEN` or `--token`, or an IAM API key
 * from `--api-key-file`, `IBMCLOUD_API_KEY` or `--api-key`, exchanged at `--iam-url`; each `-`
 * reads stdin), each attempt traced with `-v` (a retry always),
 * and a key's material read into memory (lib/vault's `resolveKey` and `fetchKeyMaterial`). Every
 * mistake in the flags is a usage error naming the flag; no message ever holds a token or an API
 * key.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { clientTimeoutMs } from "../network.ts";
import type { OptionsOf } from "../options.ts";
import type { VAULT_FLAGS } from "../flags.ts";
import { resolveSecret } from "../secret_flag.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  DEFAULT_IAM_URL,
  describeTraceEvent,
  fetchKeyMaterial,
  iamTokenSource,
  type KeyProtectClient,
  type KeyRecord,
  type ResolvedVia,
  resolveKey,
  type VaultTraceEvent,
} from "../../lib/vault/mod.ts";

/** The vault flags as a command receives them (with `-v`, which traces each attempt). */
export type VaultOptions = Omit<OptionsOf<{ flags: typeof VAULT_FLAGS }>, "quiet">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A string option trimmed; blank counts as absent. */
export function blankless(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text ? text : undefined;
}

/** A vault, connected. */
export interface Vault {
  readonly client: KeyProtectClient;
  /** `https://us-south.kms.cloud.ibm.com (instance 0f1e…, key ring r)`, for messages. */
  readonly where: string;
  /** The base URL, as given. */
  readonly baseUrl: string;
  /** The instance id (a CRN reduced to its id). */
  readonly instanceId: string;
  /** The IAM token endpoint. */
  readonly iamUrl: string;
  /** The key ring the client is bound to, if any. */
  readonly keyRing: string | undefined;
  /** The IAM API key, when the credentials are one (not a bare token). */
  readonly apiKey: string | undefined;
}

/** Settings used where a flag is not given (the entries of the `image-signing` Secret). */
export interface VaultDefaults {
  readonly kmsUrl?: string | undefined;
  readonly instanceId?: string | undefined;
  readonly apiKey?: string | undefined;
  readonly iamUrl?: string | undefined;
  readonly keyRing?: string | undefined;
}

/** The vault's credentials as given: a bearer token, an IAM API key, each from one source. */
export interface VaultCredentials {
  readonly token: string | undefined;
  readonly apiKey: string | undefined;
}

/**
 * The bearer token (`--token-file`, `KMS_TOKEN`, `--token -` or `--token`) and the IAM API key
 * (`--api-key-file`, `IBMCLOUD_API_KEY`, `--api-key -` or `--api-key`), each from one source
 * (`cli/secret_flag.ts`: two are a usage error, a value on the command line warns once). Read once
 * per run: a command that needs them twice passes them on.
 */
export async function vaultCredentials(
  options: VaultOptions,
  ctx: Pick<CommandContext, "io" | "terminal">,
): Promise<VaultCredentials> {
  if (options.token?.trim() === "-" && options.apiKey?.trim() === "-") {
    throw new UsageError("Only one of --token and --api-key can be read from stdin (-)");
  }
  const token = await resolveSecret({
    what: "bearer token",
    flag: "--token",
    value: blankless(options.token),
    fileFlag: "--token-file",
    file: blankless(options.tokenFile),
    env: ["KMS_TOKEN"],
  }, ctx);
  const apiKey = await resolveSecret({
    what: "IAM API key",
    flag: "--api-key",
    value: blankless(options.apiKey),
    fileFlag: "--api-key-file",
    file: blankless(options.apiKeyFile),
    env: ["IBMCLOUD_API_KEY"],
  }, ctx);
  return { token: token?.value.trim(), apiKey: apiKey?.value.trim() };
}

/** Checks the connection flags and makes the client; every mistake is a UsageError. */
export async function connectVault(
  options: VaultOptions,
  ctx: CommandContext,
  defaults: VaultDefaults = {},
  given?: VaultCredentials,
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

  const credentials = given ?? await vaultCredentials(options, ctx);
  const tokenFlag = credentials.token;
  const apiKey = credentials.apiKey ?? blankless(defaults.apiKey);
  if (tokenFlag === undefined && apiKey === undefined) {
    throw new UsageError(
      "Missing credentials: pass --token-file (or set KMS_TOKEN) with an IAM access token, " +
        "or --api-key-file (or set IBMCLOUD_API_KEY) to get one from IAM",
    );
  }
  const iamUrl = checkUrl(
    "--iam-url",
    blankless(options.iamUrl) ?? blankless(defaults.iamUrl) ?? DEFAULT_IAM_URL,
  );
  const keyRing = blankless(options.keyRing) ?? blankless(defaults.keyRing);
  // Every attempt with -v; a retry always, so a slow vault is not silent.
  const transport = {
    fetch: ctx.fetch,
    now: ctx.clock.now,
    sleep: ctx.clock.sleep,
    timeoutMs: clientTimeoutMs(options),
    trace: (event: VaultTraceEvent) => {
      if (options.verbose || event.retryInMs !== undefined) {
        ctx.io.stderr.write(`${describeTraceEvent(event)}\n`);
      }
    },
  };
  let token: () => Promise<string>;
  if (tokenFlag !== undefined) {
    const value = tokenFlag.replace(/^Bearer\s+/i, "");
    token = () => Promise.resolve(value);
  } else {
    token = iamTokenSource({ apiKey: apiKey!, iamUrl, ...transport });
  }
  return {
    client: await ctx.vault({
      baseUrl,
      instanceId,
      token,
      ...(keyRing !== undefined ? { keyRing } : {}),
      ...transport,
    }),
    where: `${new URL(baseUrl).origin} (instance ${instanceId}` +
      `${keyRing !== undefined ? `, key ring ${keyRing}` : ""})`,
    baseUrl,
    instanceId,
    iamUrl,
    keyRing,
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

/** A key of the vault and its material, read into memory. */
export interface KeyInMemory {
  /** The key's record (no material). */
  readonly key: KeyRecord;
  /** Whether the reference was its id, an alias or its name. */
  readonly via: ResolvedVia;
  /** The private key's bytes: overwrite them when done. */
  readonly material: Uint8Array;
}

/**
 * Finds one active standard key by id, alias or name (notes about the choice on stderr) and reads
 * its material into memory: lib/vault's `resolveKey` and `fetchKeyMaterial`.
 */
export async function readKey(
  vault: Vault,
  ref: string,
  io: { readonly stderr: { write(text: string): unknown } },
): Promise<KeyInMemory> {
  const resolved = await resolveKey(vault.client, ref);
  for (const note of resolved.notes) io.stderr.write(`note: ${note}\n`);
  const material = await fetchKeyMaterial(vault.client, resolved.key);
  return { key: resolved.key, via: resolved.via, material };
}
