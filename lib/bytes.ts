/**
 * Reading byte streams with a size bound, read incrementally so that a body larger than its
 * declared length (or without one) never fills memory.
 *
 * @module
 */

/** What {@linkcode readStreamLimited} read. */
export interface LimitedRead {
  /** The bytes read: all of them, or the first `limit` when truncated, or none when over. */
  readonly bytes: Uint8Array;
  /** True when the stream held more than `limit` bytes (the stream is then cancelled). */
  readonly overLimit: boolean;
}

/**
 * Reads `stream` up to `limit` bytes. Beyond the limit it cancels the stream and returns
 * `overLimit: true`, with the first `limit` bytes when `truncate` is set and none otherwise.
 */
export async function readStreamLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  options: { truncate?: boolean } = {},
): Promise<LimitedRead> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let overLimit = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (total + value.byteLength > limit) {
        overLimit = true;
        await reader.cancel().catch(() => {});
        if (!options.truncate) return { bytes: new Uint8Array(), overLimit };
        chunks.push(value.subarray(0, limit - total));
        total = limit;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, overLimit };
}
