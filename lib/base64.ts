/**
 * Base64 for the whole toolkit, UTF-8 safe both ways: bytes and text to base64 and back, and
 * the `Authorization: Basic` value (RFC 7617 with UTF-8, so a password such as `pässwörd` or
 * `密码` works, where `btoa` throws on anything beyond Latin-1).
 *
 * Built on `Uint8Array.fromBase64`/`toBase64` (TC39, in Deno 2.9's V8), which skip ASCII
 * whitespace, so PEM bodies and wrapped kubeconfig data decode as they are.
 *
 * ```ts
 * import { basicAuthorization, decodeBase64Text, encodeBase64 } from "./base64.ts";
 *
 * encodeBase64("héllo"); // "aMOpbGxv"
 * decodeBase64Text("aMOpbGxv"); // "héllo"
 * basicAuthorization("ann", "密码"); // "Basic YW5uOuWvhueggQ=="
 * ```
 *
 * @module
 */

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
const UTF8 = new TextEncoder();
// deno-lint-ignore no-control-regex -- every ASCII code, control characters included
const ASCII = /^[\x00-\x7f]*$/;

/** Base64 (standard alphabet, padded; `urlSafe`: URL alphabet, unpadded) of bytes or UTF-8 text. */
export function encodeBase64(
  data: Uint8Array | string,
  options: { urlSafe?: boolean } = {},
): string {
  // ASCII text is its own UTF-8: the native btoa skips the copy (the webhook's patches).
  if (typeof data === "string" && !options.urlSafe && ASCII.test(data)) return btoa(data);
  const bytes = typeof data === "string" ? UTF8.encode(data) : data;
  return options.urlSafe
    ? bytes.toBase64({ alphabet: "base64url", omitPadding: true })
    : bytes.toBase64();
}

/**
 * The bytes of base64 text (standard or URL-safe alphabet, padding optional, whitespace
 * ignored). Throws `SyntaxError` when it is not base64; the message never quotes the input.
 */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  try {
    return Uint8Array.fromBase64(standard) as Uint8Array<ArrayBuffer>;
  } catch (error) {
    throw new SyntaxError("Cannot decode base64: the text is not base64", { cause: error });
  }
}

/**
 * The UTF-8 text of base64. Throws `SyntaxError` when it is not base64 or the bytes are not
 * UTF-8 (never quoting the input).
 */
export function decodeBase64Text(text: string): string {
  const bytes = decodeBase64(text);
  try {
    return STRICT_UTF8.decode(bytes);
  } catch (error) {
    throw new SyntaxError("Cannot decode base64: the bytes are not UTF-8 text", { cause: error });
  }
}

/** `Basic <base64(user:password)>`, UTF-8 encoded (RFC 7617 `charset="UTF-8"`). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${encodeBase64(`${username}:${password}`)}`;
}
