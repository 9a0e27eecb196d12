import assert from "node:assert/strict";
import { parseParams, pipelineKind, resolveGitCredentials } from "./pipeline_input.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";
import { UsageError } from "../../lib/errors.ts";

const ctx = commandContext(bufferedIO({}));

Deno.test("parseParams() splits at the first = and refuses entries that are not name=value", () => {
  assert.deepEqual(
    [...parseParams(["scan-image=true", "a=b=c", "empty=", "scan-image=false"])],
    [["scan-image", "false"], ["a", "b=c"], ["empty", ""]],
  );
  for (const bad of ["novalue", "=x"]) {
    assert.throws(() => parseParams([bad]), (e: unknown) => e instanceof UsageError, bad);
  }
});

Deno.test("pipelineKind() takes the flag, refuses both, and asks only on a terminal", async () => {
  assert.equal(await pipelineKind({ tekton: true, jenkins: false }, ctx), "tekton");
  assert.equal(await pipelineKind({ tekton: false, jenkins: true }, ctx), "jenkins");
  await assert.rejects(pipelineKind({ tekton: true, jenkins: true }, ctx), UsageError);
  await assert.rejects(
    pipelineKind({ tekton: false, jenkins: false }, ctx),
    /pass --tekton or --jenkins \(there is no terminal/,
  );
});

Deno.test("resolveGitCredentials(): the command line wins, then the URL, then the stored Secret", async () => {
  const stored = { username: "stored-user", password: "stored-token" };
  const none = {};
  assert.deepEqual(
    await resolveGitCredentials(
      { flags: { username: "alice", password: "tok" }, url: none, stored, replace: false },
      ctx,
    ),
    { username: "alice", password: "tok", source: "command line" },
  );
  // igc ignored -u/-P and prompted (or used the stored ones): not here.
  assert.deepEqual(
    await resolveGitCredentials(
      { flags: { password: "tok" }, url: { username: "bob" }, stored, replace: false },
      ctx,
    ),
    { username: "bob", password: "tok", source: "command line" },
  );
  assert.deepEqual(
    await resolveGitCredentials({ flags: none, url: none, stored, replace: false }, ctx),
    { username: "stored-user", password: "stored-token", source: "stored Secret" },
  );
});

Deno.test("resolveGitCredentials() without a terminal names the flag of what is missing", async () => {
  await assert.rejects(
    resolveGitCredentials({ flags: {}, url: {}, stored: {}, replace: false }, ctx),
    (e: unknown) => e instanceof UsageError && /pass -u\/--username/.test(e.message),
  );
  await assert.rejects(
    resolveGitCredentials(
      { flags: { username: "a" }, url: {}, stored: { password: "old" }, replace: true },
      ctx,
    ),
    (e: unknown) =>
      e instanceof UsageError &&
      /pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN or give -P - \(stdin\)/.test(e.message),
  );
});
