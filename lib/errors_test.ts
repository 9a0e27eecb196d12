import assert from "node:assert/strict";
import {
  describeError,
  InputSyntaxError,
  NotImplementedError,
  parseJson,
  safeExcerpt,
  safeSyntaxError,
  ToolkitError,
  UsageError,
} from "./errors.ts";

Deno.test("describeError() joins the messages of a cause chain", () => {
  const inner = new Error("connection refused");
  const outer = new ToolkitError('Cannot read manifest "nginx"', { cause: inner });
  assert.equal(describeError(outer), 'Cannot read manifest "nginx": connection refused');
});

Deno.test("describeError() handles non-Error values", () => {
  assert.equal(describeError("plain"), "plain");
});

Deno.test("UsageError and NotImplementedError are ToolkitErrors with their own names", () => {
  assert.ok(new UsageError("x") instanceof ToolkitError);
  assert.equal(new UsageError("x").name, "UsageError");
  const e = new NotImplementedError("vlan");
  assert.equal(e.name, "NotImplementedError");
  assert.match(e.message, /"vlan" is not available/);
});

const CANARY = `CANARY-S3CR3T-${crypto.randomUUID()}`;

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("nothing was thrown");
}

Deno.test("safeSyntaxError() gives the kind and place of a JSON error, never the text", () => {
  for (
    const text of [
      `password: ${CANARY}`,
      `{"password": "${CANARY}"`,
      `{"password": "${CANARY}"} ${CANARY}`,
      `{"data": {"password": "x"}, "token": ${CANARY}}`,
      `{"password": "${CANARY}\n"}`,
      `{password: "${CANARY}"}`,
    ]
  ) {
    const raw = thrownBy(() => JSON.parse(text));
    const safe = safeSyntaxError(raw, "JSON", text);
    assert.ok(safe instanceof InputSyntaxError);
    assert.equal(safe.format, "JSON");
    assert.ok(!safe.message.includes(CANARY.slice(0, 10)), safe.message);
    assert.ok(
      !describeError(new ToolkitError("Cannot read it", { cause: raw })).includes("CANARY"),
    );
  }
  const e = safeSyntaxError(
    thrownBy(() => JSON.parse('{\n  "a": 1,\n  "b" 2}')),
    "JSON",
    '{\n  "a": 1,\n  "b" 2}',
  );
  assert.equal(e.message, "invalid JSON at line 3, column 7: unexpected character");
  assert.equal(
    safeSyntaxError(thrownBy(() => JSON.parse("")), "JSON", "").code,
    "UNEXPECTED_END",
  );
});

Deno.test("parseJson() parses JSON and throws an InputSyntaxError without the text", () => {
  assert.deepEqual(parseJson('{"a":[1]}'), { a: [1] });
  const error = thrownBy(() => parseJson(`{"token": ${CANARY}}`));
  assert.ok(error instanceof InputSyntaxError);
  assert.ok(!String((error as Error).stack).includes("CANARY"));
});

Deno.test("describeError() describes a yaml error in a cause chain by code and line only", async () => {
  const { parseDocument } = await import("yaml");
  const doc = parseDocument(`a: 1\npassword: ${CANARY}: x\n`);
  const raw = doc.errors[0];
  assert.ok(raw?.message.includes(CANARY), "the yaml package quotes the line (the premise)");
  const described = describeError(new ToolkitError("Cannot read it", { cause: raw }));
  assert.ok(!described.includes(CANARY), described);
  assert.match(described, /^Cannot read it: invalid YAML at line 2, column \d+: nested mappings/);
});

Deno.test("safeExcerpt() bounds a remote text and scrubs what looks secret", () => {
  const pem =
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
  const cases = [
    `{"errors":[{"code":"DENIED","message":"bad password: ${CANARY}"}]}`,
    `{"access_token":"${CANARY}","expires_in":300}`,
    `password=${CANARY}&user=a`,
    `Authorization: Bearer ${CANARY}`,
    `denied for Basic ${btoa(`user:${CANARY}`)}`,
    `the key ${pem} ${CANARY}`.replace(` ${CANARY}`, ""),
    `"payload": "${btoa(CANARY)}"`,
    `apikey: '${CANARY}'`,
    `client-key-data: ${CANARY}`,
    `token ${"aB3".repeat(20)}`,
  ];
  for (const text of cases) {
    const out = safeExcerpt(text);
    assert.ok(!out.includes("CANARY") && !out.includes(btoa(CANARY).slice(0, 12)), out);
    assert.ok(!out.includes("MIIEvQ") && !out.includes("aB3aB3aB3"), out);
  }
  assert.equal(safeExcerpt(`key ${CANARY} here`, { secrets: [CANARY] }), "key *** here");
  assert.equal(safeExcerpt("manifest unknown"), "manifest unknown");
  assert.equal(
    safeExcerpt("UNAUTHORIZED: authentication required"),
    "UNAUTHORIZED: authentication required",
  );
  assert.equal(
    safeExcerpt("blob sha256:" + "ab".repeat(32) + " unknown in library/some/long/repository/path"),
    "blob sha256:" + "ab".repeat(32) + " unknown in library/some/long/repository/path",
  );
  assert.equal(safeExcerpt("a\n\tb   c"), "a b c");
  assert.equal(safeExcerpt("x".repeat(300), { maxChars: 10 }), `${"x".repeat(10)}…`);
});
