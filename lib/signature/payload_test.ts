import assert from "node:assert/strict";
import { VERSION } from "../version.ts";
import {
  createPayload,
  encodePayload,
  InvalidPayloadError,
  parsePayload,
  SIGNATURE_TYPE,
} from "./payload.ts";

const DIGEST = "sha256:" + "0123456789abcdef".repeat(4);
const REF = "docker.io/library/nginx:1.25";
const CLOCK = () => new Date("2026-01-02T03:04:05.678Z");

function text(value: unknown): string {
  return JSON.stringify(value);
}

function valid(): {
  critical: Record<string, unknown>;
  optional: Record<string, unknown>;
} {
  return {
    critical: {
      identity: { "docker-reference": REF },
      image: { "docker-manifest-digest": DIGEST },
      type: SIGNATURE_TYPE,
    },
    optional: { creator: "atomic 5.23.1", timestamp: 1767323045 },
  };
}

Deno.test("createPayload() sets creator to toolkit's version and timestamp from the clock", () => {
  const payload = createPayload({ dockerReference: REF, manifestDigest: DIGEST, clock: CLOCK });
  assert.deepEqual(payload, {
    dockerReference: REF,
    manifestDigest: DIGEST,
    creator: `toolkit ${VERSION}`,
    timestamp: 1767323045,
  });
});

Deno.test("createPayload() rejects an empty reference and a malformed digest", () => {
  assert.throws(
    () => createPayload({ dockerReference: "", manifestDigest: DIGEST }),
    InvalidPayloadError,
  );
  for (const digest of ["", "sha256:abc", "SHA256:" + "a".repeat(64), "sha256:" + "A".repeat(64)]) {
    assert.throws(
      () => createPayload({ dockerReference: REF, manifestDigest: digest }),
      (error: unknown) =>
        error instanceof InvalidPayloadError &&
        error.message.startsWith(`Cannot create a signature payload for "${REF}"`),
    );
  }
});

Deno.test("encodePayload() writes the members in containers/image's order", () => {
  const bytes = encodePayload(
    createPayload({ dockerReference: REF, manifestDigest: DIGEST, clock: CLOCK }),
  );
  assert.equal(
    new TextDecoder().decode(bytes),
    `{"critical":{"identity":{"docker-reference":"${REF}"},"image":{"docker-manifest-digest":"${DIGEST}"},"type":"atomic container signature"},"optional":{"creator":"toolkit ${VERSION}","timestamp":1767323045}}`,
  );
});

Deno.test("encodePayload() leaves out absent optional members", () => {
  const bytes = encodePayload({ dockerReference: REF, manifestDigest: DIGEST });
  assert.match(new TextDecoder().decode(bytes), /"optional":\{\}\}$/);
});

Deno.test("parsePayload() reads what encodePayload() writes", () => {
  const payload = createPayload({ dockerReference: REF, manifestDigest: DIGEST, clock: CLOCK });
  assert.deepEqual(parsePayload(encodePayload(payload)), payload);
  const bare = { dockerReference: REF, manifestDigest: DIGEST };
  assert.deepEqual(parsePayload(encodePayload(bare)), bare);
});

Deno.test("parsePayload() reads the payload skopeo writes", () => {
  const payload = parsePayload(text(valid()));
  assert.deepEqual(payload, {
    dockerReference: REF,
    manifestDigest: DIGEST,
    creator: "atomic 5.23.1",
    timestamp: 1767323045,
  });
});

Deno.test("parsePayload() ignores unknown members of optional", () => {
  const doc = valid();
  doc.optional.extra = { anything: [1, 2, 3] };
  assert.equal(parsePayload(text(doc)).dockerReference, REF);
  doc.optional = {};
  assert.deepEqual(parsePayload(text(doc)), { dockerReference: REF, manifestDigest: DIGEST });
});

function rejects(doc: unknown, pattern: RegExp): void {
  const input = typeof doc === "string" ? doc : text(doc);
  assert.throws(
    () => parsePayload(input),
    (error: unknown) => error instanceof InvalidPayloadError && pattern.test(error.detail),
    input,
  );
}

Deno.test("parsePayload() rejects unknown and missing members of the top level", () => {
  rejects({ ...valid(), extra: 1 }, /unknown member "extra" in payload/);
  rejects({ critical: valid().critical }, /missing member "optional" in payload/);
  rejects({ optional: {} }, /missing member "critical" in payload/);
  rejects([valid()], /payload is not a JSON object/);
  rejects("null", /payload is not a JSON object/);
});

Deno.test("parsePayload() rejects unknown critical members", () => {
  const doc = valid();
  doc.critical.extra = "x";
  rejects(doc, /unknown member "extra" in critical/);
});

Deno.test("parsePayload() rejects missing critical members", () => {
  for (const key of ["type", "image", "identity"]) {
    const doc = valid();
    delete doc.critical[key];
    rejects(doc, new RegExp(`missing member "${key}" in critical`));
  }
});

Deno.test("parsePayload() rejects extra and missing members of image and identity", () => {
  let doc = valid();
  doc.critical.image = { "docker-manifest-digest": DIGEST, size: 1 };
  rejects(doc, /unknown member "size" in critical.image/);
  doc = valid();
  doc.critical.image = {};
  rejects(doc, /missing member "docker-manifest-digest"/);
  doc = valid();
  doc.critical.identity = { "docker-reference": REF, tag: "1" };
  rejects(doc, /unknown member "tag" in critical.identity/);
  doc = valid();
  doc.critical.identity = {};
  rejects(doc, /missing member "docker-reference"/);
});

Deno.test("parsePayload() checks the types of every member", () => {
  let doc = valid();
  doc.critical.type = 1;
  rejects(doc, /critical.type is not a string/);
  doc = valid();
  doc.critical.image = "sha256";
  rejects(doc, /critical.image is not a JSON object/);
  doc = valid();
  doc.critical.identity = [REF];
  rejects(doc, /critical.identity is not a JSON object/);
  doc = valid();
  doc.critical.image = { "docker-manifest-digest": 1 };
  rejects(doc, /docker-manifest-digest is not a string/);
  doc = valid();
  doc.critical.identity = { "docker-reference": null };
  rejects(doc, /docker-reference is not a string/);
  rejects({ critical: valid().critical, optional: [] }, /optional is not a JSON object/);
  doc = valid();
  doc.optional.creator = 5;
  rejects(doc, /optional.creator is not a string/);
  for (const timestamp of [1.5, "1767323045", null, 2 ** 60]) {
    doc = valid();
    doc.optional.timestamp = timestamp;
    rejects(doc, /optional.timestamp is not an integer/);
  }
});

Deno.test("parsePayload() accepts an integer timestamp written with an exponent", () => {
  const input = text(valid()).replace("1767323045", "1.767323045e9");
  assert.equal(parsePayload(input).timestamp, 1767323045);
});

Deno.test("parsePayload() rejects another signature type", () => {
  const doc = valid();
  doc.critical.type = "cosign container image signature";
  rejects(doc, /unrecognised signature type/);
});

Deno.test("parsePayload() rejects a malformed digest", () => {
  for (const digest of ["", "sha256", "sha256:" + "A".repeat(64), "md5:" + "a".repeat(32)]) {
    const doc = valid();
    doc.critical.image = { "docker-manifest-digest": digest };
    rejects(doc, /is not a digest/);
  }
});

Deno.test("parsePayload() rejects duplicated keys", () => {
  const good = text(valid());
  rejects(
    good.replace('"type":', `"type":"x","type":`),
    /Duplicate key "type"/,
  );
  rejects(good.replace('{"critical":', `{"critical":{},"critical":`), /Duplicate key "critical"/);
  rejects(good.replace('"creator":', '"creator":"a","creator":'), /Duplicate key "creator"/);
});

Deno.test("parsePayload() rejects bytes that are not UTF-8 or not JSON", () => {
  assert.throws(() => parsePayload(new Uint8Array([0x7b, 0xff, 0x7d])), /not UTF-8/);
  rejects("{", /not valid JSON/);
  rejects(text(valid()) + "x", /not valid JSON/);
});
