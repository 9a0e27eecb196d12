/**
 * The few DER (ASN.1 Distinguished Encoding Rules) encoders an X.509 certificate needs:
 * tag-length-value with definite lengths, integers, object identifiers, strings and times.
 *
 * @module
 */

/** Concatenates byte arrays. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A tag-length-value with the content as given. */
export function tlv(tag: number, content: Uint8Array): Uint8Array {
  const n = content.length;
  let length: number[];
  if (n < 0x80) {
    length = [n];
  } else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    length = [0x80 | bytes.length, ...bytes];
  }
  return concatBytes(Uint8Array.of(tag, ...length), content);
}

/** `SEQUENCE { ... }`. */
export function sequence(...items: readonly Uint8Array[]): Uint8Array {
  return tlv(0x30, concatBytes(...items));
}

/** `SET { ... }`. */
export function set(...items: readonly Uint8Array[]): Uint8Array {
  return tlv(0x31, concatBytes(...items));
}

/** An explicitly tagged context-specific constructed value, `[n] EXPLICIT`. */
export function explicit(n: number, content: Uint8Array): Uint8Array {
  return tlv(0xa0 | n, content);
}

/** A non-negative INTEGER from its big-endian bytes (minimal, with a leading 0 if needed). */
export function integerFromBytes(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  let body = bytes.subarray(start);
  if (body.length === 0) body = Uint8Array.of(0);
  if ((body[0]! & 0x80) !== 0) body = concatBytes(Uint8Array.of(0), body);
  return tlv(0x02, body);
}

/** A small non-negative INTEGER. */
export function integer(value: number): Uint8Array {
  const bytes: number[] = [];
  for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return integerFromBytes(Uint8Array.from(bytes));
}

/** `BOOLEAN`. */
export function boolean(value: boolean): Uint8Array {
  return tlv(0x01, Uint8Array.of(value ? 0xff : 0));
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split(".").map(Number);
  const bytes: number[] = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) {
      chunk.unshift(0x80 | (v & 0x7f));
    }
    bytes.push(...chunk);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** `UTF8String`. */
export function utf8String(text: string): Uint8Array {
  return tlv(0x0c, new TextEncoder().encode(text));
}

/** `OCTET STRING`. */
export function octetString(bytes: Uint8Array): Uint8Array {
  return tlv(0x04, bytes);
}

/** `BIT STRING` with `unusedBits` unused bits at the end. */
export function bitString(bytes: Uint8Array, unusedBits = 0): Uint8Array {
  return tlv(0x03, concatBytes(Uint8Array.of(unusedBits), bytes));
}

/** X.509 Time: UTCTime before 2050, GeneralizedTime from then on (RFC 5280 4.1.2.5). */
export function time(date: Date): Uint8Array {
  const pad = (n: number) => String(n).padStart(2, "0");
  const rest = `${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${
    pad(date.getUTCMinutes())
  }${pad(date.getUTCSeconds())}Z`;
  const year = date.getUTCFullYear();
  return year < 2050
    ? tlv(0x17, new TextEncoder().encode(`${pad(year % 100)}${rest}`))
    : tlv(0x18, new TextEncoder().encode(`${year}${rest}`));
}
