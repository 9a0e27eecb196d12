/**
 * The webhook's log: one JSON object a line. Lines are batched and written a few milliseconds
 * later (or when the batch is large), so logging every review costs one write per batch, not
 * one per review.
 *
 * A line is bounded whatever the request held: each string field (and each string of an array
 * field) keeps at most {@linkcode LOG_STRING_LIMIT} characters and says how long it was, and an
 * array field keeps its first {@linkcode LOG_ARRAY_LIMIT} items and counts the rest.
 *
 * @module
 */
import { quoteInput } from "../lib/quote.ts";

/** The most characters of one string in a log line. */
export const LOG_STRING_LIMIT = 4096;
/** The most items of one array in a log line. */
export const LOG_ARRAY_LIMIT = 64;

function bounded(value: unknown): unknown {
  if (typeof value === "string") return quoteInput(value, LOG_STRING_LIMIT);
  if (!Array.isArray(value)) return value;
  const items = value.length > LOG_ARRAY_LIMIT ? value.slice(0, LOG_ARRAY_LIMIT) : value;
  const kept = items.map((item) =>
    typeof item === "string" ? quoteInput(item, LOG_STRING_LIMIT) : item
  );
  if (value.length > LOG_ARRAY_LIMIT) kept.push(`…(${value.length - LOG_ARRAY_LIMIT} more)`);
  return kept;
}

/** Whether a field of `record` is over a bound (most records have none and are not copied). */
function needsBounding(record: LogRecord): boolean {
  for (const key in record) {
    const value = record[key];
    if (typeof value === "string") {
      if (value.length > LOG_STRING_LIMIT) return true;
    } else if (Array.isArray(value)) {
      if (value.length > LOG_ARRAY_LIMIT) return true;
      for (const item of value) {
        if (typeof item === "string" && item.length > LOG_STRING_LIMIT) return true;
      }
    }
  }
  return false;
}

function boundedRecord(record: LogRecord): LogRecord {
  const out: Record<string, unknown> = {};
  for (const key in record) out[key] = bounded(record[key]);
  return out as LogRecord;
}

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
      const fields = needsBounding(record) ? boundedRecord(record) : record;
      const time = now().toISOString();
      let line: string;
      if (fields.level === undefined && fields.time === undefined) {
        // The common case, without copying the record: its JSON after the time and level.
        const json = JSON.stringify(fields);
        line = `{"time":"${time}","level":"info"${json.length > 2 ? `,${json.slice(1)}` : "}"}\n`;
      } else {
        line = `${JSON.stringify({ time, level: "info", ...fields })}\n`;
      }
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
