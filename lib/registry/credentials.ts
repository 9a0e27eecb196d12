/**
 * Registry credentials from where Kubernetes and the container tools keep them: pull secrets
 * (`kubernetes.io/dockerconfigjson` with `{"auths": {…}}`, `kubernetes.io/dockercfg` with the
 * map itself), a containers/docker `auth.json` (`--authfile`), and `--creds USER[:PASS]`.
 *
 * An entry holds `auth` (base64 of `user:pass`, padding optional; it wins when both forms are
 * present, as in Kubernetes) or `username` and `password`. Entries with neither (a Docker
 * `credsStore` placeholder, an `identitytoken` alone) are skipped.
 *
 * Errors name the source (`secret "default/regcred"`, `auth file "/run/auth.json"`) and the
 * registry key, never a password, an `auth` value or any other part of the contents. JSON parse
 * errors are not passed on as causes because their messages quote the input.
 *
 * @module
 */

import { decodeBase64 as decodeBytes } from "../base64.ts";
import { CredentialsError } from "./errors.ts";
import { JsonShapeError, parseJsonWithin } from "../json_shape.ts";

/** A username and password for a registry. */
export interface Credential {
  /** The username. */
  readonly username: string;
  /** The password or access token. */
  readonly password: string;
  /** Where it came from, for messages: `secret "ns/name"`, `auth file "/path"`, `--creds`. */
  readonly source: string;
}

/** A credential with the registry key it is stored under (`quay.io/team`, `https://index.docker.io/v1/`). */
export interface CredentialEntry {
  /** The key as written in the source. */
  readonly key: string;
  /** The credential. */
  readonly credential: Credential;
}

/** The parts of a Kubernetes Secret this module reads, as the API returns them. */
export interface SecretLike {
  /** The Secret's name and namespace (for messages). */
  readonly metadata?: { readonly name?: string; readonly namespace?: string } | undefined;
  /** `kubernetes.io/dockerconfigjson` or `kubernetes.io/dockercfg`. */
  readonly type?: string | undefined;
  /** Base64 values, as the API returns them. */
  readonly data?: Readonly<Record<string, string>> | undefined;
}

/** The Secret type holding `.dockerconfigjson`. */
export const SECRET_TYPE_DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson";
/** The legacy Secret type holding `.dockercfg`. */
export const SECRET_TYPE_DOCKERCFG = "kubernetes.io/dockercfg";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes standard or URL-safe base64, padding optional; undefined when it is not base64. */
function decodeBase64(value: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value.trim())) return undefined;
  try {
    return decodeBytes(value.trim());
  } catch {
    return undefined;
  }
}

/** Decodes base64 to UTF-8 text; undefined when it is not both. */
function decodeBase64Text(value: string): string | undefined {
  const bytes = decodeBase64(value);
  if (bytes === undefined) return undefined;
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The shape of a credentials file or pull Secret, bounded before it is parsed: 4,096 registries
 * of a few fields each, 16 levels deep.
 */
const CREDENTIALS_JSON_LIMITS = { maxValues: 65_536, maxDepth: 16 };

/** Parses JSON within its shape, failing with a message that does not quote the text. */
function parseJson(text: string, source: string, what: string): unknown {
  try {
    return parseJsonWithin(text, CREDENTIALS_JSON_LIMITS, what);
  } catch (error) {
    throw new CredentialsError(
      source,
      error instanceof JsonShapeError ? error.message : `${what} is not valid JSON`,
    );
  }
}

/** Reads the entries of an `auths`-style map (`{"<registry>": {"auth": …}}`). */
function readAuthMap(map: unknown, source: string, what: string): CredentialEntry[] {
  if (!isRecord(map)) throw new CredentialsError(source, `${what} is not a JSON object`);
  const entries: CredentialEntry[] = [];
  for (const [key, entry] of Object.entries(map)) {
    if (!isRecord(entry)) {
      throw new CredentialsError(source, `the entry for "${key}" is not a JSON object`);
    }
    const credential = readEntry(key, entry, source);
    if (credential !== undefined) entries.push({ key, credential });
  }
  return entries;
}

/** Reads one entry; undefined when it holds no username/password. */
function readEntry(
  key: string,
  entry: Record<string, unknown>,
  source: string,
): Credential | undefined {
  const auth = entry.auth;
  if (auth !== undefined && auth !== null && auth !== "") {
    if (typeof auth !== "string") {
      throw new CredentialsError(source, `the "auth" of the entry for "${key}" is not a string`);
    }
    const decoded = decodeBase64Text(auth);
    if (decoded === undefined) {
      throw new CredentialsError(source, `the "auth" of the entry for "${key}" is not base64`);
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) {
      throw new CredentialsError(
        source,
        `the "auth" of the entry for "${key}" does not decode to "username:password"`,
      );
    }
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1), source };
  }
  const { username, password } = entry;
  for (const [name, value] of [["username", username], ["password", password]] as const) {
    if (value !== undefined && value !== null && typeof value !== "string") {
      throw new CredentialsError(source, `the "${name}" of the entry for "${key}" is not a string`);
    }
  }
  const user = typeof username === "string" ? username : "";
  const pass = typeof password === "string" ? password : "";
  if (user === "" && pass === "") return undefined;
  return { username: user, password: pass, source };
}

/**
 * Parses a Docker/containers config in the `{"auths": {…}}` shape (`.dockerconfigjson`,
 * `auth.json`, `~/.docker/config.json`). `source` names it in errors.
 *
 * @throws {CredentialsError} when the text is not JSON, has no `auths` object, or an entry is
 * malformed.
 */
export function parseDockerConfigJson(text: string, source: string): CredentialEntry[] {
  const doc = parseJson(text, source, "the content");
  if (!isRecord(doc)) throw new CredentialsError(source, "the content is not a JSON object");
  if (doc.auths === undefined) {
    throw new CredentialsError(source, 'the content has no "auths" object');
  }
  return readAuthMap(doc.auths, source, '"auths"');
}

/**
 * Parses a legacy `.dockercfg`: the map of registries itself, without `auths`.
 *
 * @throws {CredentialsError} when the text is not a JSON object or an entry is malformed.
 */
export function parseDockerCfg(text: string, source: string): CredentialEntry[] {
  return readAuthMap(parseJson(text, source, "the content"), source, "the content");
}

/** Names a Secret for messages: `secret "namespace/name"`. */
export function secretSource(secret: SecretLike): string {
  const name = secret.metadata?.name ?? "(unnamed)";
  const namespace = secret.metadata?.namespace;
  return `secret "${namespace ? `${namespace}/` : ""}${name}"`;
}

/**
 * Reads the credentials of a pull secret as the Kubernetes API returns it (data values in
 * base64): `kubernetes.io/dockerconfigjson` or `kubernetes.io/dockercfg`.
 *
 * @throws {CredentialsError} naming the secret when it has another type, lacks its key, or holds
 * data that is not base64, not JSON or not in the expected shape.
 */
export function credentialsFromSecret(secret: SecretLike): CredentialEntry[] {
  const source = secretSource(secret);
  const type = secret.type;
  let key: string;
  let parse: (text: string, source: string) => CredentialEntry[];
  if (type === SECRET_TYPE_DOCKER_CONFIG_JSON) {
    key = ".dockerconfigjson";
    parse = parseDockerConfigJson;
  } else if (type === SECRET_TYPE_DOCKERCFG) {
    key = ".dockercfg";
    parse = parseDockerCfg;
  } else {
    throw new CredentialsError(
      source,
      `its type is "${
        type ?? ""
      }", expected "${SECRET_TYPE_DOCKER_CONFIG_JSON}" or "${SECRET_TYPE_DOCKERCFG}"`,
    );
  }
  const value = secret.data?.[key];
  if (typeof value !== "string" || value === "") {
    throw new CredentialsError(source, `it has no "${key}" data`);
  }
  const text = decodeBase64Text(value);
  if (text === undefined) {
    throw new CredentialsError(source, `its "${key}" data is not base64-encoded UTF-8`);
  }
  return parse(text, source);
}

/**
 * Parses a containers/docker `auth.json` (`--authfile`), the `{"auths": {…}}` shape.
 *
 * @throws {CredentialsError} naming the file when it is malformed.
 */
export function parseAuthFile(text: string, path: string): CredentialEntry[] {
  return parseDockerConfigJson(text, `auth file "${path}"`);
}

/**
 * Reads and parses an `auth.json` file. `readTextFile` is injectable for tests.
 *
 * @throws {CredentialsError} when the file cannot be read or is malformed.
 */
export async function readAuthFile(
  path: string,
  readTextFile: (path: string) => Promise<string> = Deno.readTextFile,
): Promise<CredentialEntry[]> {
  let text: string;
  try {
    text = await readTextFile(path);
  } catch (error) {
    const detail = error instanceof Deno.errors.NotFound
      ? "the file does not exist"
      : error instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : "the file cannot be read";
    throw new CredentialsError(`auth file "${path}"`, detail);
  }
  return parseAuthFile(text, path);
}

/**
 * Parses `--creds USER[:PASS]` (split at the first colon, like skopeo). Without a colon the
 * password is undefined and the caller may prompt for it.
 *
 * @throws {CredentialsError} when the username is empty.
 */
export function parseCreds(
  value: string,
  source = "--creds",
): { username: string; password: string | undefined; source: string } {
  const colon = value.indexOf(":");
  const username = colon >= 0 ? value.slice(0, colon) : value;
  if (username === "") throw new CredentialsError(source, "the username is empty");
  return { username, password: colon >= 0 ? value.slice(colon + 1) : undefined, source };
}
