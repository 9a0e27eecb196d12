import assert from "node:assert/strict";
import { decodePem, encodePem, PemSyntaxError } from "./pem.ts";

Deno.test("encodePem() wraps base64 at 64 columns and decodePem() reads it back", () => {
  const der = new Uint8Array(100).map((_, i) => i);
  const text = encodePem("PUBLIC KEY", der);
  const lines = text.trimEnd().split("\n");
  assert.equal(lines[0], "-----BEGIN PUBLIC KEY-----");
  assert.equal(lines.at(-1), "-----END PUBLIC KEY-----");
  assert.ok(lines.slice(1, -1).every((l) => l.length <= 64));
  assert.deepEqual(decodePem(text), [{ label: "PUBLIC KEY", bytes: der }]);
});

Deno.test("decodePem() reads several blocks and skips the text around them", () => {
  const text = `# keys\n${encodePem("CERTIFICATE", new Uint8Array([1]))}between\r\n${
    encodePem("CERTIFICATE", new Uint8Array([2])).replaceAll("\n", "\r\n")
  }`;
  assert.deepEqual(decodePem(text).map((b) => [b.label, [...b.bytes]]), [
    ["CERTIFICATE", [1]],
    ["CERTIFICATE", [2]],
  ]);
});

Deno.test("decodePem() refuses what is not PEM without quoting it", () => {
  const cases: [string, RegExp][] = [
    ["secret-text", /no PEM block/],
    ["-----BEGIN A-----\nAA==\n-----END B-----\n", /ends as "B"/],
    ["-----BEGIN A-----\n!!!!\n-----END A-----\n", /not base64/],
    ["-----BEGIN A-----\nProc-Type: 4,ENCRYPTED\n\nAA==\n-----END A-----\n", /no PEM block/],
    [encodePem("A", new Uint8Array([1])).repeat(3), /more than 2 blocks/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => decodePem(text, { maxBlocks: 2 }), (e) => {
      assert.ok(e instanceof PemSyntaxError);
      assert.match(e.message, message);
      assert.ok(!e.message.includes("secret-text"));
      return true;
    });
  }
});
