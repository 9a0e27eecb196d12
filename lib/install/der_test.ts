import assert from "node:assert/strict";
import { integer, integerFromBytes, oid, time, tlv } from "./der.ts";

const hex = (bytes: Uint8Array) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

Deno.test("oid() encodes arcs above 127 in base 128", () => {
  assert.equal(hex(oid("1.2.840.10045.4.3.2")), "06082a8648ce3d040302");
  assert.equal(hex(oid("2.5.29.17")), "0603551d11");
});

Deno.test("integer() adds a leading zero when the high bit is set and strips extra zeros", () => {
  assert.equal(hex(integer(2)), "020102");
  assert.equal(hex(integer(128)), "02020080");
  assert.equal(hex(integerFromBytes(Uint8Array.of(0, 0, 1))), "020101");
  assert.equal(hex(integer(0)), "020100");
});

Deno.test("tlv() uses the long length form from 128 bytes", () => {
  assert.equal(hex(tlv(0x04, new Uint8Array(200))).slice(0, 6), "0481c8");
  assert.equal(hex(tlv(0x04, new Uint8Array(300))).slice(0, 8), "0482012c");
});

Deno.test("time() switches from UTCTime to GeneralizedTime in 2050", () => {
  assert.equal(
    new TextDecoder().decode(time(new Date("2049-12-31T23:59:59Z")).subarray(2)),
    "491231235959Z",
  );
  assert.equal(time(new Date("2050-01-01T00:00:00Z"))[0], 0x18);
});
