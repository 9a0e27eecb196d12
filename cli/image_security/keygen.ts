/**
 * `toolkit image-security keygen`: makes a key pair, writes the public key and the private key
 * (mode 0600, whatever the old file's mode) and prints the fingerprint.
 *
 * - `--type rsa|ed25519`: an OpenPGP key that gpg and skopeo accept (RSA-3072 or Ed25519 as gpg
 *   2.2 makes it), for simple signing, armoured.
 * - `--type ecdsa-p256`: an ECDSA P-256 key in cosign's files (`cosign.pub`, PEM `PUBLIC KEY`;
 *   `cosign.key`, PEM `ENCRYPTED SIGSTORE PRIVATE KEY`), for cosign signatures: cosign signs
 *   with it as with a key of its own `generate-key-pair`. Its password comes from
 *   `--passphrase-file`, `$COSIGN_PASSWORD` or the terminal; else it is empty, as cosign's with
 *   `COSIGN_PASSWORD=""`, and the command says so. The fingerprint is the hex SHA-256 of the
 *   public key's DER.
 *
 * Both files are written through lib/file_write.ts (beside the target and renamed, through
 * symbolic links); one file for both keys is a usage error that writes nothing, also with
 * `--force`.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { KEYGEN } from "./keygen_command.ts";
import { printData } from "../output.ts";
import { cosignPassword } from "./cosign_password.ts";
import { readPassphrase, resolvePath } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import { assertDistinctFiles, writeFilesSafely } from "../../lib/file_write.ts";
import { generateKeyPair } from "../../lib/signing/mod.ts";
import { generateCosignKeyPair, publicKeySha256 } from "../../lib/signing/mod.ts";

function slug(name: string, email: string | undefined): string {
  const base = (email?.split("@")[0] ?? name).toLowerCase().replace(/[^a-z0-9._-]+/g, "-");
  return base.replace(/^-+|-+$/g, "") || "signing-key";
}

/** Where the two key files go, checked before the key is made. */
interface KeyFiles {
  readonly publicPath: string;
  readonly privatePath: string;
  readonly force: boolean | undefined;
}

/** Resolves `--public-key`/`--private-key` (or the defaults) and refuses what cannot be written. */
async function keyFiles(
  options: OptionsOf<typeof KEYGEN>,
  ctx: CommandContext,
  defaults: { publicKey: string; privateKey: string },
): Promise<KeyFiles> {
  const publicName = options.publicKey || defaults.publicKey;
  const privateName = options.privateKey || defaults.privateKey;
  const publicPath = resolvePath(ctx.io.cwd, publicName);
  const privatePath = resolvePath(ctx.io.cwd, privateName);
  const force = options.force;
  // One file for both keys would keep only the last one written, whatever --force says.
  await assertDistinctFiles([
    { path: publicPath, label: `--public-key "${publicName}"` },
    { path: privatePath, label: `--private-key "${privateName}"` },
  ]);
  for (const path of [publicPath, privatePath]) {
    if (!force && (await Deno.stat(path).then(() => true, () => false))) {
      throw new UsageError(`Cannot write "${path}": the file exists (use --force to replace it)`);
    }
  }
  return { publicPath, privatePath, force };
}

/** Writes both keys (the private one with mode 0600 exactly) and says so. */
async function writeKeys(
  files: KeyFiles,
  keys: { privateKey: string; publicKey: string },
  ctx: CommandContext,
): Promise<void> {
  const ifExists = files.force ? "replace" : "refuse";
  const existsHint = "use --force to replace it";
  await writeFilesSafely([
    { path: files.privatePath, data: keys.privateKey, mode: 0o600, exactMode: true },
    { path: files.publicPath, data: keys.publicKey, mode: 0o644 },
  ].map((file) => ({ ...file, ifExists, existsHint })));
  ctx.io.stderr.write(`Wrote the private key to ${files.privatePath} (mode 0600)\n`);
  ctx.io.stderr.write(`Wrote the public key to ${files.publicPath}\n`);
}

/** Runs `keygen`. */
export async function run(
  options: OptionsOf<typeof KEYGEN>,
  ctx: CommandContext,
): Promise<number> {
  if (options.type === "ecdsa-p256") return await cosignKeygen(options, ctx);
  const format = options.output;
  const name = options.name?.trim() ?? "";
  const email = options.email || undefined;
  if (!name) throw new UsageError("Cannot make an OpenPGP key without a name: pass --name");
  const type = options.type;
  const base = slug(name, email);
  const files = await keyFiles(options, ctx, {
    publicKey: `${base}.pub.asc`,
    privateKey: `${base}.key.asc`,
  });
  const passphrase = await readPassphrase(ctx.io.cwd, options);
  ctx.io.stderr.write(`Making an ${type === "rsa" ? "RSA-3072" : "Ed25519"} key for ${name}…\n`);
  const pair = await generateKeyPair({
    name,
    type,
    ...(email ? { email } : {}),
    ...(passphrase !== undefined ? { passphrase } : {}),
  });
  await writeKeys(files, {
    privateKey: pair.privateKeyArmored,
    publicKey: pair.publicKeyArmored,
  }, ctx);
  printData(ctx.io.stdout, format, {
    fingerprint: pair.fingerprint,
    type,
    userId: email ? `${name} <${email}>` : name,
    publicKey: files.publicPath,
    privateKey: files.privatePath,
  }, () => `${pair.fingerprint}\n`);
  return 0;
}

/** `keygen --type ecdsa-p256`: cosign's key files. */
async function cosignKeygen(
  options: OptionsOf<typeof KEYGEN>,
  ctx: CommandContext,
): Promise<number> {
  const { io } = ctx;
  for (const flag of ["name", "email"] as const) {
    if (options[flag] !== undefined) {
      throw new UsageError(
        `Cannot use --${flag} with --type ecdsa-p256: a cosign key names no user (only OpenPGP keys do)`,
      );
    }
  }
  const files = await keyFiles(options, ctx, {
    publicKey: "cosign.pub",
    privateKey: "cosign.key",
  });
  const found = await cosignPassword(ctx, options, {
    message: "Password for the new private key",
    confirm: true,
  });
  if (found === undefined) {
    io.stderr.write(
      "warning: no password given (--passphrase-file, COSIGN_PASSWORD or a terminal): " +
        "the private key is encrypted with an empty password\n",
    );
  }
  io.stderr.write("Making an ECDSA P-256 key in cosign's format…\n");
  const pair = await generateCosignKeyPair({ password: found?.password ?? "" });
  await writeKeys(files, { privateKey: pair.privateKeyPem, publicKey: pair.publicKeyPem }, ctx);
  const fingerprint = (await publicKeySha256(pair.publicKeyPem)).toHex();
  printData(io.stdout, options.output, {
    fingerprint,
    type: "ecdsa-p256",
    format: "cosign",
    publicKey: files.publicPath,
    privateKey: files.privatePath,
  }, () => `${fingerprint}\n`);
  return 0;
}
