import assert from "node:assert/strict";
import {
  readSecretDir,
  secretEntries,
  signingSecretManifest,
  SigningSetupError,
  signingSetupOf,
} from "./signing_secret.ts";

const SETUP = {
  vaultUrl: "https://us-south.kms.cloud.ibm.com",
  instanceId: "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b",
  keyId: "0d1c2b3a-4c1d-4e8f-9a7b-1c2d3e4f5a6b",
  iamUrl: "https://iam.cloud.ibm.com/identity/token",
  apiKey: "api-key-1234",
  fingerprint: "ABCD",
  format: "simple" as const,
  keySecret: "toolkit-system/image-signing-key",
  repositories: ["us.icr.io/team/*", "us.icr.io/ops/*"],
  builderId: "https://toolkit.dev/tekton/tools",
};

Deno.test("the image-signing Secret holds the setup and reads back the same", () => {
  const secret = signingSecretManifest(SETUP, {
    namespace: "tools",
    labels: { group: "catalyst-tools" },
  });
  assert.equal(secret.metadata.name, "image-signing");
  assert.equal(secret.metadata.labels?.group, "catalyst-tools");
  const entries = secretEntries(secret);
  // The Cloud-Native Toolkit's portieris-keys names for the vault entries.
  assert.equal(entries["vault-url"], SETUP.vaultUrl);
  assert.equal(entries["vault-instance-id"], SETUP.instanceId);
  assert.equal(entries["vault-key-id"], SETUP.keyId);
  assert.equal(entries.repositories, "us.icr.io/team/*\nus.icr.io/ops/*");
  assert.equal(entries["builder-id"], "https://toolkit.dev/tekton/tools");
  assert.deepEqual(signingSetupOf(entries, "x"), SETUP);
});

Deno.test("a setup missing entries or with another format is an error naming them", () => {
  assert.throws(
    () =>
      signingSetupOf({ "vault-url": "https://x", format: "simple" }, 'Secret "dev/image-signing"'),
    (e) =>
      e instanceof SigningSetupError &&
      e.message ===
        'Secret "dev/image-signing" lacks "vault-instance-id", "vault-key-id", "apikey": run `toolkit image-security setup-signing` to write it again',
  );
  const entries = secretEntries(signingSecretManifest(SETUP, { namespace: "tools" }));
  assert.throws(
    () => signingSetupOf({ ...entries, format: "x509" }, "s"),
    /"format" "x509": expected simple or cosign/,
  );
});

Deno.test("a Secret mounted by the kubelet reads as its entries; a missing one as none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // The kubelet's layout: a timestamped directory, ..data linking to it, one link per entry.
    await Deno.mkdir(`${dir}/..2025_01_01_00_00_00.1`);
    await Deno.writeTextFile(`${dir}/..2025_01_01_00_00_00.1/apikey`, "secret-key");
    await Deno.writeTextFile(`${dir}/..2025_01_01_00_00_00.1/vault-url`, "https://kms");
    await Deno.symlink("..2025_01_01_00_00_00.1", `${dir}/..data`);
    await Deno.symlink("..data/apikey", `${dir}/apikey`);
    await Deno.symlink("..data/vault-url", `${dir}/vault-url`);
    assert.deepEqual(await readSecretDir(dir), {
      apikey: "secret-key",
      "vault-url": "https://kms",
    });
    assert.deepEqual(await readSecretDir(`${dir}/nope`), {});
    await Deno.writeFile(`${dir}/huge`, new Uint8Array(70_000));
    await assert.rejects(() => readSecretDir(dir), /70000 bytes is too large/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
