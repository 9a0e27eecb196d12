/**
 * How large the values a condition reads can be: the bound of each variable, which the cost
 * estimate ({@linkcode ./cost.ts}) multiplies out. A value is bounded by its bytes (as JSON: the
 * longest string in it, the most bytes a traversal of it reads) and its count (the most elements
 * or entries a list or map of it holds); a list or map also by the shape of its elements.
 *
 * @module
 */

/** The bound of a value. */
export interface Shape {
  /** The most bytes of the value as JSON (bounds its strings and any traversal of it). */
  readonly bytes: number;
  /** The most elements (list) or entries (map) it holds; 0 for scalars. */
  readonly count: number;
  /** The bound of each element (list) or value (map); undefined: the value itself. */
  readonly element?: Shape;
}

/**
 * Any JSON value of at most `bytes` bytes: its lists hold at most `bytes / 2` elements (`[0,0,…]`),
 * each any JSON value of at most `bytes` bytes (together no more than `bytes`).
 */
export function jsonShape(bytes: number): Shape {
  return { bytes, count: Math.ceil(bytes / 2) };
}

/** A list of at most `count` values of `element`'s bound. */
export function listShape(count: number, element: Shape): Shape {
  return { bytes: count * element.bytes + count + 2, count, element };
}

/** A map (of string keys) of at most `count` values of `element`'s bound. */
export function mapShape(count: number, element: Shape, keyBytes: number): Shape {
  return { bytes: count * (element.bytes + keyBytes + 2) + 2, count, element };
}

/** The bound of one element or value of `shape`. */
export function elementOf(shape: Shape): Shape {
  return shape.element ?? shape;
}

/** A scalar (number, boolean, null). */
export const SCALAR: Shape = Object.freeze({ bytes: 24, count: 0 });

/** The larger of two bounds. */
export function joinShapes(a: Shape, b: Shape): Shape {
  if (a === b) return a;
  const element = a.element || b.element ? joinShapes(elementOf(a), elementOf(b)) : undefined;
  return {
    bytes: Math.max(a.bytes, b.bytes),
    count: Math.max(a.count, b.count),
    ...(element ? { element } : {}),
  };
}
