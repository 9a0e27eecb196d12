/**
 * A line diff for `yq compare`, printed as yq printed it: each line of the first text that the
 * second lacks with `-`, each line the second adds with `+`, common lines with a space; in a
 * changed run, the removed lines come before the added ones.
 *
 * Myers' algorithm on what remains between the common first and last lines. Its time grows with
 * the lines times the differences and its memory with the square of the differences, so past
 * {@link MAX_EDITS} differences the rest is shown as removed, then added: a correct diff, if not
 * the shortest, in bounded memory.
 *
 * @module
 */

/** One line of a diff. */
export interface DiffLine {
  readonly op: " " | "-" | "+";
  readonly line: string;
}

/** The most differences searched for a shortest diff. */
export const MAX_EDITS = 2000;

/** A shortest edit from `a` to `b` (no common first or last line), or `undefined` past `max`. */
function myers(a: readonly string[], b: readonly string[], max: number): DiffLine[] | undefined {
  const n = a.length;
  const m = b.length;
  // trace[d][k + d]: the furthest x on diagonal k after d differences.
  const trace: Int32Array[] = [];
  const at = (d: number, k: number) => trace[d]![k + d]!;
  let end = -1;
  for (let d = 0; d <= Math.min(n + m, max) && end === -1; d++) {
    const v = new Int32Array(2 * d + 1);
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (d === 0) x = 0;
      else if (k === -d || (k !== d && at(d - 1, k - 1) < at(d - 1, k + 1))) x = at(d - 1, k + 1);
      else x = at(d - 1, k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[k + d] = x;
      if (x >= n && y >= m) {
        end = d;
        break;
      }
    }
    trace.push(v);
  }
  if (end === -1) return undefined;
  const ops: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = end; d > 0; d--) {
    const k = x - y;
    const down = k === -d || (k !== d && at(d - 1, k - 1) < at(d - 1, k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(d - 1, prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ op: " ", line: a[--x]! });
      y--;
    }
    if (down) ops.push({ op: "+", line: b[--y]! });
    else ops.push({ op: "-", line: a[--x]! });
  }
  while (x > 0 && y > 0) {
    ops.push({ op: " ", line: a[--x]! });
    y--;
  }
  return ops.reverse();
}

/** The edit from lines `a` to lines `b`, removed lines first in each changed run. */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const middle = myers(midA, midB, MAX_EDITS) ?? [
    ...midA.map((line) => ({ op: "-" as const, line })),
    ...midB.map((line) => ({ op: "+" as const, line })),
  ];
  const ops = [
    ...a.slice(0, head).map((line) => ({ op: " " as const, line })),
    ...middle,
    ...a.slice(a.length - tail).map((line) => ({ op: " " as const, line })),
  ];
  const out: DiffLine[] = [];
  let run: DiffLine[] = [];
  const flush = () => {
    out.push(...run.filter((l) => l.op === "-"), ...run.filter((l) => l.op === "+"));
    run = [];
  };
  for (const op of ops) {
    if (op.op === " ") {
      flush();
      out.push(op);
    } else {
      run.push(op);
    }
  }
  flush();
  return out;
}

/** The diff of two texts as yq printed it, or "" when they are the same. */
export function diffText(a: string, b: string): string {
  if (a === b) return "";
  return diffLines(a.split("\n"), b.split("\n")).map((l) => `${l.op}${l.line}`).join("\n");
}
