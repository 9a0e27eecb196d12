import assert from "node:assert/strict";
import { describeError, NotImplementedError, ToolkitError, UsageError } from "./errors.ts";

Deno.test("describeError() joins the messages of a cause chain", () => {
  const inner = new Error("connection refused");
  const outer = new ToolkitError('Cannot read manifest "nginx"', { cause: inner });
  assert.equal(describeError(outer), 'Cannot read manifest "nginx": connection refused');
});

Deno.test("describeError() handles non-Error values", () => {
  assert.equal(describeError("plain"), "plain");
});

Deno.test("UsageError and NotImplementedError are ToolkitErrors with their own names", () => {
  assert.ok(new UsageError("x") instanceof ToolkitError);
  assert.equal(new UsageError("x").name, "UsageError");
  const e = new NotImplementedError("vlan");
  assert.equal(e.name, "NotImplementedError");
  assert.match(e.message, /"vlan" is not available/);
});
