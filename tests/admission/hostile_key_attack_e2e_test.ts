/**
 * Attack 5 of issue #33 against the real webhook process (`_attack_hostile_key.ts`): a key
 * Secret holding an OpenPGP RSA key with a 24,576-bit modulus and exponent, and a signature "by"
 * it in the policy's lookaside store, and the same modulus and exponent as a cosign PEM key in
 * another key Secret. Each key is refused when its Secret is read: the images are denied with
 * messages naming the Secret and the key, `/healthz` keeps answering, and the
 * process stays under the chart's memory limit. The event-loop stall is measured (the bench
 * prints it), not asserted.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { CHART_MEMORY_LIMIT } from "./_attack.ts";
import { HOSTILE_KEY_BITS, runHostileKeyAttack } from "./_attack_hostile_key.ts";

Deno.test({
  name: "a key Secret holding a 24,576-bit RSA key is refused when read, naming the Secret and key",
  ignore: e2eSkipReason(["docker-registry", "gpg", "skopeo", "openssl"]) !== undefined,
  fn: async () => {
    const { answer, figures, fingerprint } = await runHostileKeyAttack();
    assert.equal(answer.status, 200);
    assert.equal(answer.uid, "hostile-key");
    assert.equal(answer.allowed, false);
    assert.ok(
      (answer.message ?? "").includes(
        `Cannot use key Secret "toolkit-system/signer": key "${fingerprint}": RSA modulus of ${HOSTILE_KEY_BITS} bits, more than 4096 (--max-rsa-key-bits)`,
      ),
      answer.message ?? "(no message)",
    );
    // The same modulus and exponent as a cosign PEM key: refused the same way, before parsing.
    assert.match(
      answer.message ?? "",
      /Cannot use key Secret "toolkit-system\/signer-pem" \(keySecret of a sigstoreSigned requirement\): key "sha256:[0-9a-f]{64}" \(PEM block 1\): RSA modulus of 24576 bits, more than 4096 \(--max-rsa-key-bits\)/,
    );
    const [ok, sent] = figures.healthzOk.split("/").map(Number);
    assert.equal(ok, sent, `/healthz answered ${figures.healthzOk}`);
    assert.ok(
      figures.peakRssMiB * 1024 * 1024 < CHART_MEMORY_LIMIT,
      `peak RSS ${figures.peakRssMiB} MiB`,
    );
  },
});
