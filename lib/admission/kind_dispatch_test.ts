import assert from "node:assert/strict";
import type { Requirement } from "../policy/mod.ts";
import { planKinds, plansKey, verifyKinds } from "./kind_dispatch.ts";
import type { AnyRequirementKind, ImageToVerify, KindOutcome } from "./requirement_kind.ts";
import { REQUIREMENT_KINDS } from "./requirement_kinds.ts";
import { fakePlanContext, fakeServices } from "../../tests/fakes/requirement_kinds.ts";

/** A kind standing in for `type` that plans `<keySecret>` and answers `outcome`. */
function fakeKind(
  type: "signedBy" | "sigstoreSigned",
  outcome: KindOutcome,
  seen: string[],
): AnyRequirementKind {
  return {
    ...REQUIREMENT_KINDS[type],
    plan: (r: Requirement) => Promise.resolve(`${type}/${r.keySecret}`),
    planKey: (plan: string) => plan,
    verify: (plans: readonly string[]) => {
      seen.push(...plans);
      return Promise.resolve(outcome);
    },
  };
}

const requirements: Requirement[] = [
  { type: "signedBy", keySecret: "a" },
  { type: "insecureAcceptAnything" },
  { type: "sigstoreSigned", keySecret: "b" },
  { type: "signedBy", keySecret: "c" },
];

Deno.test("planKinds() groups the signature requirements by kind, in the list's order", async () => {
  const { services } = fakeServices();
  const real = await planKinds(requirements, fakePlanContext(services));
  assert.deepEqual(real.map((g) => [g.kind.type, g.plans.length]), [
    ["sigstoreSigned", 1],
    ["signedBy", 2],
  ]);
  assert.match(
    plansKey(real),
    /^sigstoreSigned:key:pem-of:toolkit-system\/b\/.*\|signedBy:keys-of:toolkit-system\/a\/.*\|keys-of:toolkit-system\/c\//,
  );
  assert.deepEqual(
    await planKinds([{ type: "insecureAcceptAnything" }], fakePlanContext(services)),
    [],
  );
});

Deno.test("verifyKinds() asks each kind in turn; the first denial decides, else signers add up", async () => {
  const { services } = fakeServices();
  const image = {} as ImageToVerify;
  const seen: string[] = [];
  const cosign = fakeKind("sigstoreSigned", {
    allowed: true,
    signers: ["cosign-signer"],
    validUntil: 20,
    explained: { acceptedCosign: [] },
  }, seen);
  const simple = fakeKind("signedBy", { allowed: true, signers: ["F1"], validUntil: 10 }, seen);
  assert.deepEqual(
    await verifyKinds(
      [{ kind: cosign, plans: ["c1"] }, { kind: simple, plans: ["s1", "s2"] }],
      image,
      services,
    ),
    {
      allowed: true,
      signers: ["cosign-signer", "F1"],
      validUntil: 10,
      explained: { acceptedCosign: [] },
    },
  );
  assert.deepEqual(seen, ["c1", "s1", "s2"]);
  const denied = fakeKind(
    "sigstoreSigned",
    { allowed: false, reason: "no", cause: "policy" },
    seen,
  );
  seen.length = 0;
  assert.deepEqual(
    await verifyKinds(
      [{ kind: denied, plans: ["c1"] }, { kind: simple, plans: ["s1"] }],
      image,
      services,
    ),
    { allowed: false, reason: "no", cause: "policy" },
  );
  assert.deepEqual(seen, ["c1"], "the denial ends the verification");
});

Deno.test("planKinds() is exhaustive: a requirement no kind of the order verifies is an error, not an admit", async () => {
  const { services } = fakeServices();
  const withoutAttestations = [REQUIREMENT_KINDS.sigstoreSigned, REQUIREMENT_KINDS.signedBy];
  await assert.rejects(
    planKinds(
      [{ type: "attestation", predicateType: "https://slsa.dev/provenance/v1", keySecret: "k" }],
      fakePlanContext(services),
      withoutAttestations,
    ),
    /Cannot use ClusterImagePolicy "p": its requirement of type "attestation" is not verified by this verifier/,
  );
});
