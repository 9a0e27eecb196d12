import assert from "node:assert/strict";
import { namesIn, readOnlyDir, tempDir } from "../tests/env/files.ts";
import { UsageError } from "./errors.ts";
import {
  assertDistinctFiles,
  FileChangedError,
  FileExistsError,
  FileWriteError,
  MAX_SYMBOLIC_LINKS,
  readFileForUpdate,
  resolveWriteTarget,
  writeFileSafely,
  writeFilesSafely,
} from "./file_write.ts";

async function modeOf(path: string): Promise<number> {
  return (await Deno.stat(path)).mode! & 0o7777;
}

Deno.test("writeFileSafely() creates a file with its mode less the umask, leaving nothing else", async () => {
  await using dir = await tempDir();
  await writeFileSafely(`${dir.path}/a.txt`, "hello\n");
  assert.equal(await Deno.readTextFile(`${dir.path}/a.txt`), "hello\n");
  assert.equal((await modeOf(`${dir.path}/a.txt`)) & ~0o644, 0);
  await writeFileSafely(`${dir.path}/b.bin`, new Uint8Array([1, 2, 3]), { mode: 0o600 });
  assert.deepEqual(await Deno.readFile(`${dir.path}/b.bin`), new Uint8Array([1, 2, 3]));
  assert.equal(await modeOf(`${dir.path}/b.bin`), 0o600);
  assert.deepEqual(await namesIn(dir.path), ["a.txt", "b.bin"]);
});

Deno.test("writeFileSafely() replaces a file by a rename, keeping its mode", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/config`;
  await Deno.writeTextFile(path, "old");
  await Deno.chmod(path, 0o640);
  const before = await Deno.stat(path);
  await writeFileSafely(path, "new", { mode: 0o644 });
  const after = await Deno.stat(path);
  assert.equal(await Deno.readTextFile(path), "new");
  assert.notEqual(after.ino, before.ino, "a new file renamed over the old one");
  assert.equal(after.mode! & 0o7777, 0o640);
  assert.deepEqual(await namesIn(dir.path), ["config"]);
});

Deno.test("writeFileSafely() gives an exactMode file (a private key) 0600 whatever the old mode", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/key.asc`;
  await Deno.writeTextFile(path, "old key");
  await Deno.chmod(path, 0o666);
  await writeFileSafely(path, "new key", { mode: 0o600, exactMode: true });
  assert.equal(await modeOf(path), 0o600);
  await writeFileSafely(`${dir.path}/new.key`, "k", { mode: 0o600, exactMode: true });
  assert.equal(await modeOf(`${dir.path}/new.key`), 0o600);
});

Deno.test("writeFileSafely() writes through a chain of links, relative ones included; the links stay", async () => {
  await using dir = await tempDir();
  // dotfiles/kube/config is the file; home/.kube is a link to a directory, and
  // home/.kube/config -> ../../dotfiles/kube/config is relative to the real directory of the link.
  await Deno.mkdir(`${dir.path}/dotfiles/kube`, { recursive: true });
  await Deno.mkdir(`${dir.path}/real-kube`);
  await Deno.mkdir(`${dir.path}/home`);
  await Deno.symlink("../real-kube", `${dir.path}/home/.kube`);
  await Deno.symlink("../dotfiles/kube/config", `${dir.path}/real-kube/config`);
  await Deno.symlink(`${dir.path}/home/.kube/config`, `${dir.path}/home/config-link`);
  await Deno.writeTextFile(`${dir.path}/dotfiles/kube/config`, "old");
  await Deno.chmod(`${dir.path}/dotfiles/kube/config`, 0o600);

  const target = await resolveWriteTarget(`${dir.path}/home/config-link`);
  assert.equal(target.path, `${dir.path}/dotfiles/kube/config`);
  await writeFileSafely(`${dir.path}/home/config-link`, "new");
  assert.equal(await Deno.readTextFile(`${dir.path}/dotfiles/kube/config`), "new");
  assert.equal(await modeOf(`${dir.path}/dotfiles/kube/config`), 0o600);
  for (const link of ["home/config-link", "home/.kube", "real-kube/config"]) {
    assert.ok((await Deno.lstat(`${dir.path}/${link}`)).isSymlink, `${link} stays a link`);
  }
  assert.deepEqual(await namesIn(`${dir.path}/dotfiles/kube`), ["config"]);
  assert.deepEqual(await namesIn(`${dir.path}/real-kube`), ["config"]);
});

Deno.test("writeFileSafely() creates the file a dangling link names, and the link stays", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/repo`);
  await Deno.symlink("repo/config", `${dir.path}/config`);
  await writeFileSafely(`${dir.path}/config`, "made");
  assert.ok((await Deno.lstat(`${dir.path}/config`)).isSymlink);
  assert.equal(await Deno.readTextFile(`${dir.path}/repo/config`), "made");

  await Deno.symlink("missing-dir/config", `${dir.path}/broken`);
  const error = await writeFileSafely(`${dir.path}/broken`, "x").catch((e) => e);
  assert.ok(error instanceof FileWriteError);
  assert.match(error.message, /broken": its directory ".*missing-dir" does not exist/);
});

Deno.test("writeFileSafely() refuses a loop of links and a chain longer than the bound", async () => {
  await using dir = await tempDir();
  await Deno.symlink("b", `${dir.path}/a`);
  await Deno.symlink("a", `${dir.path}/b`);
  await assert.rejects(
    writeFileSafely(`${dir.path}/a`, "x"),
    (e) => e instanceof FileWriteError && /too many levels of symbolic links/.test(e.message),
  );
  await Deno.writeTextFile(`${dir.path}/end`, "end");
  let previous = "end";
  for (let i = 0; i <= MAX_SYMBOLIC_LINKS; i++) {
    await Deno.symlink(previous, `${dir.path}/l${i}`);
    previous = `l${i}`;
  }
  await assert.rejects(writeFileSafely(`${dir.path}/${previous}`, "x"), FileWriteError);
  await writeFileSafely(`${dir.path}/l${MAX_SYMBOLIC_LINKS - 1}`, "through the bound");
  assert.equal(await Deno.readTextFile(`${dir.path}/end`), "through the bound");
});

Deno.test("writeFileSafely() refuses a directory, a link to one, and a missing directory by name", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/sub`);
  await Deno.symlink("sub", `${dir.path}/sub-link`);
  for (const name of ["sub", "sub-link", "sub/"]) {
    const error = await writeFileSafely(`${dir.path}/${name}`, "x", { name }).catch((e) => e);
    assert.ok(error instanceof FileWriteError, name);
    assert.equal(error.message, `Cannot write "${name}": it is a directory`);
  }
  const missing = await writeFileSafely(`${dir.path}/nope/f`, "x", { name: "nope/f" })
    .catch((e) => e);
  assert.ok(missing instanceof FileWriteError);
  assert.match(
    missing.message,
    /^Cannot write "nope\/f": its directory ".*\/nope" does not exist$/,
  );
  assert.ok(missing.cause instanceof Deno.errors.NotFound);
  assert.deepEqual(await namesIn(dir.path), ["sub", "sub-link"]);
});

Deno.test("writeFileSafely() in a read-only directory fails clearly and loses nothing", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/keep`, "precious");
  {
    await using _ = await readOnlyDir(dir.path);
    for (const name of ["keep", "new"]) {
      const error = await writeFileSafely(`${dir.path}/${name}`, "x", { name }).catch((e) => e);
      assert.ok(error instanceof FileWriteError);
      assert.match(error.message, new RegExp(`^Cannot write "${name}": its directory ".*" cannot`));
      assert.ok(error.cause instanceof Deno.errors.PermissionDenied);
    }
  }
  assert.equal(await Deno.readTextFile(`${dir.path}/keep`), "precious");
  assert.deepEqual(await namesIn(dir.path), ["keep"]);
});

Deno.test("writeFileSafely() with ifExists refuse keeps an existing file, also one behind a link", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/k`, "precious");
  await Deno.symlink("k", `${dir.path}/link`);
  for (const name of ["k", "link"]) {
    const error = await writeFileSafely(`${dir.path}/${name}`, "new", {
      name,
      ifExists: "refuse",
      existsHint: "pass --force to replace it",
    }).catch((e) => e);
    assert.ok(error instanceof FileExistsError);
    assert.equal(
      error.message,
      `Cannot write "${name}": the file exists (pass --force to replace it)`,
    );
  }
  assert.equal(await Deno.readTextFile(`${dir.path}/k`), "precious");
  await writeFileSafely(`${dir.path}/fresh`, "new", { ifExists: "refuse" });
  assert.equal(await Deno.readTextFile(`${dir.path}/fresh`), "new");
  assert.deepEqual(await namesIn(dir.path), ["fresh", "k", "link"]);
});

Deno.test("writeFilesSafely() refuses one file named twice (a path, a link, a hard link) and writes nothing", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/k.asc`, "old private key");
  await Deno.symlink("k.asc", `${dir.path}/link`);
  await Deno.link(`${dir.path}/k.asc`, `${dir.path}/hard`);
  await Deno.symlink("new-target", `${dir.path}/dangling`);
  for (
    const [a, b] of [["k.asc", "k.asc"], ["k.asc", "link"], ["hard", "k.asc"], [
      "dangling",
      "new-target",
    ]]
  ) {
    const error = await writeFilesSafely([
      { path: `${dir.path}/${a}`, name: a, data: "public" },
      { path: `${dir.path}/${b}`, name: b, data: "private", mode: 0o600, exactMode: true },
    ]).catch((e) => e);
    assert.ok(error instanceof UsageError, `${a} ${b}`);
    assert.match(
      error.message,
      /are the same file ".*": give each its own file \(nothing was written\)/,
    );
    await assert.rejects(
      assertDistinctFiles([{ path: `${dir.path}/${a}`, label: "--a" }, {
        path: `${dir.path}/${b}`,
        label: "--b",
      }]),
      UsageError,
    );
  }
  assert.equal(await Deno.readTextFile(`${dir.path}/k.asc`), "old private key");
  assert.deepEqual(await namesIn(dir.path), ["dangling", "hard", "k.asc", "link"]);
});

Deno.test("writeFilesSafely() writes nothing when one of the files cannot be written", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/ro`);
  await using _ = await readOnlyDir(`${dir.path}/ro`);
  await assert.rejects(
    writeFilesSafely([
      { path: `${dir.path}/first`, data: "1" },
      { path: `${dir.path}/ro/second`, data: "2" },
    ]),
    FileWriteError,
  );
  assert.deepEqual(await namesIn(dir.path), ["ro"]);
});

Deno.test("writeFileSafely() with expected refuses a file that changed since it was read", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/config`;
  await Deno.writeTextFile(path, "v1");
  await Deno.symlink("config", `${dir.path}/link`);

  const read = await readFileForUpdate(`${dir.path}/link`);
  assert.equal(new TextDecoder().decode(read.bytes), "v1");
  assert.equal(read.snapshot.target, path);
  await Deno.writeTextFile(path, "v2 by another program");
  const changed = await writeFileSafely(`${dir.path}/link`, "v1 edited", {
    name: "link",
    expected: read.snapshot,
  }).catch((e) => e);
  assert.ok(changed instanceof FileChangedError);
  assert.match(changed.message, /^Cannot write "link": it changed since toolkit read it/);
  assert.match(changed.message, /nothing was written: run the command again$/);
  assert.equal(await Deno.readTextFile(path), "v2 by another program");

  const again = await readFileForUpdate(`${dir.path}/link`);
  await writeFileSafely(`${dir.path}/link`, "v2 edited", { expected: again.snapshot });
  assert.equal(await Deno.readTextFile(path), "v2 edited");

  const last = await readFileForUpdate(`${dir.path}/link`);
  await Deno.writeTextFile(`${dir.path}/other`, "v2 edited");
  await Deno.remove(`${dir.path}/link`);
  await Deno.symlink("other", `${dir.path}/link`);
  await assert.rejects(
    writeFileSafely(`${dir.path}/link`, "x", { expected: last.snapshot }),
    (e) => e instanceof FileChangedError && /now leads to/.test(e.message),
  );
  await Deno.remove(path);
  await assert.rejects(
    writeFileSafely(path, "x", { expected: last.snapshot }),
    (e) => e instanceof FileChangedError && /it was removed/.test(e.message),
  );
  assert.equal(await Deno.readTextFile(`${dir.path}/other`), "v2 edited");
  assert.deepEqual(await namesIn(dir.path), ["link", "other"]);
});

Deno.test("readFileForUpdate() reads what cannot be written back (a pipe), and the write is refused", async () => {
  await using dir = await tempDir();
  const fifo = `${dir.path}/fifo`;
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.ok(made.success);
  const writer = Deno.writeTextFile(fifo, "a: 1\n");
  const read = await readFileForUpdate(fifo);
  await writer;
  assert.equal(new TextDecoder().decode(read.bytes), "a: 1\n");
  await assert.rejects(
    writeFileSafely(fifo, "a: 2\n", { name: "fifo", expected: read.snapshot }),
    (e) =>
      e instanceof FileWriteError && e.message === 'Cannot write "fifo": it is not a regular file',
  );
});

Deno.test({
  name: "writeFileSafely() run by root keeps the owner of the file it replaces",
  ignore: Deno.uid() !== 0,
  fn: async () => {
    await using dir = await tempDir();
    const path = `${dir.path}/config`;
    await Deno.writeTextFile(path, "old");
    await Deno.chown(path, 4321, 4322);
    await writeFileSafely(path, "new");
    const info = await Deno.stat(path);
    assert.deepEqual([info.uid, info.gid], [4321, 4322]);
    await writeFileSafely(`${dir.path}/new`, "made");
    assert.equal((await Deno.stat(`${dir.path}/new`)).uid, 0, "a new file is the writer's");
  },
});
