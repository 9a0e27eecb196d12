import assert from "node:assert/strict";
import { compileIdentities } from "./identities.ts";

Deno.test("compileIdentities() matches issuer and subject together, exactly or by regular expression", async () => {
  const matcher = compileIdentities([
    { issuer: "https://issuer.test", subject: "dev@team.test" },
    { issuerRegExp: "^https://ci\\.test$", subjectRegExp: "^https://git\\.test/team/" },
  ]);
  assert.equal(await matcher.matches("https://issuer.test", "dev@team.test"), true);
  assert.equal(await matcher.matches("https://ci.test", "https://git.test/team/app"), true);
  assert.equal(await matcher.matches("https://ci.test", "dev@team.test"), false);
  assert.equal(await matcher.matches("https://issuer.test", undefined), false);
  assert.equal(await matcher.matches(undefined, "dev@team.test"), false);
});

Deno.test("compileIdentities() remembers each (issuer, subject) pair apart, whatever they hold", async () => {
  // With answers keyed by `issuer + "\n" + subject`, the pair ("a\nb", "c") had the key of
  // ("a", "b\nc"): a certificate naming the second pair got the answer of the first.
  const matcher = compileIdentities([{ issuerRegExp: "^a$", subjectRegExp: "b" }]);
  assert.equal(await matcher.matches("a", "b\nc"), true);
  assert.equal(await matcher.matches("a\nb", "c"), false);
  // The other way round: the refused pair is remembered first.
  const again = compileIdentities([{ issuerRegExp: "^a$", subjectRegExp: "b" }]);
  assert.equal(await again.matches("a\nb", "c"), false);
  assert.equal(await again.matches("a", "b\nc"), true);
});
