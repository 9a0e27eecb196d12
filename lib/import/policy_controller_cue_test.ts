import assert from "node:assert/strict";
import {
  compileAttestationCondition,
  loadAttestationConditions,
} from "../policy/attestation_conditions.ts";
import { translateCuePolicy } from "./policy_controller_cue.ts";

const TYPE = "https://cosign.sigstore.dev/attestation/v1";

/** Whether the CEL of `cue` admits an image whose verified attestations of TYPE are `statements`. */
async function admits(cue: string, statements: Record<string, unknown>[]): Promise<boolean> {
  const translated = translateCuePolicy(cue);
  assert.ok("expression" in translated, JSON.stringify(translated));
  await loadAttestationConditions();
  const cel = compileAttestationCondition({ name: "cue", expression: translated.expression });
  // toolkit admits when some attestation satisfies the conditions (here: all of them do).
  return statements.some((statement) => {
    const result = cel.evaluate({
      statement,
      predicate: statement.predicate ?? null,
      subject: statement.subject ?? null,
      predicateType: TYPE,
      attestations: { [TYPE]: statements },
    });
    return result.ok && result.value;
  });
}

const statement = (predicate: unknown) => ({
  _type: "https://in-toto.io/Statement/v1",
  predicateType: TYPE,
  subject: [{ name: "reg.example/app", digest: { sha256: "ab" } }],
  predicate,
});

Deno.test("policy-controller's CUE field equality: a present field must equal, an absent one passes, another kind fails", async () => {
  const cue = `predicateType: "${TYPE}"\npredicate: Data: "foobar e2e test"\n`;
  assert.equal(await admits(cue, [statement({ Data: "foobar e2e test" })]), true);
  assert.equal(await admits(cue, [statement({ Data: "other" })]), false);
  // CUE unifies without requiring concrete values: an absent field passes, as in policy-controller.
  assert.equal(await admits(cue, [statement({ Timestamp: "2024-01-01T00:00:00Z" })]), true);
  assert.equal(await admits(cue, [statement("a string where CUE has a struct")]), false);
  assert.equal(await admits(cue, [statement(["a", "list"])]), false);
  // The one difference (reported): CEL's has() reads a JSON null as absent, CUE fails it.
  assert.equal(await admits(cue, [statement(null)]), true);
  assert.equal(await admits(cue, [statement({ Data: null })]), true);
  assert.equal(await admits(cue, [statement({ Data: 5 })]), false);
  // policy-controller checks every verified attestation of the type: one failing denies.
  assert.equal(
    await admits(cue, [statement({ Data: "foobar e2e test" }), statement({ Data: "other" })]),
    false,
  );
});

Deno.test("CUE time bounds and references compare the strings CUE makes of time.Parse", async () => {
  const cue = `import "time"
before: time.Parse(time.RFC3339, "2049-10-09T17:10:27Z")
after: time.Parse(time.RFC3339, "2022-03-09T17:10:27Z")
predicate: {
  Timestamp: <before
  Timestamp: >after
}
`;
  assert.equal(await admits(cue, [statement({ Timestamp: "2024-05-01T10:00:00Z" })]), true);
  assert.equal(await admits(cue, [statement({ Timestamp: "2050-01-01T00:00:00Z" })]), false);
  assert.equal(await admits(cue, [statement({ Timestamp: "2021-01-01T00:00:00Z" })]), false);
  assert.equal(await admits(cue, [statement({ Timestamp: 1 })]), false);
  assert.equal(await admits(cue, [statement({ Timestamp: { at: "x" } })]), false);
  // `before` is a field of the statement too: unified with it.
  assert.equal(
    await admits(cue, [{ ...statement({}), before: "2049-10-09T17:10:27Z" }]),
    true,
  );
  assert.equal(await admits(cue, [{ ...statement({}), before: "x" }]), false);
});

Deno.test("other CUE is refused with the line and what could not be read", () => {
  const refused = (cue: string) => {
    const result = translateCuePolicy(cue);
    assert.ok("refused" in result, cue);
    return result.refused;
  };
  assert.match(refused(`predicate: Count: 5`), /line 1: "5"/);
  assert.match(refused(`a: "x" | "y"`), /disjunction/);
  assert.match(refused(`#Def: {a: "x"}`), /definition/);
  assert.match(refused(`_hidden: "x"`), /hidden/);
  assert.match(refused(`a?: "x"`), /optional/);
  assert.match(refused(`a: != "x"`), /!=/);
  assert.match(refused(`import "strings"\na: strings.ToLower("X")`), /only "time"/);
  assert.match(refused(`a: "\\(b)"`), /interpolation/);
  assert.match(refused(`a: ["x"]`), /line 1/);
  assert.match(refused(`a: b`), /b names no field/);
  assert.match(refused(`"not-an-ident": "x"`), /CEL cannot select/);
  assert.match(
    refused(`import "time"\na: time.Parse(time.RFC3339, "2049-10-09T17:10:27+02:00")`),
    /UTC/,
  );
  assert.match(refused(`a: =~"\\\\pL"`), /Unicode/);
  assert.match(refused(`predicate: builder: =~"^https://ci\\\\.example/"`), /cost limit/);
  assert.match(refused(`package sigstore\nisCompliant: "x"`), /package/);
  assert.match(refused(``), /empty/);
});
