/**
 * Test machinery for the commands that write files (lib/file_write.ts and its callers): a
 * temporary directory removed at the end, a directory made read-only for the test (also for
 * root, whom permission bits do not stop: the directory is then made immutable with
 * `chattr +i`), and a directory's names.
 *
 * @module
 */

/** A temporary directory, removed (recursively) when disposed. */
export async function tempDir(
  prefix = "toolkit-files-",
): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

async function chattr(flag: "+i" | "-i", path: string): Promise<boolean> {
  const { success } = await new Deno.Command("chattr", {
    args: [flag, path],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ success: false }));
  return success;
}

/**
 * Makes `dir` read-only until disposed: no file can be created, renamed or removed in it.
 * Throws when this machine cannot make it so (root without `chattr`), rather than letting a
 * test pass for the wrong reason.
 */
export async function readOnlyDir(dir: string): Promise<AsyncDisposable> {
  const { mode } = await Deno.stat(dir);
  await Deno.chmod(dir, 0o555);
  const immutable = Deno.uid() === 0 && await chattr("+i", dir);
  const restore = async () => {
    if (immutable) await chattr("-i", dir);
    await Deno.chmod(dir, (mode ?? 0o755) & 0o7777);
  };
  const probe = `${dir}/.probe-${crypto.randomUUID()}`;
  const writable = await Deno.writeFile(probe, new Uint8Array()).then(() => true, () => false);
  if (writable) {
    await Deno.remove(probe).catch(() => {});
    await restore();
    throw new Error(`Cannot make "${dir}" read-only on this machine (root without chattr?)`);
  }
  return { [Symbol.asyncDispose]: restore };
}

/** The names in `dir`, sorted. */
export async function namesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}
