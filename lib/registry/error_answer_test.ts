import assert from "node:assert/strict";
import {
  detailTellsCause,
  parseErrorBody,
  registryErrorFromResponse,
  transportFailureDetail,
} from "./error_answer.ts";
import { RegistryError, TransportError } from "./errors.ts";

Deno.test("parseErrorBody() reads no error list past its shape", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  assert.deepEqual(parseErrorBody(encode(`{"errors":[{"code":"DENIED","message":"no"}]}`)), [
    { code: "DENIED", message: "no" },
  ]);
  const crowded = `{"errors":[{"code":"DENIED","message":"no","detail":[${
    "[],".repeat(2000)
  }[]]}]}`;
  assert.deepEqual(parseErrorBody(encode(crowded)), []);
});

Deno.test("registryErrorFromResponse() names the action, the subject and the registry's codes", () => {
  const answer = (status: number, body: string, authFailure?: string) => ({
    status,
    statusText: status === 404 ? "Not Found" : "",
    headers: new Headers(),
    body: new TextEncoder().encode(body),
    url: "http://reg/v2/",
    authFailure,
  });
  const listed = registryErrorFromResponse(
    "read manifest of",
    "reg/team/app:1",
    { registry: "reg", repository: "team/app" },
    answer(
      404,
      `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"},{"code":"X"}]}`,
    ),
  );
  assert.ok(listed instanceof RegistryError);
  assert.equal(
    listed.message,
    'Cannot read manifest of "reg/team/app:1": MANIFEST_UNKNOWN: manifest unknown; X',
  );
  assert.equal(listed.code, "MANIFEST_UNKNOWN");
  assert.equal(listed.status, 404);
  const bare = registryErrorFromResponse("read blob of", "s", { registry: "reg" }, answer(404, ""));
  assert.equal(bare.message, 'Cannot read blob of "s": HTTP 404 Not Found');
  assert.equal(bare.code, undefined);
  const unauthorized = registryErrorFromResponse(
    "read blob of",
    "s",
    { registry: "reg" },
    answer(401, "", "no credentials"),
  );
  assert.equal(unauthorized.message, 'Cannot read blob of "s": HTTP 401 (no credentials)');
  assert.equal(unauthorized.code, "UNAUTHORIZED");
});

Deno.test("transportFailureDetail() tells a transport failure's detail, anything else its message", () => {
  const failure = new TransportError("http://reg/v2/", "connection refused", { timedOut: false });
  assert.equal(transportFailureDetail(failure), "http://reg/v2/: connection refused");
  assert.equal(detailTellsCause(failure), true);
  assert.equal(transportFailureDetail(new Error("boom")), "boom");
  assert.equal(detailTellsCause(new Error("boom")), false);
  assert.equal(transportFailureDetail("text"), "text");
});
