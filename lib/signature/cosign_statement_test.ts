import assert from "node:assert/strict";
import { COSIGN_SIGN_PREDICATE_TYPE, IN_TOTO_STATEMENT_V1 } from "./cosign_media_types.ts";
import { parseCosignStatement } from "./cosign_statement.ts";
import { InvalidPayloadError } from "./payload.ts";

const hex = "ab".repeat(32);
const encode = (value: unknown) =>
  new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));
const statement = {
  _type: IN_TOTO_STATEMENT_V1,
  subject: [{ digest: { sha256: hex } }],
  predicateType: COSIGN_SIGN_PREDICATE_TYPE,
  predicate: {},
};

Deno.test("parseCosignStatement() reads the subjects of cosign's statement", () => {
  assert.deepEqual(parseCosignStatement(encode(statement)), {
    subjectDigests: [`sha256:${hex}`],
    predicateType: COSIGN_SIGN_PREDICATE_TYPE,
  });
});

Deno.test("parseCosignStatement() refuses statements that could be read two ways or are no signature", () => {
  const cases: [Uint8Array, RegExp][] = [
    [encode(`{"_type":"${IN_TOTO_STATEMENT_V1}","_type":"x"}`), /duplicate|Duplicate/],
    [encode({ ...statement, _type: "https://example.com/Statement" }), /not an in-toto statement/],
    [encode({ ...statement, predicateType: "https://slsa.dev/provenance/v1" }), /attestation/],
    [encode({ ...statement, subject: [] }), /non-empty list/],
    [encode({ ...statement, subject: [{ name: "x" }] }), /no digest object/],
    [encode({ ...statement, subject: [{ digest: { sha256: hex.toUpperCase() } }] }), /lower-case/],
    [Uint8Array.of(0xff, 0xfe), /not valid JSON/],
  ];
  for (const [bytes, message] of cases) {
    assert.throws(() => parseCosignStatement(bytes), InvalidPayloadError);
    assert.throws(() => parseCosignStatement(bytes), message);
  }
});
