import assert from "node:assert/strict";
import { bufferedIO, paint } from "./io.ts";

Deno.test("paint() colours only where the IO may be coloured", () => {
  assert.equal(paint({ color: true }, "31", "error:"), "\x1b[31merror:\x1b[0m");
  assert.equal(paint({ color: false }, "31", "error:"), "error:");
  assert.equal(paint(bufferedIO(), "2", "step"), "step");
});
