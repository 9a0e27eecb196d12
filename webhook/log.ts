/**
 * The webhook's log: one JSON object a line. Lines are batched and written a few milliseconds
 * later (or when the batch is large), so logging every review costs one write per batch, not
 * one per review.
 *
 * @module
 */

/** A log record: `msg` and `level` plus any fields. */
export type LogRecord = Record<string, unknown> & { msg: string; level?: string };

/** Writes log records. */
export interface JsonLog {
  /** Queues a record (the time is added). */
  write(record: LogRecord): void;
  /** Writes what is queued. */
  flush(): void;
}

/** Creates a batched JSON-lines log over a synchronous writer. */
export function createJsonLog(
  writeSync: (bytes: Uint8Array) => void,
  options: { flushMs?: number; maxBatchBytes?: number; now?: () => Date } = {},
): JsonLog {
  const flushMs = options.flushMs ?? 20;
  const maxBatch = options.maxBatchBytes ?? 64 * 1024;
  const now = options.now ?? (() => new Date());
  const encoder = new TextEncoder();
  let batch: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function flush(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (batch.length === 0) return;
    const text = batch.join("");
    batch = [];
    size = 0;
    try {
      writeSync(encoder.encode(text));
    } catch {
      // The log cannot be written (closed pipe): nothing better to do than drop it.
    }
  }

  return {
    write(record) {
      const line = `${JSON.stringify({ time: now().toISOString(), level: "info", ...record })}\n`;
      batch.push(line);
      size += line.length;
      if (size >= maxBatch) flush();
      else timer ??= setTimeout(flush, flushMs);
    },
    flush,
  };
}

/** A writer for a Deno file (stdout, stderr) that writes everything. */
export function fileWriter(
  file: { writeSync(p: Uint8Array): number },
): (bytes: Uint8Array) => void {
  return (bytes) => {
    let rest = bytes;
    while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
  };
}
