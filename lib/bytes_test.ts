import assert from "node:assert/strict";
import { readStreamLimited } from "./bytes.ts";

function stream(...chunks: number[][]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(new Uint8Array(c));
      controller.close();
    },
  });
}

Deno.test("readStreamLimited() reads a stream within the limit whole", async () => {
  const r = await readStreamLimited(stream([1, 2], [3]), 3);
  assert.deepEqual([...r.bytes], [1, 2, 3]);
  assert.equal(r.overLimit, false);
});

Deno.test("readStreamLimited() gives nothing beyond the limit, or the first bytes when truncating", async () => {
  const over = await readStreamLimited(stream([1, 2], [3, 4]), 3);
  assert.deepEqual(over, { bytes: new Uint8Array(), overLimit: true });
  const cut = await readStreamLimited(stream([1, 2], [3, 4]), 3, { truncate: true });
  assert.deepEqual([...cut.bytes], [1, 2, 3]);
  assert.equal(cut.overLimit, true);
});
