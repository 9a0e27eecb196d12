import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import { readPublicKeys } from "./keys.ts";
import { dssePae } from "./attestation_statement.ts";
import { verifyDetachedOpenPgp } from "./dsse_openpgp.ts";

async function key(expiresIn?: number) {
  const { privateKey, publicKey } = await openpgp.generateKey({
    type: "ecc",
    curve: "ed25519Legacy",
    userIDs: [{ name: "builder" }],
    format: "armored",
    ...(expiresIn ? { keyExpirationTime: expiresIn } : {}),
  });
  return {
    private: await openpgp.readPrivateKey({ armoredKey: privateKey }),
    public: await readPublicKeys(publicKey),
  };
}

async function sign(data: Uint8Array, signingKey: openpgp.PrivateKey): Promise<Uint8Array> {
  return await openpgp.sign({
    message: await openpgp.createMessage({ binary: data }),
    signingKeys: signingKey,
    detached: true,
    format: "binary",
  }) as Uint8Array;
}

const pae = dssePae("application/vnd.in-toto+json", new TextEncoder().encode('{"a":1}'));

Deno.test("an OpenPGP detached signature over a DSSE PAE verifies with its key, until the key expires", async () => {
  const lasting = await key();
  const ok = await verifyDetachedOpenPgp(
    pae,
    await sign(pae, lasting.private),
    lasting.public,
    new Date(),
  );
  assert.equal(ok.verified, true);
  assert.equal((ok as { validUntil?: Date }).validUntil, undefined);
  const expiring = await key(3600);
  const until = await verifyDetachedOpenPgp(
    pae,
    await sign(pae, expiring.private),
    expiring.public,
    new Date(),
  );
  assert.equal(until.verified, true);
  const when = (until as { validUntil?: Date }).validUntil!.getTime();
  assert.ok(Math.abs(when - (Date.now() + 3600_000)) < 120_000, String(when));
});

Deno.test("an OpenPGP detached signature over other bytes, or by another key, or not one, is refused", async () => {
  const signer = await key();
  const other = await key();
  const sig = await sign(pae, signer.private);
  const altered = await verifyDetachedOpenPgp(
    new Uint8Array([...pae, 1]),
    sig,
    signer.public,
    new Date(),
  );
  assert.equal(altered.verified, false);
  assert.match((altered as { reason: string }).reason, /invalid signature by key|altered/);
  const stranger = await verifyDetachedOpenPgp(pae, sig, other.public, new Date());
  assert.match((stranger as { reason: string }).reason, /not a trusted key/);
  const junk = await verifyDetachedOpenPgp(
    pae,
    new Uint8Array([0x30, 1, 2]),
    signer.public,
    new Date(),
  );
  assert.match((junk as { reason: string }).reason, /^not an OpenPGP signature/);
});
