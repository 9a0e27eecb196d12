/** `deno task demo` brings the environment up, prints the tour and tears it down. */
import assert from "node:assert/strict";
import { e2eSkipReason } from "./env/mod.ts";

Deno.test({
  name: "the demo runs its tour against the real environment and cleans up",
  ignore: e2eSkipReason() !== undefined,
  fn: async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./demo/main.ts", import.meta.url).pathname, "--no-wait"],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(text, /kubeconfig {3}\//);
    assert.match(text, /image {8}127\.0\.0\.1:\d+\/demo\/app:1@sha256:[0-9a-f]{64}/);
    assert.match(text, /Stopping everything/);
  },
});
