import assert from "node:assert/strict";
import { TurnScheduler } from "../turns.ts";
import { PolicyConfigError } from "./errors.ts";
import { IdentityRules } from "./identity_rules.ts";

Deno.test("IdentityRules parses a rule once per distinct text", () => {
  const rules = new IdentityRules(new TurnScheduler());
  const exact = rules.rule({ type: "signedBy", signedIdentity: { type: "matchExact" } });
  assert.equal(exact.rule.type, "matchExact");
  assert.equal(rules.rule({ type: "signedBy", signedIdentity: { type: "matchExact" } }), exact);
  assert.notEqual(rules.rule({ type: "signedBy" }).id, exact.id);
  assert.throws(
    () => rules.rule({ type: "signedBy", signedIdentity: { type: "nonsense" as never } }),
    PolicyConfigError,
  );
});

Deno.test("IdentityRules compiles an identity list once, and an unusable one is the policy's error", async () => {
  const rules = new IdentityRules(new TurnScheduler());
  const list = [{ issuer: "https://issuer.example", subjectRegExp: "^ci@" }];
  const compiled = await rules.identities(list);
  assert.equal(await rules.identities([...list]), compiled);
  assert.match(compiled.id, /^sha256:[0-9a-f]{64}$/);
  await assert.rejects(rules.identities([{ issuer: "x", subjectRegExp: "(" }]), PolicyConfigError);
});
