/**
 * The kubectl plugin: real kubectl finds `kubectl-toolkit` on the PATH, and help and
 * messages say `kubectl toolkit`. (The compiled plugin cannot be built here, so the PATH
 * holds a wrapper that runs the same entry point with `deno run`.)
 */
import assert from "node:assert/strict";
import { e2eSkipReason, findTool, run } from "./env/mod.ts";

const entry = new URL("../cli/kubectl_toolkit.ts", import.meta.url).pathname;

Deno.test({
  name: "kubectl toolkit --help runs the plugin and names it kubectl toolkit",
  ignore: e2eSkipReason(["kubectl"]) !== undefined,
  fn: async () => {
    const bin = await Deno.makeTempDir({ prefix: "toolkit-plugin-" });
    try {
      await Deno.writeTextFile(
        `${bin}/kubectl-toolkit`,
        `#!/bin/sh\nexec "${Deno.execPath()}" run -A --quiet "${entry}" "$@"\n`,
        { mode: 0o755 },
      );
      const env = { PATH: `${bin}:${Deno.env.get("PATH")}`, NO_COLOR: "1" };
      const kubectl = findTool("kubectl")!;
      const plugins = await run(kubectl, ["plugin", "list"], { env });
      assert.match(plugins.stdout, /kubectl-toolkit/);
      const help = await run(kubectl, ["toolkit", "--help"], { env });
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /^kubectl toolkit <command>/);
      assert.match(help.stdout, /kubectl toolkit sync \[namespace\]/);
      const typo = await run(kubectl, ["toolkit", "synk"], { env });
      assert.equal(typo.code, 2);
      assert.match(typo.stderr, /Run 'kubectl toolkit --help' for usage/);
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
});
