/**
 * `toolkit image-security verify` in-process: its command line. Verifying against a real registry
 * is `tests/image_security/sign_verify_test.ts` and `cosign_verify_test.ts`; the walk
 * (`cli/walk_test.ts`) gives it a silent registry.
 */
import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";

async function run(args: string[], programName = "toolkit") {
  const io = bufferedIO();
  const status = await runCli(args, commandContext(io, programName));
  return { status, out: io.out(), err: io.err() };
}

Deno.test("verify with a mistyped --key names the typo, not a missing --key", async () => {
  const r = await run(["image-security", "verify", "foo", "--kye", "k"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Unknown flag --kye of "image-security verify". Did you mean --key\?/);
  assert.doesNotMatch(r.err, /Missing/);
});
