/**
 * The command list as the developer guide describes it (docs/architecture.md, "A new command"):
 * every command has an in-process test file named after it beside its code, so its tests are
 * found by its name. A command of a group lives in the group's folder (`image-security
 * key-secret`: `cli/image_security/key_secret_test.ts`; `image-security vault store`:
 * `cli/image_security/vault_store_test.ts`), a top-level command in a folder of `cli/` or in
 * `cli/` itself (`gitops`: `cli/dev/gitops_test.ts`); the name may be one of its aliases
 * (`yq r`: `cli/yq/read_test.ts`).
 */
import assert from "node:assert/strict";
import { COMMANDS } from "./commands.ts";
import { commandName, type CommandSpec } from "./command.ts";

/** The leaf commands: their words, and the spec. */
function leafCommands(
  specs: readonly CommandSpec[] = COMMANDS,
  path: readonly string[] = [],
): [string[], CommandSpec][] {
  return specs.flatMap((spec) => {
    const here = [...path, commandName(spec)];
    return spec.subcommands ? leafCommands(spec.subcommands, here) : [[here, spec]];
  });
}

const snake = (word: string) => word.replaceAll("-", "_");

/** The paths (relative to `cli/`) a command's test file may have. */
function testFileCandidates(
  words: readonly string[],
  spec: CommandSpec,
  folders: readonly string[],
): string[] {
  const names = [commandName(spec), ...(spec.aliases ?? [])];
  if (words.length === 1) {
    return names.flatMap((n) =>
      ["", ...folders.map((f) => `${f}/`)].map((d) => `${d}${snake(n)}_test.ts`)
    );
  }
  const [group, ...rest] = words;
  const below = rest.slice(0, -1).map(snake);
  return names.map((n) => `${snake(group!)}/${[...below, snake(n)].join("_")}_test.ts`);
}

Deno.test("testFileCandidates() looks in the group's folder, under the name or an alias", () => {
  const spec = { usage: "r <file>", aliases: ["read"], describe: "" };
  assert.deepEqual(testFileCandidates(["yq", "r"], spec, ["dev"]), [
    "yq/r_test.ts",
    "yq/read_test.ts",
  ]);
  assert.deepEqual(
    testFileCandidates(["image-security", "vault", "store"], { usage: "store", describe: "" }, []),
    ["image_security/vault_store_test.ts"],
  );
  assert.deepEqual(
    testFileCandidates(["git-secret"], { usage: "git-secret", describe: "" }, ["dev"]),
    [
      "git_secret_test.ts",
      "dev/git_secret_test.ts",
    ],
  );
});

Deno.test("every command has an in-process test file named after it, beside its code", async () => {
  const cli = new URL("./", import.meta.url);
  const folders: string[] = [];
  for await (const entry of Deno.readDir(cli)) if (entry.isDirectory) folders.push(entry.name);
  const exists = (path: string) => Deno.stat(new URL(path, cli)).then((s) => s.isFile, () => false);
  const missing: string[] = [];
  for (const [words, spec] of leafCommands()) {
    const candidates = testFileCandidates(words, spec, folders.sort());
    const found = await Promise.all(candidates.map(exists));
    if (!found.includes(true)) {
      const where = words.length === 1 ? "<its folder>/" : "";
      missing.push(`${words.join(" ")}: cli/${where}${candidates[0]}`);
    }
  }
  assert.deepEqual(missing, [], "commands without their test file");
});
