import assert from "node:assert/strict";
import type { Slot, SlotSource } from "./fair_slots.ts";
import { NoFreeSlotError, startCall } from "./verify_call.ts";

function fakeSlots(free: number): SlotSource & { taken: number; released: number } {
  const slots = {
    taken: 0,
    released: 0,
    acquire: () => Promise.resolve(slots.take()!),
    tryAcquire: () => free > 0 ? slots.take() : undefined,
    take: (): Slot => {
      free--;
      slots.taken++;
      const release = () => {
        free++;
        slots.released++;
      };
      return { release, [Symbol.dispose]: release };
    },
  };
  return slots;
}

Deno.test("startCall() takes its slot once, on demand, and gives it back when disposed of", async () => {
  const slots = fakeSlots(1);
  {
    using call = startCall(slots, undefined, false);
    assert.equal(slots.taken, 0);
    await Promise.all([call.slot(), call.slot()]);
    await call.slot();
    assert.equal(slots.taken, 1);
  }
  assert.equal(slots.released, 1);
  // Without slots (the CLI's one image) there is nothing to take.
  using free = startCall(undefined, undefined, false);
  await free.slot();
});

Deno.test("startCall() in the background takes a slot only when one is free", async () => {
  const slots = fakeSlots(0);
  using call = startCall(slots, undefined, true);
  await assert.rejects(call.slot(), NoFreeSlotError);
  assert.equal(slots.taken, 0);
});
