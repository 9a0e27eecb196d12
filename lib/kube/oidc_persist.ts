/**
 * Saving refreshed OIDC tokens in the kubeconfig, as kubectl's `oidc` auth provider did: the
 * `id-token` and `refresh-token` of the user's `auth-provider.config` are replaced in the file
 * that defines the user (comments kept by the `yaml` Document API), atomically, through a
 * symbolic link and with the file's permissions. Without it an issuer that rotates refresh tokens would refuse the next
 * command's refresh.
 *
 * @module
 */
import { isMap, isSeq } from "yaml";
import { parseYamlDocument } from "../yaml.ts";
import { ToolkitError } from "../errors.ts";
import { readFileForUpdate, writeFileSafely } from "../file_write.ts";
import type { OidcTokens } from "./oidc.ts";

/** The tokens cannot be saved (the file or the user is gone, or the file cannot be written). */
export class OidcTokenSaveError extends ToolkitError {
  /** Creates the error; `detail` never quotes the file. */
  constructor(file: string, user: string, detail: string, options?: ErrorOptions) {
    super(
      `Cannot save the refreshed OIDC tokens of user "${user}" in "${file}": ${detail}`,
      options,
    );
    this.name = "OidcTokenSaveError";
  }
}

/**
 * Returns `text` with the `id-token` and `refresh-token` of user `user`'s oidc
 * `auth-provider.config` set to `tokens`. Throws {@linkcode OidcTokenSaveError} when the user
 * has no such section.
 */
export function setOidcTokensInText(
  text: string,
  user: string,
  tokens: OidcTokens,
  file = "kubeconfig",
): string {
  let doc;
  try {
    doc = parseYamlDocument(text);
  } catch (error) {
    throw new OidcTokenSaveError(file, user, "it is not valid YAML", { cause: error });
  }
  const users = doc.get("users", true);
  const entry = isSeq(users)
    ? users.items.find((item) => isMap(item) && item.get("name") === user)
    : undefined;
  const provider = isMap(entry) ? entry.getIn(["user", "auth-provider"], true) : undefined;
  const config = isMap(provider) ? provider.get("config", true) : undefined;
  if (!isMap(provider) || provider.get("name") !== "oidc" || !isMap(config)) {
    throw new OidcTokenSaveError(file, user, "the user has no oidc auth-provider config");
  }
  config.set("id-token", tokens.idToken);
  config.set("refresh-token", tokens.refreshToken);
  return doc.toString({ lineWidth: 0 });
}

/**
 * Saves `tokens` for `user` in `file`, in place: through lib/file_write.ts (beside the file and
 * renamed, through a symbolic link, its mode kept, refused when the file changed since it was
 * read).
 */
export async function saveOidcTokens(
  file: string,
  user: string,
  tokens: OidcTokens,
): Promise<void> {
  let read: Awaited<ReturnType<typeof readFileForUpdate>>;
  try {
    read = await readFileForUpdate(file);
  } catch (error) {
    throw new OidcTokenSaveError(file, user, "the file cannot be read", { cause: error });
  }
  const edited = setOidcTokensInText(new TextDecoder().decode(read.bytes), user, tokens, file);
  try {
    await writeFileSafely(file, edited, { mode: 0o600, expected: read.snapshot });
  } catch (error) {
    throw new OidcTokenSaveError(file, user, "the file cannot be written", { cause: error });
  }
}
