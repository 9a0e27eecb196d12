/**
 * `toolkit image-security keygen`: makes an OpenPGP key pair that gpg and skopeo accept
 * (RSA-3072 or Ed25519 as gpg 2.2 makes it), writes the armoured public key and the private key
 * (mode 0600), and prints the fingerprint.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { KEYGEN } from "./keygen_command.ts";
import { printData } from "../output.ts";
import { readPassphrase, resolvePath, writeNewFile } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import { generateKeyPair } from "../../lib/signature/mod.ts";

function slug(name: string, email: string | undefined): string {
  const base = (email?.split("@")[0] ?? name).toLowerCase().replace(/[^a-z0-9._-]+/g, "-");
  return base.replace(/^-+|-+$/g, "") || "signing-key";
}

/** Runs `keygen`. */
export async function run(
  options: OptionsOf<typeof KEYGEN>,
  ctx: CommandContext,
): Promise<number> {
  const format = options.output;
  const name = options.name.trim();
  const email = options.email || undefined;
  if (!name) throw new UsageError("Cannot make a key without a name: pass --name");
  const type = options.type;
  const base = slug(name, email);
  const publicPath = resolvePath(ctx.io.cwd, options.publicKey || `${base}.pub.asc`);
  const privatePath = resolvePath(ctx.io.cwd, options.privateKey || `${base}.key.asc`);
  const passphrase = await readPassphrase(ctx.io.cwd, options);
  const force = options.force;
  for (const path of [publicPath, privatePath]) {
    if (!force && (await Deno.lstat(path).then(() => true, () => false))) {
      throw new UsageError(`Cannot write "${path}": the file exists (use --force to replace it)`);
    }
  }
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
