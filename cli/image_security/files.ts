/**
 * File helpers of the image-security commands: reading key files with clear errors, and
 * writing secrets without ever leaving them readable by others or overwriting a file by
 * surprise.
 *
 * @module
 */
import { ToolkitError, UsageError } from "../../lib/errors.ts";

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
      throw new UsageError(`Cannot read ${flag} "${path}": no such file`, { cause: error });
    }
    throw new ToolkitError(`Cannot read ${flag} "${path}"`, { cause: error });
  }
}

/**
 * Writes a new file with `mode` (0600 for private keys). Refuses to replace an existing file
 * unless `force`; a forced write goes through a temporary file and a rename, so a reader
 * never sees half a key and the mode is right from the first byte.
 */
export async function writeNewFile(
  path: string,
  data: string | Uint8Array,
  options: { mode: number; force?: boolean },
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  if (!options.force) {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { write: true, createNew: true, mode: options.mode });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new ToolkitError(
          `Cannot write "${path}": the file exists (use --force to replace it)`,
        );
      }
      throw new ToolkitError(`Cannot write "${path}"`, { cause: error });
    }
    try {
      await Deno.chmod(path, options.mode);
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
    } catch (error) {
      file.close();
      await Deno.remove(path).catch(() => {});
      throw new ToolkitError(`Cannot write "${path}"`, { cause: error });
    }
    file.close();
    return;
  }
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) || "/" : ".";
  const temp = await Deno.makeTempFile({ dir, prefix: ".toolkit-" });
  try {
    await Deno.chmod(temp, options.mode);
    await Deno.writeFile(temp, bytes);
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw new ToolkitError(`Cannot write "${path}"`, { cause: error });
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
