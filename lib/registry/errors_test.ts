import assert from "node:assert/strict";
import { ToolkitError } from "../errors.ts";
import {
  CredentialsError,
  DigestMismatchError,
  RegistryError,
  ResponseTooLargeError,
  TransportError,
} from "./errors.ts";

Deno.test("RegistryError carries status, code, registry, repository and cause", () => {
  const cause = new Error("boom");
  const error = new RegistryError('Cannot read manifest of "r/a:1": MANIFEST_UNKNOWN: x', {
    registry: "r",
    repository: "a",
    status: 404,
    code: "MANIFEST_UNKNOWN",
    cause,
  });
  assert.ok(error instanceof ToolkitError);
  assert.equal(error.name, "RegistryError");
  assert.deepEqual(
    [error.status, error.code, error.registry, error.repository, error.cause],
    [404, "MANIFEST_UNKNOWN", "r", "a", cause],
  );
  assert.equal(new RegistryError("x", { registry: "r" }).cause, undefined);
});

Deno.test("DigestMismatchError is a RegistryError naming both digests", () => {
  const error = new DigestMismatchError(
    "read manifest of",
    "r/a@sha256:1",
    "sha256:1",
    "sha256:2",
    {
      registry: "r",
    },
  );
  assert.ok(error instanceof RegistryError);
  assert.equal(
    error.message,
    'Cannot read manifest of "r/a@sha256:1": the registry returned content with digest sha256:2, expected sha256:1',
  );
  assert.deepEqual([error.expected, error.actual], ["sha256:1", "sha256:2"]);
});

Deno.test("ResponseTooLargeError, TransportError and CredentialsError format their messages", () => {
  const large = new ResponseTooLargeError("https://r/v2/a/manifests/1", 10);
  assert.equal(
    large.message,
    'Cannot read the response of "https://r/v2/a/manifests/1": the body is larger than 10 bytes',
  );
  assert.equal(large.limit, 10);
  const timeout = new TransportError("https://r/v2/", "no answer within 5 ms", { timedOut: true });
  assert.equal(
    timeout.message,
    'Cannot send the request to "https://r/v2/": no answer within 5 ms',
  );
  assert.equal(timeout.detail, "https://r/v2/: no answer within 5 ms");
  assert.equal(timeout.timedOut, true);
  const credentials = new CredentialsError('secret "ns/s"', "it has no data");
  assert.equal(
    credentials.message,
    'Cannot read registry credentials from secret "ns/s": it has no data',
  );
  assert.equal(credentials.source, 'secret "ns/s"');
});
