import assert from "node:assert/strict";
import { keyFingerprint, readPublicKeys } from "../../lib/signature/mod.ts";
import { startGpg } from "./gpg.ts";
import { startRegistry } from "./registry.ts";
import { e2eSkipReason } from "./tools.ts";

Deno.test({
  name: "startGpg() pushes a signed image whose signature lands in the lookaside store",
  ignore: e2eSkipReason(["gpg", "gpgconf", "skopeo", "docker-registry", "htpasswd"]) !== undefined,
  fn: async () => {
    await using registry = await startRegistry();
    await using gpg = await startGpg();
    const key = await gpg.generateKey({ type: "ed25519" });
    assert.match(key.fingerprint, /^[0-9A-F]{40}$/);
    assert.match(key.publicKeyArmored, /BEGIN PGP PUBLIC KEY BLOCK/);
    const digest = await gpg.pushImage(`${registry.host}/demo/app:1`, { signBy: key.fingerprint });
    assert.match(digest, /^sha256:[0-9a-f]{64}$/);
    const signature = await Deno.readFile(
      `${gpg.sigstore}/demo/app@sha256=${digest.slice(7)}/signature-1`,
    );
    assert.ok(signature.length > 100);
  },
});

Deno.test({
  name: "startGpg() revokes a key and exports the revoked copy",
  ignore: e2eSkipReason(["gpg", "gpgconf"]) !== undefined,
  fn: async () => {
    await using gpg = await startGpg();
    const key = await gpg.generateKey({ type: "ed25519" });
    const [before] = await readPublicKeys(key.publicKeyArmored);
    assert.equal(await before!.isRevoked(), false);
    const [revoked] = await readPublicKeys(await gpg.revokeKey(key.fingerprint));
    assert.equal(keyFingerprint(revoked!), key.fingerprint);
    assert.equal(await revoked!.isRevoked(), true);
  },
});
