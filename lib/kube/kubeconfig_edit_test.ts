import assert from "node:assert/strict";
import { parse } from "yaml";
import { assertNoCanary, canary, thrown } from "../../tests/fakes/secret_canary.ts";
import { namesIn, readOnlyDir, tempDir } from "../../tests/env/files.ts";
import { describeError } from "../errors.ts";
import {
  FileChangedError,
  FileWriteError,
  readFileForUpdate,
  writeFileSafely,
} from "../file_write.ts";
import {
  KubeconfigEditError,
  setContextNamespace,
  setContextNamespaceInText,
} from "./kubeconfig_edit.ts";

const BLOCK = `# my clusters — keep this comment
apiVersion: v1
kind: Config
clusters:
- name: c1   # the lab cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: "QUJD"
contexts:
# the default one
- name: a
  context:
    cluster: c1
    user: u1   # admin
- context:
    namespace: 'old'
    cluster: c1
  name: b
current-context: a
preferences: {}
users:
- name: u1
  user:
    token: abc
`;

function contextNamespace(text: string, name: string): unknown {
  const doc = parse(text) as { contexts: Array<{ name: string; context: { namespace?: string } }> };
  return doc.contexts.find((c) => c.name === name)?.context.namespace;
}

Deno.test("setContextNamespaceInText() adds a namespace line and changes nothing else", () => {
  const { text, changed } = setContextNamespaceInText(BLOCK, "a", "dev");
  assert.equal(changed, true);
  assert.equal(
    text,
    BLOCK.replace("    user: u1   # admin\n", "    user: u1   # admin\n    namespace: dev\n"),
  );
  assert.equal(contextNamespace(text, "a"), "dev");
});

Deno.test("setContextNamespaceInText() replaces only the value, keeping its quotes", () => {
  const { text } = setContextNamespaceInText(BLOCK, "b", "team-1");
  assert.equal(text, BLOCK.replace("namespace: 'old'", "namespace: 'team-1'"));
});

Deno.test("setContextNamespaceInText() reports no change when the namespace is already set", () => {
  const once = setContextNamespaceInText(BLOCK, "a", "dev").text;
  const again = setContextNamespaceInText(once, "a", "dev");
  assert.equal(again.changed, false);
  assert.equal(again.text, once);
});

Deno.test("setContextNamespaceInText() keeps a JSON kubeconfig valid JSON", () => {
  const json = JSON.stringify({
    apiVersion: "v1",
    contexts: [{ name: "a", context: { cluster: "c" } }],
    "current-context": "a",
  });
  const { text } = setContextNamespaceInText(json, "a", "dev");
  assert.equal(JSON.parse(text).contexts[0].context.namespace, "dev");
  const again = setContextNamespaceInText(text, "a", "prod").text;
  assert.equal(JSON.parse(again).contexts[0].context.namespace, "prod");
});

Deno.test("setContextNamespaceInText() quotes names YAML would read as something else", () => {
  const { text } = setContextNamespaceInText(BLOCK, "a", "123");
  assert.equal(contextNamespace(text, "a"), "123");
  assert.match(text, /namespace: "123"/);
});

Deno.test("setContextNamespaceInText() fails on a context the file does not hold", () => {
  assert.throws(
    () => setContextNamespaceInText(BLOCK, "zzz", "dev", "/k/config"),
    (e: unknown) =>
      e instanceof KubeconfigEditError &&
      e.message ===
        'Cannot set the namespace of context "zzz" in "/k/config": the file has no such context',
  );
});

Deno.test("setContextNamespace() rewrites the file in place and keeps its mode", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-kubeconfig-edit-" });
  try {
    const file = `${dir}/config`;
    await Deno.writeTextFile(file, BLOCK, { mode: 0o640 });
    await Deno.chmod(file, 0o640);
    assert.equal(await setContextNamespace(file, "a", "dev"), true);
    assert.equal(await setContextNamespace(file, "a", "dev"), false);
    assert.equal(contextNamespace(await Deno.readTextFile(file), "a"), "dev");
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o640);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["config"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("setContextNamespaceInText() does not quote a token on a line with a YAML error", () => {
  const secret = canary();
  const text = BLOCK.replace("token: abc", `token: ${secret}: x`);
  const error = thrown(() => setContextNamespaceInText(text, "dev", "x"));
  assert.ok(error instanceof KubeconfigEditError);
  assert.match(error.message, /not valid YAML/);
  assertNoCanary(error, secret);
});

Deno.test("setContextNamespace() writes through a symbolic link (dotfiles), which stays a link", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/dotfiles`);
  await Deno.mkdir(`${dir.path}/.kube`);
  await Deno.writeTextFile(`${dir.path}/dotfiles/kubeconfig`, BLOCK);
  await Deno.chmod(`${dir.path}/dotfiles/kubeconfig`, 0o600);
  await Deno.symlink("../dotfiles/kubeconfig", `${dir.path}/.kube/config`);
  assert.equal(await setContextNamespace(`${dir.path}/.kube/config`, "a", "dev"), true);
  assert.ok((await Deno.lstat(`${dir.path}/.kube/config`)).isSymlink, "the link stays a link");
  const real = await Deno.readTextFile(`${dir.path}/dotfiles/kubeconfig`);
  assert.equal(contextNamespace(real, "a"), "dev", "the real file has the namespace");
  assert.equal((await Deno.stat(`${dir.path}/dotfiles/kubeconfig`)).mode! & 0o777, 0o600);
  assert.deepEqual(await namesIn(`${dir.path}/dotfiles`), ["kubeconfig"]);
});

Deno.test("setContextNamespace() in a read-only directory fails clearly and loses nothing", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/config`, BLOCK);
  await using _ = await readOnlyDir(dir.path);
  const error = await setContextNamespace(`${dir.path}/config`, "a", "dev").catch((e) => e);
  assert.ok(error instanceof KubeconfigEditError);
  assert.match(
    describeError(error),
    /the file cannot be written: Cannot write ".*config": its directory/,
  );
  assert.ok(error.cause instanceof FileWriteError);
  assert.equal(await Deno.readTextFile(`${dir.path}/config`), BLOCK);
  assert.deepEqual(await namesIn(dir.path), ["config"]);
});

Deno.test("a kubeconfig edit is not written over a file changed between its read and its write", async () => {
  // setContextNamespace()'s steps, with another program's write between them.
  await using dir = await tempDir();
  const file = `${dir.path}/config`;
  await Deno.writeTextFile(file, BLOCK);
  const read = await readFileForUpdate(file);
  const edit = setContextNamespaceInText(new TextDecoder().decode(read.bytes), "a", "dev");
  const theirs = BLOCK.replace("current-context: a", "current-context: b");
  await Deno.writeTextFile(file, theirs); // kubectl config use-context b
  await assert.rejects(
    writeFileSafely(file, edit.text, { mode: 0o600, expected: read.snapshot }),
    FileChangedError,
  );
  assert.equal(await Deno.readTextFile(file), theirs, "the other program's change is kept");
  assert.equal(await setContextNamespace(file, "a", "dev"), true, "a second run applies it");
  assert.match(await Deno.readTextFile(file), /current-context: b/);
});
