/**
 * Figures of the benchmarks (not a benchmark itself: `main.ts` skips `_` files).
 *
 * @module
 */

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
