/**
 * File helpers of the image-security commands: reading key files with clear errors. Files are
 * written by lib/file_write.ts.
 *
 * @module
 */
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { InvalidKeyError } from "../../lib/signature/mod.ts";

/** Resolves `path` against the command's working directory. */
export function resolvePath(cwd: string, path: string): string {
  return path.startsWith("/") ? path : `${cwd}/${path}`;
}

/** Reads a file the user named with a flag; a missing file is a usage error. */
export async function readUserFile(cwd: string, path: string, flag: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(resolvePath(cwd, path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Cannot read ${flag} "${path}": no such file`, {
        cause: error,
        messageTellsCause: true,
      });
    }
    throw new ToolkitError(`Cannot read ${flag} "${path}"`, { cause: error });
  }
}

/** Reads `--passphrase-file` (without its final newline), or undefined when it is not given. */
export async function readPassphrase(
  cwd: string,
  options: { readonly passphraseFile: string | undefined },
): Promise<string | undefined> {
  const path = options.passphraseFile;
  if (typeof path !== "string") return undefined;
  const bytes = await readUserFile(cwd, path, "--passphrase-file");
  return new TextDecoder().decode(bytes).replace(/\r?\n$/, "");
}

/**
 * Reads a key the user named with a flag through `read`: a key of the wrong kind (a public key
 * where a private one is needed, not a key at all) is a usage error (exit 2: another file on the
 * command line fixes it), as everywhere in the CLI; a wrong passphrase or password stays a
 * failure (exit 1).
 */
export async function readKeyAs<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidKeyError && !error.wrongSecret) {
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  }
}
