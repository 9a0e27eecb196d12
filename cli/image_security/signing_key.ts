/**
 * The private key `sign` signs with: a file (`--key`), or a key of the vault read into memory
 * (`--vault-key NAME|ID` with the vault flags, or the `image-signing` Secret of `setup-signing`
 * mounted at `--signing-secret-dir`, whose entries fill in what the flags do not give).
 *
 * A vault key is checked before use: one active standard (extractable) key has that id, alias or
 * name (lib/vault's `resolveKey`), its material is read into memory (`fetchKeyMaterial`), and,
 * once parsed, it has the fingerprint the Secret names (the public key the policy trusts). Its bytes live in this process only and are overwritten by
 * {@link SigningKey.forget} when the signing is done.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { readUserFile, resolvePath } from "./files.ts";
import { blankless, connectVault, readKey, type VaultOptions } from "./vault_access.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { readSecretDir, type SigningSetup, signingSetupOf } from "../../lib/signing/mod.ts";

/** The flags that name the key (`sign`'s and `attest`'s). */
export type SigningKeyOptions = VaultOptions & {
  readonly key?: string | undefined;
  readonly vaultKey?: string | undefined;
  readonly signingSecretDir?: string | undefined;
  readonly signingSecret?: string | undefined;
};

/** A private key held in memory for one signing. */
export interface SigningKey {
  /** The key's bytes (a file's, or the vault key's material). */
  readonly bytes: Uint8Array;
  /** How messages name it: `"ci.key.asc"`, `vault key "image-signing" (id …)`. */
  readonly label: string;
  /** Whether it was read from the vault. */
  readonly fromVault: boolean;
  /** The fingerprint the setup expects, when one does. */
  readonly fingerprint: string | undefined;
  /** The cosign key's password, when the setup holds it. */
  readonly cosignPassword: string | undefined;
  /** The signing setup mounted at `--signing-secret-dir`, when the key came from it. */
  readonly setup?: SigningSetup | undefined;
  /** Fails when the key's fingerprint is not the one the setup expects. */
  checkFingerprint(actual: string): void;
  /** Overwrites the bytes. */
  forget(): void;
}

/** Reads the key `sign` is asked to sign with. */
export async function signingKey(
  options: SigningKeyOptions,
  ctx: CommandContext,
): Promise<SigningKey> {
  const file = blankless(options.key);
  const vaultKey = blankless(options.vaultKey);
  const secretDir = blankless(options.signingSecretDir);
  if (file !== undefined && (vaultKey !== undefined || secretDir !== undefined)) {
    throw new UsageError(
      "Give one signing key: --key FILE, or a key of the vault (--vault-key, --signing-secret-dir)",
    );
  }
  if (file !== undefined) {
    const bytes = await readUserFile(ctx.io.cwd, file, "--key");
    return heldKey(bytes, { label: `"${file}"`, fromVault: false });
  }
  if (vaultKey === undefined && secretDir === undefined) {
    throw new UsageError(
      "Missing the signing key: pass --key FILE, or --vault-key NAME|ID with the vault flags " +
        "(--kms-url, --instance-id, IBMCLOUD_API_KEY), or --signing-secret-dir DIR",
    );
  }
  const setup = secretDir === undefined
    ? undefined
    : await mountedSetup(resolvePath(ctx.io.cwd, secretDir), options.signingSecret);
  const vault = await connectVault(options, ctx, {
    kmsUrl: setup?.vaultUrl,
    instanceId: setup?.instanceId,
    apiKey: setup?.apiKey,
    iamUrl: setup?.iamUrl,
    keyRing: setup?.keyRing,
  });
  const name = vaultKey ?? setup!.keyId;
  ctx.io.stderr.write(`Reading key "${name}" from ${vault.where} into memory…\n`);
  const { key, material } = await readKey(vault, name, ctx.io);
  const label = `vault key "${name}"${key.id !== name ? ` (id ${key.id})` : ""}`;
  return heldKey(material, {
    label,
    fromVault: true,
    fingerprint: setup?.fingerprint || undefined,
    cosignPassword: setup?.cosignPassword,
    setup,
  });
}

/** The setup of the Secret mounted at `dir`; a missing or empty one says what to run. */
async function mountedSetup(dir: string, name: string | undefined): Promise<SigningSetup> {
  const entries = await readSecretDir(dir);
  const secret = name ? `Secret "${name}"` : "the image-signing Secret";
  if (Object.keys(entries).length === 0) {
    throw new ToolkitError(
      `No signing setup: ${secret} (mounted at ${dir}) does not exist or is empty. ` +
        "Run `toolkit image-security setup-signing` (it writes Secret image-signing into the " +
        "template namespace) and `toolkit sync NAMESPACE` to copy it into this namespace",
    );
  }
  return signingSetupOf(entries, `${secret} (mounted at ${dir})`);
}

function heldKey(
  bytes: Uint8Array,
  about: {
    label: string;
    fromVault: boolean;
    fingerprint?: string | undefined;
    cosignPassword?: string | undefined;
    setup?: SigningSetup | undefined;
  },
): SigningKey {
  return {
    bytes,
    label: about.label,
    fromVault: about.fromVault,
    fingerprint: about.fingerprint,
    cosignPassword: about.cosignPassword,
    setup: about.setup,
    checkFingerprint(actual: string) {
      const expected = about.fingerprint;
      if (!expected || expected.toLowerCase() === actual.toLowerCase()) return;
      throw new ToolkitError(
        `Cannot sign with ${about.label}: its fingerprint is ${actual}, but the signing setup ` +
          `names ${expected} (the key the policy trusts); run setup-signing again to repair it`,
      );
    },
    forget() {
      bytes.fill(0);
    },
  };
}
