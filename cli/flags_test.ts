/** The shared flags are declared once (`flags.ts`). */
import assert from "node:assert/strict";
import { COMMANDS } from "./commands.ts";
import { commandName, type CommandSpec } from "./command.ts";
import { NAMESPACE } from "./flags.ts";
import type { FlagSpec } from "./options.ts";

/** The `.ts` files of `cli/` that are not tests, relative to `cli/`. */
async function sources(dir = new URL("./", import.meta.url), prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      found.push(...await sources(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
      found.push(`${prefix}${entry.name}`);
    }
  }
  return found;
}

Deno.test("-n is declared in flags.ts alone; every command's -n is one of its five meanings", async () => {
  const declaring: string[] = [];
  for (const path of await sources()) {
    if (path === "flags.ts") continue;
    const text = await Deno.readTextFile(new URL(path, import.meta.url));
    if (/alias:\s*(?:"n"|\[\s*"n")/.test(text)) declaring.push(path);
  }
  assert.deepEqual(declaring, [], "modules declaring -n themselves: spread NAMESPACE.<meaning>");

  const meanings: readonly FlagSpec[] = Object.values(NAMESPACE);
  const visit = (specs: readonly CommandSpec[], path: string) => {
    for (const spec of specs) {
      const name = `${path}${commandName(spec)}`;
      if (spec.subcommands) visit(spec.subcommands, `${name} `);
      for (const [flag, f] of Object.entries(spec.flags ?? {})) {
        if (![f.alias ?? []].flat().includes("n")) continue;
        assert.ok(
          meanings.some((m) => m.type === f.type && (f.default ?? m.default) === m.default),
          `${name} --${flag}`,
        );
      }
    }
  };
  visit(COMMANDS, "");
});
