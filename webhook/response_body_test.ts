import assert from "node:assert/strict";
import { BUFFERED_CHUNK_BYTES, oneWriteResponse } from "./response_body.ts";

async function chunksOf(response: Response): Promise<number[]> {
  const sizes: number[] = [];
  for await (const chunk of response.body!) sizes.push(chunk.byteLength);
  return sizes;
}

Deno.test("a small body keeps the static path, whole", async () => {
  const response = oneWriteResponse('{"a":1}', { contentType: "application/json" });
  assert.deepEqual(response.status, 200);
  assert.deepEqual(response.headers.get("content-type"), "application/json");
  assert.deepEqual(await response.text(), '{"a":1}');
});

Deno.test("a body of 1 KiB or more leaves in chunks h2 buffers, with its length", async () => {
  const text = JSON.stringify({ patch: "x".repeat(2500) });
  const bytes = new TextEncoder().encode(text).byteLength;
  const response = oneWriteResponse(text, { status: 201, contentType: "application/json" });
  assert.deepEqual(response.status, 201);
  assert.deepEqual(response.headers.get("content-length"), String(bytes));
  const sizes = await chunksOf(response);
  assert.deepEqual(sizes.reduce((a, b) => a + b, 0), bytes);
  assert.deepEqual(sizes.every((size) => size <= BUFFERED_CHUNK_BYTES), true);
  assert.deepEqual(
    await oneWriteResponse(text, { contentType: "application/json" }).text(),
    text,
  );
});

Deno.test("the size that matters is in UTF-8 bytes, not characters", async () => {
  // 400 characters of three bytes each: 1200 bytes.
  const text = "€".repeat(400);
  const response = oneWriteResponse(text, { contentType: "text/plain; charset=utf-8" });
  const sizes = await chunksOf(response);
  assert.deepEqual(sizes, [BUFFERED_CHUNK_BYTES, 1200 - BUFFERED_CHUNK_BYTES]);
  assert.deepEqual(await oneWriteResponse(text, { contentType: "text/plain" }).text(), text);
  // Exactly at the limit: one chunk.
  const edge = "a".repeat(BUFFERED_CHUNK_BYTES);
  assert.deepEqual(await chunksOf(oneWriteResponse(edge, { contentType: "text/plain" })), [
    BUFFERED_CHUNK_BYTES,
  ]);
});
