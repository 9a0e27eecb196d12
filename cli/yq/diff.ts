/**
 * A line diff for `yq compare`, printed as yq printed it: each line of the first text that the
 * second lacks with `-`, each line the second adds with `+`, common lines with a space; in a
 * changed run, the removed lines come before the added ones. Myers' algorithm: time and memory
 * grow with the size of the texts times the number of differences, not with their product.
 *
 * @module
 */

/** One line of a diff. */
export interface DiffLine {
  readonly op: " " | "-" | "+";
  readonly line: string;
}

/** The shortest edit from lines `a` to lines `b`. */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const trace: Int32Array[] = [];
  let v: Int32Array = new Int32Array(2 * max + 3);
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
        ? v[offset + k + 1]!
        : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  trace.push(v);
  // Walk back through the trace.
  const ops: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 2; d >= 0 && (x > 0 || y > 0); d--) {
    v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY && x > 0 && y > 0) {
      ops.push({ op: " ", line: a[--x]! });
      y--;
    }
    if (d === 0) break;
    if (down) ops.push({ op: "+", line: b[--y]! });
    else ops.push({ op: "-", line: a[--x]! });
  }
  while (x > 0 && y > 0) {
    ops.push({ op: " ", line: a[--x]! });
    y--;
  }
  ops.reverse();
  // In each changed run, removed lines first.
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
  const lines = diffLines(a.split("\n"), b.split("\n"));
  return lines.map((l) => `${l.op}${l.line}`).join("\n");
}
