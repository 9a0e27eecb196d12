import assert from "node:assert/strict";
import { testFulcio, testRekor, testTrustRoot } from "../../tests/fakes/sigstore_instance.ts";
import { InvalidTrustRootError, MAX_TRUST_ROOT_BYTES, parseTrustRoot } from "./trust_root.ts";

const PUBLIC_GOOD = new URL(
  "../../tests/fixtures/sigstore/public_good_trusted_root.json",
  import.meta.url,
);

Deno.test("parseTrustRoot() reads the public-good trust root", async () => {
  const root = await parseTrustRoot(await Deno.readFile(PUBLIC_GOOD), "public good");
  assert.deepEqual(root.counts, {
    certificateAuthorities: 2,
    tlogs: 2,
    ctlogs: 2,
    timestampAuthorities: 1,
  });
  assert.ok(root.names.includes("https://rekor.sigstore.dev"));
  assert.match(root.id, /^sha256:[0-9a-f]{64}$/);
});

Deno.test("parseTrustRoot() reads one made by the tests", async () => {
  const root = await parseTrustRoot(
    testTrustRoot({ fulcio: await testFulcio(), rekor: testRekor() }),
    "test",
  );
  assert.equal(root.counts.certificateAuthorities, 1);
  assert.equal(root.material.certificateAuthorities[0]!.certChain.length, 2);
});

Deno.test("parseTrustRoot() refuses what it cannot trust, naming the trust root", async () => {
  const good = JSON.parse(await Deno.readTextFile(PUBLIC_GOOD));
  const withoutStart = structuredClone(good);
  delete withoutStart.tlogs[0].publicKey.validFor.start;
  const caWithoutValidity = structuredClone(good);
  delete caWithoutValidity.certificateAuthorities[1].validFor;
  const badCertificate = structuredClone(good);
  badCertificate.certificateAuthorities[0].certChain.certificates[0].rawBytes = "AAAA";
  const cases: [string, RegExp][] = [
    ["{", /not JSON text/],
    ["[]", /not a JSON object/],
    [JSON.stringify({ ...good, mediaType: "application/json" }), /is not a sigstore trusted root/],
    [JSON.stringify(withoutStart), /tlogs\[0\] has no validFor.start/],
    [JSON.stringify(caWithoutValidity), /certificateAuthorities\[1\] has no validFor.start/],
    [JSON.stringify(badCertificate), /Cannot use trust root ConfigMap "x\/y": /],
    [
      JSON.stringify({ mediaType: good.mediaType, tlogs: [], certificateAuthorities: [] }),
      /lists no certificate authority/,
    ],
    [" ".repeat(MAX_TRUST_ROOT_BYTES + 1), /larger than/],
  ];
  for (const [text, message] of cases) {
    await assert.rejects(parseTrustRoot(text, 'ConfigMap "x/y"'), InvalidTrustRootError);
    await assert.rejects(parseTrustRoot(text, 'ConfigMap "x/y"'), message);
  }
});
