/**
 * The one way toolkit writes a user's file (keys, kubeconfigs, OIDC tokens, `yq -i`, pipeline
 * files, `-o FILE` outputs, TLS files, signatures of a file lookaside store), so that no
 * command loses or unlinks a file:
 *
 * - the new content goes into a temporary file in the target's real directory, which is then
 *   renamed over the target (or hard-linked to it when the file must be new): a reader never
 *   sees half a file, and a failure leaves the old file as it was;
 * - a symbolic link is written **through**, as kubectl does: the chain of links (relative ones
 *   against the directory of the link, at most {@linkcode MAX_SYMBOLIC_LINKS} of them) is
 *   followed to the file it ends at, which is replaced; the links stay links;
 * - a replaced file keeps its mode (and its owner, where the process may give it), and a file
 *   asked for with `exactMode` (a private key: 0600) gets exactly that mode whatever the old
 *   file's mode or the umask; the temporary file has its final mode before its first byte is
 *   written;
 * - `ifExists: "refuse"` refuses an existing file (nothing is written), `"replace"` (the
 *   default) creates or replaces it;
 * - a read-modify-write caller reads with {@linkcode readFileForUpdate} and passes what it read
 *   as `expected`: the file is not replaced when it changed since (checked right before the
 *   rename), and the error says so — the other writer's content stays, and nothing is lost;
 * - several files written together ({@linkcode writeFilesSafely}) that are one file once links
 *   are followed are refused (a {@linkcode UsageError}) before anything is written;
 * - failures are {@linkcode FileWriteError}s naming the file (a missing or read-only
 *   directory, a directory where the file should be), with the system's error as cause.
 *
 * @module
 */
import { resolve } from "node:path";
import { ToolkitError, UsageError } from "./errors.ts";

/** The most symbolic links followed from a path to the file it names (Linux's own bound). */
export const MAX_SYMBOLIC_LINKS = 40;

/** A file that cannot be written. The message names it as the user gave it. */
export class FileWriteError extends ToolkitError {
  /** The file as the user named it. */
  readonly file: string;
  /** Why it cannot be written. */
  readonly detail: string;
  /** Creates the error: writing `file` failed for `detail`. */
  constructor(file: string, detail: string, options?: ErrorOptions) {
    super(`Cannot write "${file}": ${detail}`, options);
    this.name = "FileWriteError";
    this.file = file;
    this.detail = detail;
  }
}

/** A file that must be new exists already; nothing was written. */
export class FileExistsError extends FileWriteError {
  /** Creates the error; `hint` says how to replace it (`pass --force to replace it`). */
  constructor(file: string, hint?: string, options?: ErrorOptions) {
    super(file, `the file exists${hint ? ` (${hint})` : ""}`, options);
    this.name = "FileExistsError";
  }
}

/** A file changed between the read and the write; it was left as the other writer left it. */
export class FileChangedError extends FileWriteError {
  /** Creates the error; `detail` says what changed. */
  constructor(file: string, detail: string, options?: ErrorOptions) {
    super(
      file,
      `it changed since toolkit read it (${detail}); it was left as it is and nothing was ` +
        "written: run the command again",
      options,
    );
    this.name = "FileChangedError";
  }
}

/** What a read-modify-write caller read, to refuse replacing a file that changed since. */
export interface FileSnapshot {
  /** The file the path led to (links followed). */
  readonly target: string;
  /** The SHA-256 of the content read (hex). */
  readonly digest: string;
}

/** One file to write. */
export interface FileWrite {
  /** The file: absolute, or relative to the process's working directory. */
  readonly path: string;
  /** The content. */
  readonly data: string | Uint8Array;
  /** How messages name the file (as the user gave it). @default path */
  readonly name?: string;
  /**
   * The mode of a new file, less the umask; a replaced file keeps its own mode.
   * @default 0o644
   */
  readonly mode?: number;
  /** Give the file exactly `mode`, new or replaced, whatever the umask (private keys). */
  readonly exactMode?: boolean;
  /** What to do when the file exists. @default "replace" */
  readonly ifExists?: "replace" | "refuse";
  /** Added to the error of a refused existing file: `pass --force to replace it`. */
  readonly existsHint?: string;
  /** Replace the file only if it still holds what was read (see {@linkcode readFileForUpdate}). */
  readonly expected?: FileSnapshot;
}

/** Where a path leads once its symbolic links are followed. */
export interface WriteTarget {
  /** The file the path leads to (an absolute path in a directory without links). */
  readonly path: string;
  /** Its directory, where the temporary file goes. */
  readonly dir: string;
  /** The file's information, or undefined when it does not exist yet. */
  readonly info: Deno.FileInfo | undefined;
}

function split(path: string): { dir: string; base: string } {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") || "/" : path;
  const slash = trimmed.lastIndexOf("/");
  return { dir: trimmed.slice(0, slash) || "/", base: trimmed.slice(slash + 1) };
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The words for a system error about `name` in `dir`, or undefined for an unknown one. */
function describeSystemError(error: unknown, dir: string): string | undefined {
  if (error instanceof Deno.errors.NotFound) return `its directory "${dir}" does not exist`;
  if (error instanceof Deno.errors.NotADirectory) {
    return `a part of its directory "${dir}" is not a directory`;
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return `its directory "${dir}" cannot be written (permission denied)`;
  }
  if (error instanceof Deno.errors.IsADirectory) return "it is a directory";
  if (error instanceof Deno.errors.FilesystemLoop || errorCode(error) === "ELOOP") {
    return "too many levels of symbolic links";
  }
  if (errorCode(error) === "EROFS") return `its directory "${dir}" is on a read-only file system`;
  if (errorCode(error) === "ENOSPC") return `no space is left on the device of "${dir}"`;
  if (errorCode(error) === "EDQUOT") return `the disk quota of "${dir}" is exceeded`;
  return undefined;
}

function writeError(name: string, error: unknown, dir: string): FileWriteError {
  if (error instanceof FileWriteError) return error;
  return new FileWriteError(name, describeSystemError(error, dir) ?? "failed", { cause: error });
}

/**
 * Follows the symbolic links of `path` to the file it names, as the kernel would when opening
 * it: a relative link against the real directory of the link, at most
 * {@linkcode MAX_SYMBOLIC_LINKS} links. A link that leads nowhere (dangling) leads to the file
 * it names, which does not exist yet. Throws {@linkcode FileWriteError} when the directory is
 * missing, the links loop, or the path ends at a directory or at something other than a file.
 */
export async function resolveWriteTarget(path: string, name = path): Promise<WriteTarget> {
  let current = resolve(path);
  for (let links = 0;; links++) {
    const { dir, base } = split(current);
    let realDir: string;
    try {
      realDir = await Deno.realPath(dir);
    } catch (error) {
      throw writeError(name, error, dir);
    }
    if (base === "" || base === "." || base === "..") {
      throw new FileWriteError(name, "it is a directory");
    }
    const candidate = realDir === "/" ? `/${base}` : `${realDir}/${base}`;
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(candidate);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return { path: candidate, dir: realDir, info: undefined };
      }
      throw writeError(name, error, realDir);
    }
    if (info.isDirectory) throw new FileWriteError(name, "it is a directory");
    if (info.isFile) return { path: candidate, dir: realDir, info };
    if (!info.isSymlink) throw new FileWriteError(name, "it is not a regular file");
    if (links >= MAX_SYMBOLIC_LINKS) {
      throw new FileWriteError(
        name,
        `too many levels of symbolic links (more than ${MAX_SYMBOLIC_LINKS})`,
      );
    }
    const link = await Deno.readLink(candidate).catch((error) => {
      throw writeError(name, error, realDir);
    });
    current = link.startsWith("/") ? link : `${realDir}/${link}`;
  }
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Reads a file that will be edited and written back with {@linkcode writeFileSafely}: returns
 * its bytes and the snapshot to pass as `expected`. Errors of the read are the system's own
 * (`Deno.errors.NotFound`, ...), for the caller to word.
 */
export async function readFileForUpdate(
  path: string,
): Promise<{ bytes: Uint8Array; snapshot: FileSnapshot }> {
  const bytes = await Deno.readFile(path);
  // A path that cannot be written (a pipe: `<(...)`) can still be read; writing it back fails.
  const target = await resolveWriteTarget(path).then((t) => t.path, () => resolve(path));
  return { bytes, snapshot: { target, digest: await sha256(bytes) } };
}

/** Refuses `target` when it changed since `expected` was read. */
async function checkUnchanged(
  name: string,
  target: WriteTarget,
  expected: FileSnapshot,
): Promise<void> {
  if (target.path !== expected.target) {
    throw new FileChangedError(name, `it now leads to "${target.path}", not "${expected.target}"`);
  }
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(target.path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new FileChangedError(name, "it was removed", { cause: error });
    }
    throw writeError(name, error, target.dir);
  }
  if (await sha256(bytes) !== expected.digest) {
    throw new FileChangedError(name, "its content is not what was read");
  }
}

/** A file in `files` with its target, for naming both in an error. */
interface Resolved {
  readonly write: FileWrite;
  readonly name: string;
  readonly target: WriteTarget;
}

/** The file of the target's device and inode, for telling hard links apart. */
function identity(info: Deno.FileInfo | undefined): string | undefined {
  return typeof info?.ino === "number" && typeof info.dev === "number"
    ? `${info.dev}:${info.ino}`
    : undefined;
}

/**
 * Refuses (with a {@linkcode UsageError}) files that are one file once their links are followed
 * (or hard links of one file). `label` names each in the message (`--public-key "k.asc"`).
 * Nothing is written; run it before any work whose result would be lost.
 */
export async function assertDistinctFiles(
  files: readonly { readonly path: string; readonly label: string }[],
): Promise<void> {
  const targets = await Promise.all(files.map((f) => resolveWriteTarget(f.path, f.label)));
  refuseSame(files.map((f, i) => ({ label: f.label, target: targets[i]! })));
}

function refuseSame(files: readonly { label: string; target: WriteTarget }[]): void {
  for (let i = 0; i < files.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = files[j]!;
      const b = files[i]!;
      const sameInode = identity(a.target.info) !== undefined &&
        identity(a.target.info) === identity(b.target.info);
      if (a.target.path === b.target.path || sameInode) {
        throw new UsageError(
          `${a.label} and ${b.label} are the same file "${b.target.path}": ` +
            "give each its own file (nothing was written)",
        );
      }
    }
  }
}

/**
 * Gives `temp` the owner and group of the file it replaces, where this process may (root running
 * `sudo toolkit sync` must not leave a user's kubeconfig owned by root); else it stays ours.
 */
async function keepOwner(temp: string, info: Deno.FileInfo | undefined): Promise<void> {
  if (typeof info?.uid !== "number" || typeof info.gid !== "number") return;
  const own = await Deno.stat(temp);
  if (own.uid === info.uid && own.gid === info.gid) return;
  await Deno.chown(temp, info.uid, info.gid).catch(() => {});
}

/** Creates the temporary file beside `target` with its final mode, then writes `data` in it. */
async function writeTemporary(file: Resolved): Promise<string> {
  const { write, target } = file;
  const base = target.path.slice(target.dir.length + 1).slice(0, 100);
  const temp = `${target.dir === "/" ? "" : target.dir}/.${base}.toolkit-${crypto.randomUUID()}`;
  const keepMode = typeof target.info?.mode === "number" && !write.exactMode;
  const mode = keepMode ? target.info!.mode! & 0o7777 : (write.mode ?? 0o644) & 0o7777;
  const bytes = typeof write.data === "string" ? new TextEncoder().encode(write.data) : write.data;
  let handle: Deno.FsFile | undefined;
  try {
    // 0600 until the final mode is set: never readable by others before that.
    handle = await Deno.open(temp, {
      write: true,
      createNew: true,
      mode: keepMode || write.exactMode ? 0o600 : mode,
    });
    await keepOwner(temp, target.info); // first: a change of owner clears setuid bits
    if (keepMode || write.exactMode) await Deno.chmod(temp, mode);
    let written = 0;
    while (written < bytes.length) written += await handle.write(bytes.subarray(written));
    await handle.syncData();
    handle.close();
    handle = undefined;
    return temp;
  } catch (error) {
    handle?.close();
    await Deno.remove(temp).catch(() => {});
    if (error instanceof Deno.errors.NotFound) {
      // The directory was there a moment ago: it went away, or takes no new files (/proc).
      throw new FileWriteError(file.name, `no file can be created in "${target.dir}"`, {
        cause: error,
      });
    }
    throw writeError(file.name, error, target.dir);
  }
}

/** Puts `temp` at the target: a rename, or a hard link for a file that must be new. */
async function commit(file: Resolved, temp: string): Promise<void> {
  const { write, target, name } = file;
  if (write.expected) await checkUnchanged(name, target, write.expected);
  try {
    if (write.ifExists !== "refuse") {
      await Deno.rename(temp, target.path);
      return;
    }
    try {
      // A hard link never replaces a file, and makes the whole file appear at once.
      await Deno.link(temp, target.path);
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new FileExistsError(name, write.existsHint, { cause: error });
      }
      // A file system without hard links: check, then rename (a short race remains).
      if (await Deno.lstat(target.path).then(() => true, () => false)) {
        throw new FileExistsError(name, write.existsHint, { cause: error });
      }
      await Deno.rename(temp, target.path);
    }
  } catch (error) {
    throw writeError(name, error, target.dir);
  }
}

/**
 * Writes `files` together: every target is resolved and checked (same file twice, an existing
 * file that must be new, a file changed since it was read) and every temporary file written
 * before the first is renamed into place, in the order given. A failure before that writes
 * nothing; a failure of a rename leaves the files before it written and says which.
 */
export async function writeFilesSafely(files: readonly FileWrite[]): Promise<void> {
  const resolved: Resolved[] = [];
  for (const write of files) {
    const name = write.name ?? write.path;
    resolved.push({ write, name, target: await resolveWriteTarget(write.path, name) });
  }
  refuseSame(resolved.map((r) => ({ label: `"${r.name}"`, target: r.target })));
  for (const file of resolved) {
    if (file.write.ifExists === "refuse" && file.target.info) {
      throw new FileExistsError(file.name, file.write.existsHint);
    }
    if (file.write.expected) await checkUnchanged(file.name, file.target, file.write.expected);
  }
  const temps: string[] = [];
  let committed = 0;
  try {
    for (const file of resolved) temps.push(await writeTemporary(file));
    for (; committed < resolved.length; committed++) {
      await commit(resolved[committed]!, temps[committed]!);
    }
  } catch (error) {
    if (committed === 0 || !(error instanceof FileWriteError)) throw error;
    const done = resolved.slice(0, committed).map((r) => `"${r.name}"`).join(", ");
    throw new FileWriteError(error.file, `${error.detail} (${done} written before it)`, {
      cause: error.cause,
    });
  } finally {
    for (const temp of temps) await Deno.remove(temp).catch(() => {});
  }
}

/** Writes one file (see {@linkcode writeFilesSafely} and the module's description). */
export async function writeFileSafely(
  path: string,
  data: string | Uint8Array,
  options: Omit<FileWrite, "path" | "data"> = {},
): Promise<void> {
  await writeFilesSafely([{ ...options, path, data }]);
}
