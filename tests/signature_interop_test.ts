/**
 * Simple-signing interoperability with the real tools: signatures made by gpg 2.2 and by
 * `skopeo copy --sign-by` verify with lib/signature, and signatures made by lib/signature pass
 * `skopeo standalone-verify` (gpgme). RSA-3072 and Ed25519 keys; compressed (gpg's default),
 * uncompressed and armoured messages.
 */
import assert from "node:assert/strict";
import { parseReference } from "../lib/image/mod.ts";
import {
  encodePayload,
  type PublicKey,
  readPublicKeys,
  type VerificationResult,
  verifySignature,
} from "../lib/signature/mod.ts";
import { generateKeyPair, readPrivateKey, signImage } from "../lib/signing/mod.ts";
import { e2eSkipReason, startGpg, startRegistry, type TestGpg } from "./env/mod.ts";

const ignore = e2eSkipReason(["gpg", "gpgconf", "skopeo", "docker-registry"]) !== undefined;

const REF = "docker.io/library/busybox:1.36";
const DAY = 24 * 3600_000;

async function sha256(bytes: Uint8Array): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return "sha256:" +
    Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function gpgOk(gpg: TestGpg, args: string[], stdin?: string): Promise<string> {
  const result = await gpg.run(
    "gpg",
    ["--batch", "--yes", ...args],
    stdin === undefined ? {} : { stdin },
  );
  assert.equal(result.code, 0, `gpg ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** Signs `payload` with gpg (`extra` options such as --compress-algo) and returns the blob. */
async function gpgSign(
  gpg: TestGpg,
  fingerprint: string,
  payload: Uint8Array,
  extra: string[] = [],
): Promise<Uint8Array> {
  const input = `${gpg.home}/../payload.json`;
  const output = `${gpg.home}/../payload.sig`;
  await Deno.writeFile(input, payload);
  await gpgOk(gpg, ["--local-user", fingerprint, ...extra, "--output", output, "--sign", input]);
  const blob = await Deno.readFile(output);
  await Deno.remove(output);
  return blob;
}

async function check(
  signature: Uint8Array,
  publicKeys: readonly PublicKey[],
  digest: string,
  reference = REF,
  date = new Date(),
): Promise<VerificationResult> {
  return await verifySignature({
    signature,
    publicKeys,
    expected: { manifestDigest: digest, reference: parseReference(reference) },
    clock: () => date,
  });
}

function assertVerified(result: VerificationResult, fingerprint: string, what: string): void {
  assert.equal(result.verified, true, `${what}: ${JSON.stringify(result)}`);
  if (result.verified) assert.equal(result.keyFingerprint, fingerprint, what);
}

function assertRejected(result: VerificationResult, pattern: RegExp, what: string): void {
  assert.equal(result.verified, false, what);
  if (!result.verified) assert.match(result.reason, pattern, what);
}

Deno.test({
  name:
    "verifySignature() accepts gpg signatures: compressed, uncompressed and armoured, RSA and Ed25519",
  ignore,
  fn: async () => {
    await using gpg = await startGpg();
    const digest = await sha256(new TextEncoder().encode("a manifest"));
    const payload = encodePayload({ dockerReference: REF, manifestDigest: digest });
    for (const type of ["rsa", "ed25519"] as const) {
      const key = await gpg.generateKey({ type });
      const publicKeys = await readPublicKeys(key.publicKeyArmored);
      const variants: Array<[string, string[], number]> = [
        // [name, gpg options, first byte's packet tag]: gpg writes old-format packet headers.
        ["default (ZIP-compressed)", [], 8],
        ["--compress-algo none", ["--compress-algo", "none"], 4],
        ["--compress-algo zlib", ["--compress-algo", "zlib"], 8],
        ["--compress-algo bzip2", ["--compress-algo", "bzip2"], 8],
      ];
      for (const [name, options, tag] of variants) {
        const blob = await gpgSign(gpg, key.fingerprint, payload, options);
        assert.equal((blob[0]! & 0x3c) >> 2, tag, `${type} ${name}: packet tag`);
        assertVerified(await check(blob, publicKeys, digest), key.fingerprint, `${type} ${name}`);
      }
      const armored = await gpgSign(gpg, key.fingerprint, payload, ["--armor"]);
      assert.match(new TextDecoder().decode(armored), /^-----BEGIN PGP MESSAGE-----/);
      assertVerified(await check(armored, publicKeys, digest), key.fingerprint, `${type} --armor`);
      // The same signature, checked against another digest and another identity.
      const blob = await gpgSign(gpg, key.fingerprint, payload);
      assertRejected(
        await check(blob, publicKeys, await sha256(new Uint8Array([1]))),
        /^signed digest sha256:[0-9a-f]{64} does not match the image digest/,
        `${type} other digest`,
      );
      assertRejected(
        await check(blob, publicKeys, digest, "docker.io/library/busybox:1.37"),
        /^signed identity docker.io\/library\/busybox:1.36 does not match/,
        `${type} other tag`,
      );
    }
  },
});

Deno.test({
  name:
    "verifySignature() rejects gpg signatures with SHA-1, expired signatures, and expired or revoked gpg keys",
  ignore,
  fn: async () => {
    await using gpg = await startGpg();
    const digest = await sha256(new TextEncoder().encode("another manifest"));
    const payload = encodePayload({ dockerReference: REF, manifestDigest: digest });
    const key = await gpg.generateKey({ type: "rsa" });
    const publicKeys = await readPublicKeys(key.publicKeyArmored);

    const sha1 = await gpgSign(gpg, key.fingerprint, payload, ["--digest-algo", "SHA1"]);
    assertRejected(
      await check(sha1, publicKeys, digest),
      /^signature uses the weak hash algorithm SHA1$/,
      "SHA-1",
    );

    const expiring = await gpgSign(gpg, key.fingerprint, payload, ["--default-sig-expire", "1d"]);
    assertVerified(await check(expiring, publicKeys, digest), key.fingerprint, "fresh");
    assertRejected(
      await check(expiring, publicKeys, digest, REF, new Date(Date.now() + 2 * DAY)),
      /^signature expired on \d{4}-/,
      "expired signature",
    );

    const ed = await gpg.generateKey({ type: "ed25519" });
    const signature = await gpgSign(gpg, ed.fingerprint, payload);
    await gpgOk(gpg, ["--quick-set-expire", ed.fingerprint, "1d"]);
    const expiringKey = await readPublicKeys(
      await gpgOk(gpg, ["--armor", "--export", ed.fingerprint]),
    );
    assertVerified(await check(signature, expiringKey, digest), ed.fingerprint, "before expiry");
    assertRejected(
      await check(signature, expiringKey, digest, REF, new Date(Date.now() + 2 * DAY)),
      new RegExp(`^signing key ${ed.fingerprint} expired on \\d{4}-`),
      "expired key",
    );

    // gpg keeps a revocation certificate for every key it generates, disarmed by a leading ":".
    const certificate = await Deno.readTextFile(
      `${gpg.home}/openpgp-revocs.d/${ed.fingerprint}.rev`,
    );
    await gpgOk(gpg, ["--import"], certificate.replace(/^:-----BEGIN/m, "-----BEGIN"));
    const revokedKey = await readPublicKeys(
      await gpgOk(gpg, ["--armor", "--export", ed.fingerprint]),
    );
    assertRejected(
      await check(signature, revokedKey, digest),
      new RegExp(`^signing key ${ed.fingerprint} is revoked$`),
      "revoked key",
    );
  },
});

Deno.test({
  name: "verifySignature() accepts signatures made by skopeo copy --sign-by",
  ignore,
  fn: async () => {
    await using registry = await startRegistry();
    await using gpg = await startGpg();
    for (const type of ["rsa", "ed25519"] as const) {
      const key = await gpg.generateKey({ type });
      const reference = `${registry.host}/demo/${type}:1`;
      const digest = await gpg.pushImage(reference, {
        signBy: key.fingerprint,
        content: `signed by ${type}\n`,
      });
      const blob = await Deno.readFile(
        `${gpg.sigstore}/demo/${type}@sha256=${digest.slice("sha256:".length)}/signature-1`,
      );
      const publicKeys = await readPublicKeys(key.publicKeyArmored);
      const result = await check(blob, publicKeys, digest, reference);
      assertVerified(result, key.fingerprint, `skopeo ${type}`);
      if (result.verified) {
        assert.equal(result.dockerReference, reference);
        assert.match(result.creator ?? "", /^atomic /);
        assert.equal(typeof result.timestamp, "number");
      }
      // Pulled by digest: the signed repository is enough.
      assertVerified(
        await check(blob, publicKeys, digest, `${registry.host}/demo/${type}@${digest}`),
        key.fingerprint,
        `skopeo ${type} by digest`,
      );
      assertRejected(
        await check(blob, publicKeys, digest, `${registry.host}/demo/${type}:2`),
        /does not match/,
        `skopeo ${type} other tag`,
      );
    }
  },
});

Deno.test({
  name: "signImage() signatures pass skopeo standalone-verify for RSA, Ed25519 and gpg-made keys",
  ignore,
  fn: async () => {
    await using gpg = await startGpg();
    const dir = `${gpg.home}/..`;
    const manifest = new TextEncoder().encode(JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: {
        mediaType: "application/vnd.oci.image.config.v1+json",
        digest: "sha256:" + "0".repeat(64),
        size: 2,
      },
      layers: [],
    }));
    await Deno.writeFile(`${dir}/manifest.json`, manifest);
    const digest = await sha256(manifest);

    const generated = [
      await generateKeyPair({ name: "toolkit rsa", email: "rsa@example.com", type: "rsa" }),
      await generateKeyPair({
        name: "toolkit ed25519",
        email: "ed@example.com",
        type: "ed25519",
        passphrase: "secret",
      }),
    ];
    const signers: Array<{ what: string; fingerprint: string; sign: () => Promise<Uint8Array> }> =
      [];
    for (const [i, pair] of generated.entries()) {
      await gpgOk(gpg, ["--import"], pair.publicKeyArmored);
      signers.push({
        what: i === 0 ? "openpgp.js RSA-3072" : "openpgp.js Ed25519 (protected)",
        fingerprint: pair.fingerprint,
        sign: async () =>
          await signImage({
            privateKey: pair.privateKeyArmored,
            ...(i === 1 ? { passphrase: "secret" } : {}),
            dockerReference: REF,
            manifestDigest: digest,
          }),
      });
    }
    for (const type of ["rsa", "ed25519"] as const) {
      // A key made by gpg, exported and used by toolkit to sign (the Key Protect flow).
      const key = await gpg.generateKey({ type });
      const privateKey = await readPrivateKey(key.privateKeyArmored);
      signers.push({
        what: `gpg-made ${type}`,
        fingerprint: key.fingerprint,
        sign: async () =>
          await signImage({ privateKey, dockerReference: REF, manifestDigest: digest }),
      });
    }

    for (const signer of signers) {
      const signature = await signer.sign();
      await Deno.writeFile(`${dir}/signature`, signature);
      const ok = await gpg.run("skopeo", [
        "standalone-verify",
        `${dir}/manifest.json`,
        REF,
        signer.fingerprint,
        `${dir}/signature`,
      ]);
      assert.equal(ok.code, 0, `${signer.what}: ${ok.stderr}`);
      assert.match(ok.stdout, new RegExp(`Signature verified.*${digest}`), signer.what);
      const wrong = await gpg.run("skopeo", [
        "standalone-verify",
        `${dir}/manifest.json`,
        "docker.io/library/busybox:1.37",
        signer.fingerprint,
        `${dir}/signature`,
      ]);
      assert.notEqual(wrong.code, 0, `${signer.what}: a wrong reference must fail`);
      // And gpg itself accepts it.
      const verified = await gpg.run("gpg", ["--batch", "--verify", `${dir}/signature`]);
      assert.equal(verified.code, 0, `${signer.what}: ${verified.stderr}`);
      assert.match(verified.stderr, /Good signature/, signer.what);
    }
  },
});
