/**
 * PEM (RFC 7468): DER bytes under a `-----BEGIN LABEL-----` line, base64 in 64-column lines.
 * Reading is bounded (the caller's text is read once, blocks are counted) and refuses what is
 * not PEM without quoting it (keys are secrets).
 *
 * ```ts
 * import { decodePem, encodePem } from "./pem.ts";
 *
 * const text = encodePem("PUBLIC KEY", new Uint8Array([48, 0]));
 * decodePem(text); // [{ label: "PUBLIC KEY", bytes: Uint8Array [48, 0] }]
 * ```
 *
 * @module
 */
import { decodeBase64, encodeBase64 } from "./base64.ts";

/** One PEM block. */
export interface PemBlock {
  /** The label between `BEGIN ` and `-----` (`PUBLIC KEY`, `CERTIFICATE`, ...). */
  readonly label: string;
  /** The decoded bytes. */
  readonly bytes: Uint8Array<ArrayBuffer>;
}

/** Text that should hold PEM blocks and does not. */
export class PemSyntaxError extends SyntaxError {
  /** Creates the error; the message never quotes the input. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PemSyntaxError";
  }
}

/** Encodes `der` as one PEM block with a final newline. */
export function encodePem(label: string, der: Uint8Array): string {
  const lines = encodeBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

// Linear: the label is a bounded class, the body cannot hold "-" (base64 has none; so a block
// with RFC 1421 headers such as "Proc-Type: 4,ENCRYPTED", which RFC 7468 excludes, is no block).
const BLOCK = /-----BEGIN ([A-Z0-9 ]{1,64})-----([^-]*)-----END ([A-Z0-9 ]{1,64})-----/g;

/**
 * The PEM blocks of `text`, in order (text around and between them is ignored, as OpenSSL and
 * Go do). Throws {@linkcode PemSyntaxError} when there is no block, when a block's END label
 * differs from its BEGIN label or its body is not base64, or when there are more than
 * `maxBlocks` (default 64).
 */
export function decodePem(text: string, options: { maxBlocks?: number } = {}): PemBlock[] {
  const maxBlocks = options.maxBlocks ?? 64;
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const [, label, body, endLabel] = match as unknown as [string, string, string, string];
    if (label !== endLabel) {
      throw new PemSyntaxError(`Cannot read PEM: a "${label}" block ends as "${endLabel}"`);
    }
    if (blocks.length === maxBlocks) {
      throw new PemSyntaxError(`Cannot read PEM: more than ${maxBlocks} blocks`);
    }
    try {
      blocks.push({ label, bytes: decodeBase64(body) });
    } catch (error) {
      throw new PemSyntaxError(`Cannot read PEM: the "${label}" block is not base64`, {
        cause: error,
      });
    }
  }
  if (blocks.length === 0) throw new PemSyntaxError("Cannot read PEM: there is no PEM block");
  return blocks;
}
