import assert from "node:assert/strict";
import type { KubeObject } from "../kube/mod.ts";
import {
  COPY_BYTES_PER_VALUE,
  COPY_OVERHEAD_BYTES,
  copyBytes,
  MAX_REFUSED_NAMESPACES,
  NAMESPACE_OVERHEAD_BYTES,
  WorkloadCopies,
} from "./workload_copies.ts";

function pod(namespace: string, name: string, images = 1): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, uid: `u-${namespace}-${name}` },
    spec: {
      containers: Array.from({ length: images }, (_, i) => ({ name: `c${i}`, image: `r/a:${i}` })),
    },
  };
}

const RESERVE = MAX_REFUSED_NAMESPACES * NAMESPACE_OVERHEAD_BYTES;

Deno.test("copyBytes() counts a copy's text, 64 bytes a JSON value and the overhead", () => {
  const copy: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "a" } };
  const text = JSON.stringify(copy);
  // Values: the object; apiVersion, kind, metadata and their values; name and its value.
  assert.equal(copyBytes(copy), text.length + 9 * COPY_BYTES_PER_VALUE + COPY_OVERHEAD_BYTES);
  assert.ok(copyBytes(pod("n", "p", 10)) > copyBytes(pod("n", "p", 1)));
});

Deno.test("WorkloadCopies holds what fits, refuses whole namespaces past the bound, never more", () => {
  const size = copyBytes(pod("a", "p0"));
  const maxBytes = RESERVE + 2 * NAMESPACE_OVERHEAD_BYTES + 5 * size;
  const dropped: string[] = [];
  const copies = new WorkloadCopies(maxBytes, (ns) => dropped.push(ns));
  const held: KubeObject[] = [];
  for (let i = 0; i < 3; i++) held.push(copies.admit(pod("a", `p${i}`))!);
  for (let i = 0; i < 2; i++) held.push(copies.admit(pod("b", `p${i}`))!);
  assert.equal(held.filter(Boolean).length, 5);
  assert.equal(copies.bytes, 2 * NAMESPACE_OVERHEAD_BYTES + 5 * size);
  // The sixth does not fit: its namespace is refused (its holder drops its copies).
  assert.equal(copies.admit(pod("b", "p2")), undefined);
  assert.deepEqual(dropped, ["b"]);
  assert.ok(copies.refused("b"));
  for (const copy of held.slice(3)) copies.release(copy);
  assert.equal(copies.bytes, NAMESPACE_OVERHEAD_BYTES + 3 * size + NAMESPACE_OVERHEAD_BYTES);
  // A refused namespace stays refused, even with room again; a new one fits.
  assert.equal(copies.admit(pod("b", "p0")), undefined);
  assert.ok(copies.admit(pod("c", "p0")));
  assert.deepEqual(copies.stats(), {
    bytes: copies.bytes,
    maxBytes,
    copies: 4,
    refusedNamespaces: 1,
    notKept: 2,
  });
  assert.ok(copies.bytes <= maxBytes);
  // A release of what was never held, or twice, changes nothing.
  copies.release(pod("a", "p0"));
  copies.release(held[0]!);
  copies.release(held[0]!);
  assert.equal(copies.stats().copies, 3);
  // A refused namespace that was deleted is forgotten alone.
  assert.equal(copies.admit(pod("d", "p0", 50)), undefined);
  assert.deepEqual(copies.refusedNamespaces().sort(), ["b", "d"]);
  copies.forgetRefusal("d");
  assert.deepEqual(copies.refusedNamespaces(), ["b"]);
  copies.forgetRefusals();
  assert.ok(copies.admit(pod("b", "p0")));
  assert.deepEqual(copies.refusedNamespaces(), []);
});

Deno.test("WorkloadCopies stays within its bound under many namespaces and copies", () => {
  const maxBytes = RESERVE + 64 * 1024;
  let holder = new Map<string, KubeObject>();
  const copies = new WorkloadCopies(maxBytes, (ns) => {
    for (const [k, copy] of holder) {
      if (copy.metadata.namespace === ns) {
        holder.delete(k);
        copies.release(copy);
      }
    }
  });
  let peak = 0;
  for (let round = 0; round < 3; round++) {
    for (let n = 0; n < 50; n++) {
      for (let p = 0; p < 20; p++) {
        const copy = copies.admit(pod(`ns${n}`, `p${p}`, 1 + (p % 4)));
        if (copy) {
          const key = `ns${n}/p${p}`;
          const old = holder.get(key);
          if (old) copies.release(old);
          holder.set(key, copy);
        }
        peak = Math.max(peak, copies.bytes);
      }
    }
  }
  assert.ok(peak <= maxBytes, `${peak} > ${maxBytes}`);
  const stats = copies.stats();
  assert.ok(stats.refusedNamespaces > 0);
  assert.equal(stats.copies, holder.size);
  // Every namespace is held whole or not at all.
  for (let n = 0; n < 50; n++) {
    const count = [...holder.keys()].filter((k) => k.startsWith(`ns${n}/`)).length;
    assert.ok(count === 0 || count === 20, `ns${n}: ${count}`);
    assert.equal(copies.refused(`ns${n}`), count === 0);
  }
  holder = new Map();
});

Deno.test("WorkloadCopies: past the refused names it remembers, no new namespace is held", () => {
  const size = copyBytes(pod("held", "p0"));
  const copies = new WorkloadCopies(RESERVE + NAMESPACE_OVERHEAD_BYTES + size + 64, () => {});
  const held = copies.admit(pod("held", "p0"))!;
  assert.ok(held);
  for (let n = 0; n <= MAX_REFUSED_NAMESPACES; n++) {
    assert.equal(copies.admit(pod(`n${n}`, "p0")), undefined);
  }
  assert.equal(copies.stats().refusedNamespaces, MAX_REFUSED_NAMESPACES);
  assert.ok(copies.bytes <= copies.maxBytes);
  // Room again, but a namespace refused past the names it remembers is not held (it would be
  // held in part): no namespace not held is, until the refusals are forgotten.
  copies.release(held);
  assert.equal(copies.admit(pod(`n${MAX_REFUSED_NAMESPACES}`, "p0")), undefined);
  assert.equal(copies.admit(pod("held", "p0")), undefined);
  copies.forgetRefusals();
  assert.ok(copies.admit(pod(`n${MAX_REFUSED_NAMESPACES}`, "p0")));
});
