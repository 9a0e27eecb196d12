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

Deno.test("a trust root's validity ends with the last authority of the kind that ends first", async () => {
  const good = JSON.parse(await Deno.readTextFile(PUBLIC_GOOD));
  const root = await parseTrustRoot(JSON.stringify(good), "public good");
  // The current Fulcio CA has no end: its chain's certificates end it (the old one ended in 2022).
  const chainEnd = Math.min(
    ...root.material.certificateAuthorities[1]!.certChain.map((c) => c.notAfter.getTime()),
  );
  const tsaEnd = Math.min(
    ...root.material.timestampAuthorities[0]!.certChain.map((c) => c.notAfter.getTime()),
  );
  assert.equal(root.validUntil?.getTime(), Math.min(chainEnd, tsaEnd));
  assert.ok(root.validUntil!.getTime() > Date.parse("2026-01-01T00:00:00Z"));

  // The logs' keys ending first decide; an old log that ended does not, while a newer one runs.
  const logsEnd = structuredClone(good);
  logsEnd.tlogs[1].publicKey.validFor.end = "2027-01-02T00:00:00Z";
  logsEnd.tlogs[0].publicKey.validFor.end = "2026-01-01T00:00:00Z";
  const ending = await parseTrustRoot(JSON.stringify(logsEnd), "ending");
  assert.equal(ending.validUntil?.toISOString(), "2027-01-02T00:00:00.000Z");

  // Only ended authorities of a kind: the root ended with the last of them.
  const ended = structuredClone(good);
  ended.certificateAuthorities = [good.certificateAuthorities[0]];
  const past = await parseTrustRoot(JSON.stringify(ended), "ended");
  assert.equal(past.validUntil?.toISOString(), "2022-12-31T23:59:59.999Z");

  // A root of logs without an end does not end.
  const keysOnly = { mediaType: good.mediaType, tlogs: [good.tlogs[1]] };
  assert.equal((await parseTrustRoot(JSON.stringify(keysOnly), "logs")).validUntil, undefined);
});
