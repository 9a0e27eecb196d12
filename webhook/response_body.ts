/**
 * Response bodies that leave in one TCP write from `Deno.serve`, for `createHandler` (the routes
 * for `Request` objects). The webhook itself no longer serves with `Deno.serve` but with
 * `server.ts`, whose HTTP/1.1 answers always leave in one write on a `TCP_NODELAY` socket (issue
 * #28); this is kept for a server built on `createHandler`, and the benchmark's "before" row.
 *
 * `Deno.serve` does not set `TCP_NODELAY` on TLS connections (it does on plain TCP ones), so
 * Nagle's algorithm holds back any segment written while an earlier one is unacknowledged. Its
 * HTTP/2 layer (hyper's `h2`, over a TLS stream without vectored writes) copies a DATA frame of
 * less than 1024 bytes into its write buffer with the HEADERS frame, but writes a larger one by
 * itself, after them: the body then waits for the API server's delayed ACK, 40 ms on Linux. Every
 * answer of 1 KiB or more (a Deployment whose ten images are pinned, say) took 40 ms longer than
 * it should (docs/benchmarks.md, "What every Pod create pays").
 *
 * A body of that size is therefore sent as a stream of chunks under the threshold, all queued at
 * once: `h2` copies each into its buffer and the whole answer leaves in one write. Smaller bodies
 * keep the static fast path.
 *
 * @module
 */

/** The largest DATA frame payload `h2` copies into its write buffer (`CHAIN_THRESHOLD` − 1). */
export const BUFFERED_CHUNK_BYTES = 1023;

const encoder = new TextEncoder();

/**
 * A response with `text` as its body: the string itself when it is small, else a stream of
 * {@linkcode BUFFERED_CHUNK_BYTES}-byte chunks queued at once (with its `content-length`).
 */
export function oneWriteResponse(
  text: string,
  options: { readonly status?: number; readonly contentType: string },
): Response {
  const status = options.status ?? 200;
  // UTF-8 takes at most three bytes per UTF-16 unit: a short string is small whatever it holds.
  if (text.length * 3 <= BUFFERED_CHUNK_BYTES) {
    return new Response(text, { status, headers: { "content-type": options.contentType } });
  }
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= BUFFERED_CHUNK_BYTES) {
    return new Response(bytes, { status, headers: { "content-type": options.contentType } });
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < bytes.byteLength; offset += BUFFERED_CHUNK_BYTES) {
        controller.enqueue(bytes.subarray(offset, offset + BUFFERED_CHUNK_BYTES));
      }
      controller.close();
    },
  });
  return new Response(body, {
    status,
    headers: {
      "content-type": options.contentType,
      "content-length": String(bytes.byteLength),
    },
  });
}
