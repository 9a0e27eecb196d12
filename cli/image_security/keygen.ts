/**
 * `toolkit image-security keygen`: makes a key pair and prints its fingerprint.
 *
 * - `--type rsa|ed25519`: an OpenPGP key that gpg and skopeo accept (RSA-3072 or Ed25519 as gpg
 *   2.2 makes it), for simple signing: the armoured public key and private key (mode 0600).
 * - `--type ecdsa-p256`: an ECDSA P-256 key in cosign's files (`cosign.pub`, PEM `PUBLIC KEY`;
 *   `cosign.key`, PEM `ENCRYPTED SIGSTORE PRIVATE KEY`, mode 0600), for cosign signatures: cosign
 *   signs with it as with a key of its own `generate-key-pair`. Its password comes from
 *   `--passphrase-file`, `$COSIGN_PASSWORD` or the terminal; else it is empty, as cosign's with
 *   `COSIGN_PASSWORD=""`, and the command says so. The fingerprint is the hex SHA-256 of the
 *   public key's DER.
 *
 * @module
 */
import type { CommandContext, OptionsOf } from "../command.ts";
import type { KEYGEN } from "../commands.ts";
import { printData } from "../output.ts";
import { cosignPassword } from "./cosign_password.ts";
import { readPassphrase, resolvePath, writeNewFile } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import { generateKeyPair } from "../../lib/signature/mod.ts";
import { generateCosignKeyPair, publicKeySha256 } from "../../lib/signature/cosign_keys.ts";

function slug(name: string, email: string | undefined): string {
  const base = (email?.split("@")[0] ?? name).toLowerCase().replace(/[^a-z0-9._-]+/g, "-");
  return base.replace(/^-+|-+$/g, "") || "signing-key";
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
  const publicPath = resolvePath(ctx.io.cwd, options.publicKey || `${base}.pub.asc`);
  const privatePath = resolvePath(ctx.io.cwd, options.privateKey || `${base}.key.asc`);
  const passphrase = await readPassphrase(ctx.io.cwd, options);
  const force = options.force;
  await refuseExisting([publicPath, privatePath], force);
  ctx.io.stderr.write(`Making an ${type === "rsa" ? "RSA-3072" : "Ed25519"} key for ${name}…\n`);
  const pair = await generateKeyPair({
    name,
    type,
    ...(email ? { email } : {}),
    ...(passphrase !== undefined ? { passphrase } : {}),
  });
  await writeNewFile(privatePath, pair.privateKeyArmored, { mode: 0o600, force });
  await writeNewFile(publicPath, pair.publicKeyArmored, { mode: 0o644, force });
  ctx.io.stderr.write(`Wrote the private key to ${privatePath} (mode 0600)\n`);
  ctx.io.stderr.write(`Wrote the public key to ${publicPath}\n`);
  printData(ctx.io.stdout, format, {
    fingerprint: pair.fingerprint,
    type,
    userId: email ? `${name} <${email}>` : name,
    publicKey: publicPath,
    privateKey: privatePath,
  }, () => `${pair.fingerprint}\n`);
  return 0;
}

async function refuseExisting(paths: string[], force: boolean | undefined): Promise<void> {
  for (const path of paths) {
    if (!force && (await Deno.lstat(path).then(() => true, () => false))) {
      throw new UsageError(`Cannot write "${path}": the file exists (use --force to replace it)`);
    }
  }
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
  const publicPath = resolvePath(io.cwd, options.publicKey || "cosign.pub");
  const privatePath = resolvePath(io.cwd, options.privateKey || "cosign.key");
  const force = options.force;
  await refuseExisting([publicPath, privatePath], force);
  const found = await cosignPassword(io, options, {
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
  await writeNewFile(privatePath, pair.privateKeyPem, { mode: 0o600, force });
  await writeNewFile(publicPath, pair.publicKeyPem, { mode: 0o644, force });
  io.stderr.write(`Wrote the private key to ${privatePath} (mode 0600)\n`);
  io.stderr.write(`Wrote the public key to ${publicPath}\n`);
  const fingerprint = (await publicKeySha256(pair.publicKeyPem)).toHex();
  printData(io.stdout, options.output, {
    fingerprint,
    type: "ecdsa-p256",
    format: "cosign",
    publicKey: publicPath,
    privateKey: privatePath,
  }, () => `${fingerprint}\n`);
  return 0;
}
