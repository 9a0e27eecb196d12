import assert from "node:assert/strict";
import { Semaphore } from "./semaphore.ts";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

Deno.test("Semaphore runs at most its permits at once, the others in order", async () => {
  const semaphore = new Semaphore(2);
  const gates = [gate(), gate(), gate()];
  const started: number[] = [];
  const runs = gates.map((g, i) =>
    semaphore.run(async () => {
      started.push(i);
      await g.opened;
      return i;
    })
  );
  await Promise.resolve();
  assert.deepEqual(started, [0, 1]);
  assert.equal(semaphore.running, 2);
  assert.equal(semaphore.waiting, 1);
  gates[0]!.open();
  assert.equal(await runs[0], 0);
  await Promise.resolve();
  assert.deepEqual(started, [0, 1, 2]);
  gates[1]!.open();
  gates[2]!.open();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2]);
  assert.equal(semaphore.running, 0);
  assert.equal(semaphore.waiting, 0);
});

Deno.test("Semaphore: a task whose signal aborts while it waits never starts", async () => {
  const semaphore = new Semaphore(1);
  const first = gate();
  const running = semaphore.run(() => first.opened);
  const controller = new AbortController();
  let started = false;
  const waiting = semaphore.run(() => {
    started = true;
    return Promise.resolve();
  }, controller.signal);
  assert.equal(semaphore.waiting, 1);
  controller.abort(new Error("deadline"));
  await assert.rejects(waiting, /deadline/);
  assert.equal(semaphore.waiting, 0);
  first.open();
  await running;
  assert.equal(started, false);
  assert.equal(semaphore.running, 0);
});

Deno.test("Semaphore releases its permit when a task fails", async () => {
  const semaphore = new Semaphore(1);
  await assert.rejects(semaphore.run(() => Promise.reject(new Error("boom"))), /boom/);
  await assert.rejects(
    semaphore.run(() => {
      throw new Error("sync");
    }),
    /sync/,
  );
  assert.equal(await semaphore.run(() => Promise.resolve(7)), 7);
  assert.equal(semaphore.running, 0);
});
