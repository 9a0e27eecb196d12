/**
 * Text edits of a YAML stream: each replaces the characters between two offsets of the
 * original text (an insertion replaces none). All edits of one command are computed on the
 * original text and applied together, so every character no edit covers is kept as it was.
 *
 * @module
 */

/** One change: the text between `start` and `end` of the original becomes `text`. */
export interface Edit {
  /** The first offset replaced. */
  readonly start: number;
  /** The offset after the last one replaced (`start` for an insertion). */
  readonly end: number;
  /** What goes there. Its newlines become the file's (`\r\n` in a CRLF file). */
  readonly text: string;
  /**
   * The nesting depth of what it inserts: of several insertions at one offset (a key added to
   * a mapping that ends where its parent ends, and a key added to that parent), the deeper one
   * comes first. @default 0
   */
  readonly depth?: number;
}

/**
 * Applies `edits` to `text`. At one offset, insertions go before a replacement, deeper ones
 * first, else in the order given. An edit inside another one's replaced range (the key of a
 * mapping that is deleted whole) is dropped; edits that overlap otherwise are a bug.
 */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  const crlf = text.includes("\r\n");
  const ordered = edits
    .map((edit, order) => ({ edit, order }))
    .sort((a, b) =>
      a.edit.start - b.edit.start ||
      Number(a.edit.end > a.edit.start) - Number(b.edit.end > b.edit.start) ||
      (b.edit.depth ?? 0) - (a.edit.depth ?? 0) ||
      a.order - b.order
    );
  let out = "";
  let pos = 0;
  let coveredFrom = -1;
  for (const { edit } of ordered) {
    if (edit.start < pos) {
      if (edit.start >= coveredFrom && edit.end <= pos) continue;
      throw new Error(`overlapping edits at offsets ${edit.start}-${edit.end} (a bug)`);
    }
    out += text.slice(pos, edit.start) + (crlf ? edit.text.replace(/\r?\n/g, "\r\n") : edit.text);
    coveredFrom = edit.start;
    pos = edit.end;
  }
  return out + text.slice(pos);
}
