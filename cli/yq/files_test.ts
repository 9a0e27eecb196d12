import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { UsageError } from "../../lib/errors.ts";
import { FileChangedError, FileWriteError } from "../../lib/file_write.ts";
import { namesIn, readOnlyDir, tempDir } from "../../tests/env/files.ts";
import { checkInPlace, parseSource, readSource, writeResult, YamlFileError } from "./files.ts";

Deno.test("readSource() reads a file against the working directory, or standard input", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/v.yaml`, "a: 1\n");
  const io = bufferedIO({ cwd: dir.path, stdin: "b: 2\n" });
  const { snapshot, ...source } = await readSource(io, "v.yaml");
  assert.deepEqual(source, { name: "v.yaml", path: `${dir.path}/v.yaml`, text: "a: 1\n" });
  assert.equal(snapshot?.target, await Deno.realPath(`${dir.path}/v.yaml`));
  assert.deepEqual(await readSource(io, "-"), {
    name: "standard input",
    path: undefined,
    text: "b: 2\n",
  });
  await assert.rejects(
    () => readSource(bufferedIO({ interactive: true }), "-"),
    (e: unknown) => e instanceof UsageError && /pipe YAML to standard input/.test(e.message),
  );
});

Deno.test("readSource() says why a file cannot be read", async () => {
  await using dir = await tempDir();
  await Deno.writeFile(`${dir.path}/bin.yaml`, new Uint8Array([0x61, 0x3a, 0x20, 0xff]));
  const io = bufferedIO({ cwd: dir.path });
  for (
    const [file, message] of [
      ["missing.yaml", 'Cannot read "missing.yaml": no such file'],
      [".", 'Cannot read ".": it is a directory'],
      ["bin.yaml", 'Cannot read "bin.yaml": it is not UTF-8 text'],
    ]
  ) {
    await assert.rejects(
      () => readSource(io, file!),
      (e: unknown) => e instanceof YamlFileError && e.message === message,
    );
  }
});

Deno.test("parseSource() names the file of YAML that does not parse", () => {
  assert.throws(
    () => parseSource({ name: "f.yaml", path: undefined, text: "a: 1\n---\nb: [\n" }),
    (e: unknown) =>
      e instanceof YamlFileError &&
      /^Cannot read "f\.yaml": invalid YAML in document 2 at line \d+/.test(e.message),
  );
});

Deno.test("writeResult() prints, or replaces the file atomically keeping its mode", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/v.yaml`;
  await Deno.writeTextFile(path, "a: 1\n");
  await Deno.chmod(path, 0o640);
  await Deno.symlink(path, `${dir.path}/link.yaml`);
  const io = bufferedIO({ cwd: dir.path });
  const source = await readSource(io, "link.yaml");

  assert.equal(await writeResult(io, source, "a: 2\n", false), false);
  assert.equal(io.out(), "a: 2\n");
  assert.equal(await Deno.readTextFile(path), "a: 1\n");

  const before = await Deno.stat(path);
  assert.equal(await writeResult(io, source, "a: 1\n", true), false, "unchanged: not written");
  assert.equal((await Deno.stat(path)).ino, before.ino);

  assert.equal(await writeResult(io, source, "a: 2\n", true), true);
  assert.equal(await Deno.readTextFile(path), "a: 2\n");
  const after = await Deno.stat(path);
  assert.notEqual(after.ino, before.ino, "a new file renamed over the old one");
  assert.equal(after.mode! & 0o777, 0o640);
  assert.ok((await Deno.lstat(`${dir.path}/link.yaml`)).isSymlink, "the link stays a link");
  const names = [];
  for await (const entry of Deno.readDir(dir.path)) names.push(entry.name);
  assert.deepEqual(names.sort(), ["link.yaml", "v.yaml"], "no temporary file left");
});

Deno.test("checkInPlace() refuses -i on standard input", () => {
  assert.throws(() => checkInPlace("-", true), UsageError);
  checkInPlace("-", false);
  checkInPlace("f.yaml", true);
});

Deno.test("writeResult() refuses a file changed since readSource() read it, and keeps the change", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/v.yaml`;
  await Deno.writeTextFile(path, "a: 1\n");
  const io = bufferedIO({ cwd: dir.path });
  const source = await readSource(io, "v.yaml");
  await Deno.writeTextFile(path, "a: 1\nb: 2\n"); // an editor saved it meanwhile
  await assert.rejects(
    writeResult(io, source, "a: 3\n", true),
    (e: unknown) =>
      e instanceof FileChangedError && /^Cannot write "v.yaml": it changed since/.test(e.message),
  );
  assert.equal(await Deno.readTextFile(path), "a: 1\nb: 2\n");
  assert.deepEqual(await namesIn(dir.path), ["v.yaml"]);
});

Deno.test("writeResult() in a read-only directory fails clearly and loses nothing", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/v.yaml`;
  await Deno.writeTextFile(path, "a: 1\n");
  const io = bufferedIO({ cwd: dir.path });
  const source = await readSource(io, "v.yaml");
  await using _ = await readOnlyDir(dir.path);
  await assert.rejects(
    writeResult(io, source, "a: 2\n", true),
    (e: unknown) =>
      e instanceof FileWriteError &&
      /^Cannot write "v.yaml": its directory ".*" cannot be written/.test(e.message),
  );
  assert.equal(await Deno.readTextFile(path), "a: 1\n");
  assert.deepEqual(await namesIn(dir.path), ["v.yaml"]);
});
