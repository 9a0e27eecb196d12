/**
 * Reading byte streams with a size bound, read incrementally so that a body larger than its
 * declared length (or without one) never fills memory.
 *
 * @module
 */
import type { ReadBudget } from "./read_budget.ts";

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
 * With a `budget`, every chunk is charged to it before it is kept; a charge past the budget
 * cancels the stream and throws the budget's error.
 */
export async function readStreamLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  options: { truncate?: boolean; budget?: ReadBudget | undefined } = {},
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
        options.budget?.charge(limit - total);
        chunks.push(value.subarray(0, limit - total));
        total = limit;
        break;
      }
      try {
        options.budget?.charge(value.byteLength);
      } catch (error) {
        chunks.length = 0;
        await reader.cancel().catch(() => {});
        throw error;
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
