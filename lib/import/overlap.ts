/**
 * Whether two toolkit image name patterns can match the same image: both are parsed as toolkit
 * parses them (normalised, host canonical), then their host parts and their path parts are
 * intersected as globs whose only wildcard is `*` (any run of characters). Exact for the
 * pattern language, conservative on tags (a pattern with a tag is compared on its `path:tag`).
 *
 * @module
 */
import { parsePattern } from "../policy/mod.ts";

/** Whether some string matches both `*`-globs (dynamic programming, O(|a|·|b|)). */
export function globsIntersect(a: string, b: string): boolean {
  // reach[i][j]: the suffixes a[i..] and b[j..] have a common match.
  const n = a.length, m = b.length;
  let next: boolean[] = new Array(m + 1).fill(false);
  // Row n: a exhausted; b[j..] must be all stars.
  next[m] = true;
  for (let j = m - 1; j >= 0; j--) next[j] = b[j] === "*" && next[j + 1]!;
  for (let i = n - 1; i >= 0; i--) {
    const row: boolean[] = new Array(m + 1).fill(false);
    row[m] = a[i] === "*" && next[m]!;
    for (let j = m - 1; j >= 0; j--) {
      if (a[i] === "*") {
        // The star matches nothing more, or swallows b's next character (literal or star).
        row[j] = next[j]! || row[j + 1]!;
      } else if (b[j] === "*") {
        row[j] = row[j + 1]! || next[j]!;
      } else {
        row[j] = a[i] === b[j] && next[j + 1]!;
      }
    }
    next = row;
  }
  return next[0]!;
}

/** Whether toolkit patterns `a` and `b` can both match one image. */
export function patternsOverlap(a: string, b: string): boolean {
  const pa = parsePattern(a), pb = parsePattern(b);
  const whole = (p: typeof pa) => p.host === undefined ? p.path : `${p.host}/${p.path}`;
  if (pa.host === undefined || pb.host === undefined) return globsIntersect(whole(pa), whole(pb));
  return globsIntersect(pa.host, pb.host) && globsIntersect(pa.path, pb.path);
}
