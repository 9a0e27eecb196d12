import assert from "node:assert/strict";
import {
  DOCKER_MANIFEST,
  DOCKER_SCHEMA1,
  DOCKER_SCHEMA1_SIGNED,
  isIndexMediaType,
  isSchema1MediaType,
  MANIFEST_ACCEPT,
  manifestMediaType,
  OCI_INDEX,
  OCI_MANIFEST,
} from "./media_types.ts";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

Deno.test("MANIFEST_ACCEPT lists OCI and Docker v2 types and never schema 1", () => {
  for (const type of [OCI_INDEX, OCI_MANIFEST, DOCKER_MANIFEST]) {
    assert.ok(MANIFEST_ACCEPT.includes(type));
  }
  assert.ok(MANIFEST_ACCEPT.includes("application/vnd.docker.distribution.manifest.list.v2+json"));
  assert.ok(!MANIFEST_ACCEPT.includes("distribution.manifest.v1"));
});

Deno.test("manifestMediaType() takes the Content-Type without parameters", () => {
  assert.equal(manifestMediaType(`${OCI_MANIFEST}; charset=utf-8`), OCI_MANIFEST);
  assert.equal(manifestMediaType(null), "");
});

Deno.test("manifestMediaType() reads the document when the Content-Type is generic", () => {
  assert.equal(manifestMediaType("application/json", bytes({ mediaType: OCI_INDEX })), OCI_INDEX);
  assert.equal(manifestMediaType(null, bytes({ schemaVersion: 2, manifests: [] })), OCI_INDEX);
  assert.equal(
    manifestMediaType("text/plain", bytes({ schemaVersion: 2, config: {} })),
    OCI_MANIFEST,
  );
  assert.equal(manifestMediaType(null, bytes({ schemaVersion: 1, fsLayers: [] })), DOCKER_SCHEMA1);
  assert.equal(
    manifestMediaType("application/json", new TextEncoder().encode("{")),
    "application/json",
  );
});

Deno.test("isIndexMediaType() and isSchema1MediaType() classify media types", () => {
  assert.equal(isIndexMediaType(OCI_INDEX), true);
  assert.equal(isIndexMediaType(OCI_MANIFEST), false);
  assert.equal(isSchema1MediaType(DOCKER_SCHEMA1_SIGNED), true);
  assert.equal(isSchema1MediaType(DOCKER_MANIFEST), false);
});

Deno.test("manifestMediaType() keeps what the server said for a document past a manifest's shape", () => {
  const crowded = new TextEncoder().encode(
    `{"mediaType":"${OCI_INDEX}","manifests":[${"{},".repeat(9000)}{}]}`,
  );
  assert.equal(manifestMediaType("application/json", crowded), "application/json");
  const index = new TextEncoder().encode(`{"mediaType":"${OCI_INDEX}","manifests":[]}`);
  assert.equal(manifestMediaType("application/json", index), OCI_INDEX);
});
