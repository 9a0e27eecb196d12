/**
 * Test helpers for "no secret in any error": a secret-shaped canary to put into inputs, and an
 * assertion that walks an error's cause chain (messages and stacks) looking for it.
 *
 * @module
 */
import assert from "node:assert/strict";

/** A fresh secret-shaped value: `CANARY-S3CR3T-<hex>`. */
export function canary(): string {
  return `CANARY-S3CR3T-${crypto.randomUUID().replaceAll("-", "")}`;
}

/** Every message and stack of `error` and its causes. */
export function errorTexts(error: unknown): string[] {
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 16; depth++) {
    if (current instanceof Error) {
      texts.push(current.message, String(current.stack));
      current = current.cause;
    } else {
      texts.push(String(current));
      current = undefined;
    }
  }
  return texts;
}

/** Asserts that neither `secret` nor the `CANARY` marker is in `error`, its causes or their stacks. */
export function assertNoCanary(error: unknown, secret: string): void {
  assert.ok(error !== undefined, "no error was thrown");
  for (const text of errorTexts(error)) {
    assert.ok(
      !text.includes(secret) && !text.includes("CANARY"),
      `the error quotes the secret: ${text}`,
    );
  }
}

/** What `promise` rejects with (it must reject). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("the promise did not reject");
}

/** What `fn` throws (it must throw). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("nothing was thrown");
}
