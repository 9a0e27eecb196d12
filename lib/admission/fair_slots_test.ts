import assert from "node:assert/strict";
import { FairSlots, type Slot } from "./fair_slots.ts";

/** Lets granted acquisitions resolve. */
const settle = async () => {
  for (let i = 0; i < 4; i++) await Promise.resolve();
};

/** Acquisitions made and the slots they were given, in order. */
function recorder(slots: FairSlots) {
  const granted: { tenant: string; host: string; slot: Slot }[] = [];
  const take = (tenant: string, host: string, signal?: AbortSignal) =>
    slots.acquire({ tenant, host }, signal).then((slot) => {
      granted.push({ tenant, host, slot });
      return slot;
    });
  const release = (tenant: string) => {
    const i = granted.findIndex((g) => g.tenant === tenant);
    const [g] = granted.splice(i, 1);
    g!.slot.release();
  };
  const count = (tenant: string) => granted.filter((g) => g.tenant === tenant).length;
  return { granted, take, release, count };
}

Deno.test("FairSlots: an idle system lets one tenant use every slot, one host its cap", async () => {
  const slots = new FairSlots(8, { hostReserve: 0 });
  const r = recorder(slots);
  for (let i = 0; i < 10; i++) r.take("a", `h${i}`);
  await settle();
  assert.equal(slots.running, 8);
  assert.equal(slots.waiting, 2);
  assert.equal(slots.held({ tenant: "a" }), 8);

  const capped = new FairSlots(8); // a quarter kept from any one host
  assert.equal(capped.hostCap, 6);
  const c = recorder(capped);
  for (let i = 0; i < 10; i++) c.take("a", "silent");
  await settle();
  assert.equal(capped.running, 6);
  assert.equal(capped.waiting, 4);
  // Another host's image, of the same tenant or another, finds a slot at once.
  c.take("a", "good");
  c.take("b", "good");
  await settle();
  assert.equal(capped.held({ host: "good" }), 2);
  assert.equal(capped.held({ host: "silent" }), 6);
});

Deno.test("FairSlots: a tenant holding its share gets no slot while another waits", async () => {
  const slots = new FairSlots(4, { hostReserve: 0 });
  const r = recorder(slots);
  for (let i = 0; i < 20; i++) r.take("flood", "h");
  await settle();
  assert.equal(r.count("flood"), 4);
  for (let i = 0; i < 3; i++) r.take("victim", "h");
  await settle();
  assert.equal(r.count("victim"), 0, "every slot is held");
  // Each slot the flood gives back goes to the victim until it holds its share (4 / 2).
  r.release("flood");
  await settle();
  assert.equal(r.count("victim"), 1);
  r.release("flood");
  await settle();
  assert.equal(r.count("victim"), 2);
  r.release("flood");
  await settle();
  assert.deepEqual([r.count("flood"), r.count("victim")], [2, 2]);
  // At its share, the victim waits its turn: the flood, under its share now, is served.
  r.release("flood");
  await settle();
  assert.deepEqual([r.count("flood"), r.count("victim")], [2, 2]);
});

Deno.test("FairSlots: many tenants are served round-robin, none beyond its share", async () => {
  const permits = 16;
  const slots = new FairSlots(permits, { hostReserve: 0 });
  const r = recorder(slots);
  // One tenant asks first for far more than everything; then 7 others ask for 100 each.
  for (let i = 0; i < 200; i++) r.take("big", "h");
  await settle();
  const tenants = Array.from({ length: 7 }, (_, i) => `t${i}`);
  for (const t of tenants) for (let i = 0; i < 100; i++) r.take(t, "h");
  await settle();
  // Release the big tenant's slots one by one: each goes to a small tenant, round-robin.
  for (let i = 0; i < 14; i++) {
    r.release("big");
    await settle();
  }
  assert.equal(r.count("big"), 2, "8 tenants: a share of 2");
  for (const t of tenants) assert.equal(r.count(t), 2, t);
  // While all of them wait, a release goes to a tenant under its share: none ever holds more
  // than its share and the slot it is being given back.
  for (let round = 0; round < 200; round++) {
    const t = round % 3 === 0 ? "big" : tenants[round % tenants.length]!;
    if (r.count(t) === 0) continue;
    r.release(t);
    await settle();
    for (const k of ["big", ...tenants]) assert.ok(r.count(k) <= 3, `${k}: ${r.count(k)}`);
    assert.equal(slots.running, permits);
  }
});

Deno.test("FairSlots: hosts share the slots too, whatever the tenant", async () => {
  const slots = new FairSlots(8, { hostReserve: 0 });
  const r = recorder(slots);
  // One tenant: its silent host takes everything while alone.
  for (let i = 0; i < 50; i++) r.take("ns", "silent");
  await settle();
  assert.equal(slots.held({ host: "silent" }), 8);
  for (let i = 0; i < 10; i++) r.take("ns", "good");
  await settle();
  for (let i = 0; i < 8; i++) {
    const g = r.granted.find((g) => g.host === "silent")!;
    r.granted.splice(r.granted.indexOf(g), 1);
    g.slot.release();
    await settle();
  }
  // The same tenant's other host got its share (8 / 2) as the silent one gave slots back.
  assert.equal(slots.held({ host: "good" }), 4);
  assert.equal(slots.held({ host: "silent" }), 4);
});

Deno.test("FairSlots: a free slot goes to whoever can take it rather than stay idle", async () => {
  // The victim's host is at its cap; the flood, beyond its share, takes the slot.
  const slots = new FairSlots(4, { hostReserve: 1 });
  const r = recorder(slots);
  for (let i = 0; i < 3; i++) r.take("a", "capped");
  r.take("b", "other");
  await settle();
  assert.equal(slots.running, 4);
  r.take("a", "capped"); // held back by the cap (3)
  r.take("b", "other");
  await settle();
  r.release("b");
  await settle();
  assert.equal(slots.running, 4);
  assert.equal(slots.held({ host: "capped" }), 3);
  assert.equal(slots.waiting, 1);
});

Deno.test("FairSlots: an aborted wait takes no slot and leaves nothing behind", async () => {
  const slots = new FairSlots(1);
  const held = await slots.acquire({ tenant: "a", host: "h" });
  const controllers = Array.from({ length: 100 }, () => new AbortController());
  const waits = controllers.map((c, i) =>
    slots.acquire({ tenant: `t${i % 10}`, host: `h${i % 7}` }, c.signal)
  );
  assert.equal(slots.waiting, 100);
  for (const c of controllers) c.abort(new Error("deadline"));
  for (const w of waits) await assert.rejects(w, /deadline/);
  assert.equal(slots.waiting, 0);
  held.release();
  held.release(); // once only
  assert.deepEqual(slots.stats(), { permits: 1, running: 0, waiting: 0, tenants: 0, hosts: 0 });
  const aborted = new AbortController();
  aborted.abort(new Error("gone"));
  await assert.rejects(slots.acquire({ tenant: "a", host: "h" }, aborted.signal), /gone/);
  assert.equal(slots.running, 0);
});

Deno.test("FairSlots: tryAcquire never takes a slot a waiter could have", async () => {
  const slots = new FairSlots(2, { hostReserve: 0 });
  const one = slots.tryAcquire({ tenant: "cache", host: "h" });
  assert.ok(one);
  const two = await slots.acquire({ tenant: "a", host: "h" });
  assert.equal(slots.tryAcquire({ tenant: "cache", host: "h" }), undefined, "none free");
  const waiting = slots.acquire({ tenant: "b", host: "h" });
  one.release();
  (await waiting).release();
  two.release();
  using three = slots.tryAcquire({ tenant: "cache", host: "h" });
  assert.ok(three);
  assert.equal(slots.running, 1);
});

Deno.test("FairSlots with 64 permits, 50 tenants and 20 hosts: every slot used, shares kept", async () => {
  const slots = new FairSlots(64);
  const held: { tenant: string; slot: Slot }[] = [];
  let granted = 0;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < 5000; i++) {
    const tenant = `t${i % 50}`;
    pending.push(
      slots.acquire({ tenant, host: `h${(i * 7) % 20}` }).then((slot) => {
        granted++;
        held.push({ tenant, slot });
      }),
    );
  }
  await settle();
  assert.equal(slots.running, 64);
  let most = 0;
  while (held.length > 0) {
    held.shift()!.slot.release();
    await settle();
    const byTenant = new Map<string, number>();
    for (const h of held) byTenant.set(h.tenant, (byTenant.get(h.tenant) ?? 0) + 1);
    if (slots.waiting > 1000) most = Math.max(most, ...byTenant.values());
  }
  await Promise.all(pending);
  assert.equal(granted, 5000);
  // While all 50 tenants wait, none holds more than its first slots (64 / 50 rounds to 1,
  // the first 64 were given as they came).
  assert.ok(most <= 2, `a tenant held ${most}`);
  assert.deepEqual(slots.stats(), { permits: 64, running: 0, waiting: 0, tenants: 0, hosts: 0 });
});
