/**
 * One call of the verifier: the review's signal, and the one slot (`fair_slots.ts`) it takes
 * just before its first registry work. A review waits for its slot; a renewal nobody waits for
 * (`background`) takes one only when one is free and no review waits, else it is skipped with
 * a {@linkcode NoFreeSlotError}.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";
import type { Slot, SlotSource } from "./fair_slots.ts";

/** What the parts of one verification share: the signal, and the slot taken on demand. */
export interface VerifyCall {
  readonly signal: AbortSignal | undefined;
  /** Takes the call's slot (once; nothing when the task has no slots). */
  slot(): Promise<void>;
}

/** A renewal found no free slot (reviews wait for them): it is skipped. */
export class NoFreeSlotError extends ToolkitError {
  constructor() {
    super("Cannot renew the verdict now: every verification slot is needed by reviews");
    this.name = "NoFreeSlotError";
  }
}

/** A call; disposing of it gives its slot back. */
export function startCall(
  slots: SlotSource | undefined,
  signal: AbortSignal | undefined,
  background: boolean,
): VerifyCall & Disposable {
  let slot: Slot | undefined;
  let taking: Promise<void> | undefined;
  const takeSlot = async () => {
    if (slots === undefined) return;
    if (!background) {
      slot = await slots.acquire(signal);
      return;
    }
    slot = slots.tryAcquire();
    if (slot === undefined) throw new NoFreeSlotError();
  };
  return {
    signal,
    slot: () => taking ??= takeSlot(),
    [Symbol.dispose]: () => slot?.release(),
  };
}
