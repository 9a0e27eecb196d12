import assert from "node:assert/strict";
import { basicAuthorization, decodeBase64, decodeBase64Text, encodeBase64 } from "./base64.ts";

Deno.test("encodeBase64() encodes UTF-8 text and bytes", () => {
  assert.deepEqual(encodeBase64("héllo"), "aMOpbGxv");
  // ASCII takes the btoa path, and gives what the bytes give.
  const ascii =
    '[{"op":"replace","path":"/spec/containers/0/image","value":"r/a@sha256:0"}]~\u007f';
  assert.deepEqual(encodeBase64(ascii), encodeBase64(new TextEncoder().encode(ascii)));
  assert.deepEqual(encodeBase64("\u00e9"), "w6k="); // Latin-1, but not ASCII: UTF-8, not btoa's byte
  assert.deepEqual(encodeBase64(new Uint8Array([0xfb, 0xff])), "+/8=");
  assert.deepEqual(encodeBase64(new Uint8Array([0xfb, 0xff]), { urlSafe: true }), "-_8");
});

Deno.test("decodeBase64() reads both alphabets, with or without padding and whitespace", () => {
  assert.deepEqual([...decodeBase64("+/8=")], [0xfb, 0xff]);
  assert.deepEqual([...decodeBase64("-_8")], [0xfb, 0xff]);
  assert.deepEqual(decodeBase64Text("aMOp\nbGxv\n"), "héllo");
});

Deno.test("decodeBase64Text() throws SyntaxError without quoting the input", () => {
  assert.throws(
    () => decodeBase64Text("s3cr3t!!"),
    (e: unknown) => e instanceof SyntaxError && !e.message.includes("s3cr3t"),
  );
  assert.throws(() => decodeBase64Text(encodeBase64(new Uint8Array([0xff, 0xfe]))), SyntaxError);
});

Deno.test("basicAuthorization() encodes a non-Latin-1 password as UTF-8", () => {
  const value = basicAuthorization("ann", "密码-pässwörd");
  assert.deepEqual(decodeBase64Text(value.slice("Basic ".length)), "ann:密码-pässwörd");
  assert.deepEqual(basicAuthorization("ann", "密码"), "Basic YW5uOuWvhueggQ==");
});
