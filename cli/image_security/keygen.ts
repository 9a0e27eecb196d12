/**
 * `toolkit image-security keygen`: makes an OpenPGP key pair that gpg and skopeo accept
 * (RSA-3072 or Ed25519 as gpg 2.2 makes it), writes the armoured public key and the private key
 * (mode 0600, whatever the old file's mode), and prints the fingerprint. Both files are written
 * through lib/file_write.ts (beside the target and renamed, through symbolic links); one file
 * for both keys is a usage error that writes nothing, also with `--force`.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { KEYGEN } from "./keygen_command.ts";
import { printData } from "../output.ts";
import { readPassphrase, resolvePath } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import { assertDistinctFiles, writeFilesSafely } from "../../lib/file_write.ts";
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
  const publicName = options.publicKey || `${base}.pub.asc`;
  const privateName = options.privateKey || `${base}.key.asc`;
  const publicPath = resolvePath(ctx.io.cwd, publicName);
  const privatePath = resolvePath(ctx.io.cwd, privateName);
  const passphrase = await readPassphrase(ctx.io.cwd, options);
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
  ctx.io.stderr.write(`Making an ${type === "rsa" ? "RSA-3072" : "Ed25519"} key for ${name}…\n`);
  const pair = await generateKeyPair({
    name,
    type,
    ...(email ? { email } : {}),
    ...(passphrase !== undefined ? { passphrase } : {}),
  });
  const ifExists = force ? "replace" : "refuse";
  const existsHint = "use --force to replace it";
  await writeFilesSafely([
    { path: privatePath, data: pair.privateKeyArmored, mode: 0o600, exactMode: true },
    { path: publicPath, data: pair.publicKeyArmored, mode: 0o644 },
  ].map((file) => ({ ...file, ifExists, existsHint })));
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
