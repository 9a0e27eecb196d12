import assert from "node:assert/strict";
import { InvalidKeyError, type KeyBounds } from "../signature/mod.ts";
import { PolicyConfigError } from "./errors.ts";
import { filePolicySource } from "./file_source.ts";
import { KEY_SECRET_ENTRY, type KeySecretKind, KeySecretReader } from "./key_secret.ts";
import type { SecretData } from "./source.ts";

function secret(namespace: string, name: string, data: Record<string, string>): SecretData {
  return { metadata: { name, namespace, resourceVersion: "1" }, data };
}

const source = filePolicySource({
  policies: [],
  secrets: [
    secret("a", "keys", { [KEY_SECRET_ENTRY]: btoa("one two") }),
    secret("b", "same", { [KEY_SECRET_ENTRY]: btoa("one two") }),
    secret("a", "empty", { other: btoa("x") }),
    secret("a", "garbled", { [KEY_SECRET_ENTRY]: "%%%" }),
    secret("a", "refused", { [KEY_SECRET_ENTRY]: btoa("bad") }),
    secret("a", "broken", { [KEY_SECRET_ENTRY]: btoa("boom") }),
  ],
  serviceAccounts: [],
  namespaces: [],
});

/** A kind whose keys are the words of the entry; "bad" is refused, "boom" fails. */
function wordsKind(parsed: { text: string; bounds: KeyBounds }[]): KeySecretKind<string[]> {
  return {
    cacheName: "words",
    maxCacheBytes: 1024,
    parse: (text, bounds) => {
      parsed.push({ text, bounds });
      if (text === "bad") return Promise.reject(new InvalidKeyError("no key in it"));
      if (text === "boom") return Promise.reject(new Error("parser crashed"));
      return Promise.resolve(text.split(" "));
    },
  };
}

const what = (ns: string, name: string) => `key Secret "${ns}/${name}"`;

Deno.test("KeySecretReader hands the kind the decoded key entry once per content, with the bounds", async () => {
  const parsed: { text: string; bounds: KeyBounds }[] = [];
  const bounds: KeyBounds = { maxRsaBits: 2048 };
  const reader = new KeySecretReader(source, wordsKind(parsed), bounds);
  assert.deepEqual(await reader.read("a", "keys", what("a", "keys")), ["one", "two"]);
  assert.deepEqual(await reader.read("b", "same", what("b", "same")), ["one", "two"]);
  assert.deepEqual(parsed, [{ text: "one two", bounds }]);
  assert.equal(reader.stats().name, "words");
  assert.equal(reader.stats().entries, 1);
});

Deno.test("KeySecretReader names the Secret when it is missing, empty, garbled or refused", async () => {
  const parsed: { text: string; bounds: KeyBounds }[] = [];
  const reader = new KeySecretReader(source, wordsKind(parsed));
  const cases: [string, string][] = [
    ["gone", 'Cannot read key Secret "a/gone": it does not exist'],
    ["empty", 'Cannot use key Secret "a/empty": it has no "key" entry'],
    ["garbled", 'Cannot use key Secret "a/garbled": its "key" entry is not base64'],
    ["refused", 'Cannot use key Secret "a/refused": no key in it'],
  ];
  for (const [name, message] of cases) {
    await assert.rejects(
      reader.read("a", name, what("a", name)),
      (e: unknown) => e instanceof PolicyConfigError && e.message === message,
    );
  }
  // A refusal is remembered; a parser's failure is not, and is the caller's.
  await assert.rejects(reader.read("a", "refused", what("a", "refused")), PolicyConfigError);
  await assert.rejects(reader.read("a", "broken", what("a", "broken")), /^Error: parser crashed$/);
  await assert.rejects(reader.read("a", "broken", what("a", "broken")), /parser crashed/);
  assert.deepEqual(parsed.map((p) => p.text), ["bad", "boom", "boom"]);
});
