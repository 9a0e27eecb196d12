import assert from "node:assert/strict";
import { RegistryError } from "./errors.ts";
import { failCall, manifestReference, repositoryPath } from "./repository_path.ts";

Deno.test("repositoryPath() keeps a valid path and refuses anything else", () => {
  assert.equal(repositoryPath({ domain: "r", path: "team/app-1" }, "read"), "team/app-1");
  for (const path of ["", "Team/app", "team//app", "team/../app", "team/app?x"]) {
    assert.throws(() => repositoryPath({ domain: "r", path }, "read"), /invalid repository path$/);
  }
});

Deno.test("manifestReference() is the digest, the tag or latest; a bad one is refused", () => {
  const digest = `sha256:${"ab".repeat(32)}`;
  assert.equal(manifestReference({ domain: "r", path: "a", digest }, "read"), digest);
  assert.equal(manifestReference({ domain: "r", path: "a", tag: "v1.2_x" }, "read"), "v1.2_x");
  assert.equal(manifestReference({ domain: "r", path: "a" }, "read"), "latest");
  assert.throws(() => manifestReference({ domain: "r", path: "a", tag: "-x" }, "read"), /tag$/);
  assert.throws(
    () => manifestReference({ domain: "r", path: "a", digest: "sha256:x" }, "read"),
    /invalid digest$/,
  );
});

Deno.test("failCall() throws a RegistryError naming the action and subject", () => {
  assert.throws(
    () => failCall("read blob of", "r/a@d", { registry: "r", repository: "a" }, "why"),
    (e: unknown) =>
      e instanceof RegistryError && e.message === 'Cannot read blob of "r/a@d": why' &&
      e.registry === "r",
  );
});
