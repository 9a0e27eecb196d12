/**
 * Quoting untrusted input in messages and logs: a string from a request (an image, a container
 * name) may be megabytes long, and every message that quotes it would carry it whole into the
 * answer, the log line, the Event and any cache that keeps the message. Every place that quotes
 * input uses {@linkcode quoteInput}, which keeps a bounded prefix and says how long the rest was.
 *
 * @module
 */

/** The most characters of one input quoted in a message. */
export const QUOTE_LIMIT = 256;

/** The UTF-8 length of `text`, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * `text` as it is when it has at most `limit` characters; else its first `limit` characters
 * (never half a surrogate pair) and `…(N bytes)`, N being the UTF-8 length of the whole.
 */
export function quoteInput(text: string, limit: number = QUOTE_LIMIT): string {
  if (text.length <= limit) return text;
  let end = limit;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…(${utf8Length(text)} bytes)`;
}
