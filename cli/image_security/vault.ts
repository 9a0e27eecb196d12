/**
 * `image-security vault store|fetch`: keep an image signing key in IBM Cloud Key Protect (or
 * Hyper Protect Crypto Services) and bring it back where images are signed, into a file or
 * straight into gpg. The key is an OpenPGP private key (simple signing) or a cosign private key
 * (`cosign.key`, PEM `ENCRYPTED SIGSTORE PRIVATE KEY`, stored still encrypted with its password):
 * both are kept as they are, and a cosign key is fetched into a file for
 * `image-security sign --key` or `cosign sign --key`.
 *
 * @module
 */
import { resolve } from "node:path";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { VAULT_FETCH, VAULT_STORE } from "./vault_command.ts";
import { formatData } from "../output.ts";
import type { CliIO } from "../io.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { writeFileSafely } from "../../lib/file_write.ts";
import { isCosignPrivateKey } from "../../lib/signing/mod.ts";
import type { ProcessRunner } from "../../lib/process.ts";
import {
  aliasProblem,
  describeKey,
  fetchKeyMaterial,
  KeyInUseError,
  type KeySummary,
  MAX_ALIASES_PER_KEY,
  type OldKeyAction,
  resolveKey,
  storeKey,
} from "../../lib/vault/mod.ts";
import { blankless, connectVault } from "./vault_access.ts";

/**
 * `vault store <name> --key FILE`: stores the private key file in the vault as a standard key
 * named `<name>` with aliases (`--alias`, repeatable; the name by default), so that IBM's own
 * tools reach it by alias as toolkit does; prints `<id> <alias,alias>` on stdout (or `-o
 * json|yaml`) and progress on stderr.
 *
 * A name or alias another key holds is refused, unless `--replace`: then the new key is stored,
 * the aliases move to it, and the old key is deleted or kept (`--old-key delete|keep`, asked on
 * a terminal when not given). Key Protect cannot suspend a standard key, so there is no third
 * choice.
 *
 * Flags: `--kms-url`/`KMS_URL`, `--instance-id`/`KMS_INSTANCE_ID`, `--token`/`KMS_TOKEN` or
 * `--api-key`/`IBMCLOUD_API_KEY`/`--api-key-file` (exchanged at `--iam-url`),
 * `--key-ring`/`KMS_KEY_RING`,
 * `--key`, and optionally `--description`.
 */
export async function runVaultStore(
  options: OptionsOf<typeof VAULT_STORE>,
  ctx: CommandContext,
): Promise<number> {
  const { io } = ctx;
  const name = requireName(options.name);
  const keyPath = blankless(options.key);
  if (keyPath === undefined) {
    throw new UsageError(
      "Missing --key: the private key file to store " +
        "(for a gpg key: gpg --export-secret-keys --armor <fingerprint> > key.asc; " +
        "for cosign: cosign.key)",
    );
  }
  const aliases = storeAliases(name, options.alias);
  const replace = replaceChoice(options, ctx);
  const vault = await connectVault(options, ctx);
  const payload = await readKeyFile(keyPath, io.cwd);

  io.stderr.write(
    `Storing "${keyPath}" (${payload.length} bytes) as key "${name}" with ` +
      `${aliases.length === 1 ? "alias" : "aliases"} ${aliases.join(", ")} in ${vault.where}...\n`,
  );
  const description = blankless(options.description);
  let stored;
  try {
    stored = await storeKey(vault.client, {
      name,
      payload,
      aliases,
      ...(description !== undefined ? { description } : {}),
      ...(replace !== undefined ? { replace } : {}),
    }, {
      now: ctx.clock.now,
      sleep: ctx.clock.sleep,
      progress: (message) => io.stderr.write(`${message}\n`),
    });
  } catch (error) {
    if (error instanceof KeyInUseError && replace === undefined) {
      // --replace (or other --alias values) on the command line is the answer: a usage error.
      throw new UsageError(
        `${error.message}\nTo rotate, pass --replace with --old-key delete (the old key is ` +
          `destroyed; Key Protect keeps an imported key restorable for 30 days) or --old-key keep ` +
          `(it stays active under its id, without the aliases); or choose other --alias values.`,
        { cause: error },
      );
    }
    throw error;
  }
  if (options.output) {
    io.stdout.write(formatData({
      id: stored.id,
      name,
      aliases: stored.aliases,
      ...(stored.keyRing ? { keyRing: stored.keyRing } : {}),
      vault: vault.where,
      ...(stored.replaced.length > 0
        ? {
          replaced: stored.replaced.map((r) => ({
            id: r.key.id,
            name: r.key.name,
            action: r.action,
            aliasesMoved: r.aliasesMoved,
          })),
        }
        : {}),
    }, options.output));
  } else {
    io.stdout.write(`${stored.id} ${stored.aliases.join(",")}\n`);
  }
  for (const r of stored.replaced) {
    io.stderr.write(`Replaced key ${describeKey(r.key)}: ${r.action}\n`);
  }
  io.stderr.write(
    `Stored key "${name}" with id ${stored.id} and ` +
      `${stored.aliases.length === 1 ? "alias" : "aliases"} ${stored.aliases.join(", ")}\n`,
  );
  return 0;
}

/** The aliases to give a stored key: `--alias` values, else the name; each a valid alias. */
function storeAliases(name: string, given: readonly string[]): string[] {
  const aliases = given.map((a) => a.trim()).filter((a) => a !== "");
  if (aliases.length === 0) {
    const problem = aliasProblem(name);
    if (problem) {
      throw new UsageError(
        `Cannot use the name "${name}" as the key's alias (${problem}): pass --alias ALIAS`,
      );
    }
    return [name];
  }
  if (aliases.length > MAX_ALIASES_PER_KEY) {
    throw new UsageError(`Too many --alias values: a key has at most ${MAX_ALIASES_PER_KEY}`);
  }
  for (const alias of aliases) {
    const problem = aliasProblem(alias);
    if (problem) throw new UsageError(`Cannot use --alias "${alias}": ${problem}`);
  }
  const unique = [...new Set(aliases)];
  return unique;
}

/** What `--replace` and `--old-key` ask for: undefined (refuse), an action, or a question. */
function replaceChoice(
  options: OptionsOf<typeof VAULT_STORE>,
  ctx: CommandContext,
): OldKeyAction | ((holders: readonly KeySummary[]) => Promise<OldKeyAction>) | undefined {
  const oldKey = options.oldKey;
  if (!options.replace) {
    if (oldKey !== undefined) throw new UsageError("--old-key goes with --replace");
    return undefined;
  }
  if (oldKey !== undefined) return oldKey;
  if (!ctx.io.interactive) {
    throw new UsageError(
      "--replace needs --old-key delete (the old key is destroyed) or --old-key keep (it stays " +
        "active, without the aliases)",
    );
  }
  return (holders) => {
    for (const holder of holders) ctx.io.stderr.write(`In the way: ${describeKey(holder)}\n`);
    return ctx.terminal.askChoice<OldKeyAction>("What happens to the key it replaces?", [
      { value: "delete", label: "Delete it", hint: "Key Protect keeps it restorable 30 days" },
      { value: "keep", label: "Keep it", hint: "active under its id, without the aliases" },
    ]);
  };
}

/**
 * `vault fetch <id|alias|name> --key FILE | --import`: finds one active standard key by id,
 * alias or name (a name several active keys share is refused, listing them; keys that are not
 * active never count), says which key it chose, and writes it to a new file with mode 0600
 * (`--force` replaces an existing file) and/or imports it into gpg (`GNUPGHOME` from the
 * environment), printing the imported fingerprints on stdout.
 */
export async function runVaultFetch(
  options: OptionsOf<typeof VAULT_FETCH>,
  ctx: CommandContext,
): Promise<number> {
  const { io } = ctx;
  const name = requireName(options.name);
  const keyPath = blankless(options.key);
  const importIntoGpg = options.import;
  const force = options.force;
  if (keyPath === undefined && !importIntoGpg) {
    throw new UsageError(
      "Choose where the key goes: --key FILE writes it to a file (mode 0600), " +
        "--import imports it into gpg",
    );
  }
  const vault = await connectVault(options, ctx);
  const file = keyPath === undefined ? undefined : resolve(io.cwd, keyPath);
  if (file !== undefined && !force && await exists(file)) {
    throw new UsageError(
      `Cannot write "${keyPath}": the file exists; pass --force to replace it`,
    );
  }

  io.stderr.write(`Fetching key "${name}" from ${vault.where}...\n`);
  const resolved = await resolveKey(vault.client, name);
  for (const note of resolved.notes) io.stderr.write(`note: ${note}\n`);
  io.stderr.write(`Using key ${describeKey(resolved.key)}, found by ${resolved.via}\n`);
  const key = { ...resolved.key, payload: await fetchKeyMaterial(vault.client, resolved.key) };
  const label = key.name && key.name !== name
    ? `"${name}" (${key.name}, id ${key.id})`
    : `"${name}" (id ${key.id})`;
  const cosignKey = isCosignPrivateKey(key.payload);
  if (importIntoGpg && cosignKey) {
    throw new UsageError(
      `Cannot import key "${name}" into gpg: it is a cosign private key, not an OpenPGP key; ` +
        `write it to a file with --key cosign.key (and sign with --key cosign.key)`,
    );
  }

  if (file !== undefined && keyPath !== undefined) {
    await writeFileSafely(file, key.payload, {
      name: keyPath,
      mode: 0o600,
      exactMode: true,
      ifExists: force ? "replace" : "refuse",
      existsHint: "pass --force to replace it",
    });
    io.stderr.write(
      `Wrote ${cosignKey ? "cosign key" : "key"} ${label} to ${keyPath} (mode 0600)\n`,
    );
  }
  let fingerprints: string[] = [];
  if (importIntoGpg) {
    fingerprints = await gpgImport(key.payload, name, io, ctx.processes);
    if (!options.output) {
      for (const fingerprint of fingerprints) io.stdout.write(`${fingerprint}\n`);
    }
    const signBy = `skopeo copy --sign-by ${fingerprints[0]} docker://SOURCE docker://DESTINATION`;
    io.stderr.write(
      `Imported key ${label} into gpg: ${fingerprints.join(", ")}\nSign with: ${signBy}\n`,
    );
  }
  if (options.output) {
    io.stdout.write(formatData({
      id: key.id,
      name: key.name,
      ...(key.aliases && key.aliases.length > 0 ? { aliases: key.aliases } : {}),
      foundBy: resolved.via,
      ...(keyPath !== undefined ? { file: keyPath } : {}),
      ...(importIntoGpg ? { imported: fingerprints } : {}),
    }, options.output));
  }
  return 0;
}

function requireName(given: string): string {
  const name = blankless(given);
  if (name === undefined) throw new UsageError("Missing the key's name (or id)");
  return name;
}

/** Reads the key file and refuses what is clearly not a private key. */
async function readKeyFile(keyPath: string, cwd: string): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(resolve(cwd, keyPath));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Cannot read key file "${keyPath}": no such file`, { cause: error });
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new ToolkitError(`Cannot read key file "${keyPath}": ${detail}`, { cause: error });
  }
  if (bytes.length === 0) throw new UsageError(`Cannot store "${keyPath}": the file is empty`);
  const kind = publicKeyKind(bytes);
  if (kind) {
    throw new UsageError(
      `Cannot store "${keyPath}": it holds ${kind}, not a private key` +
        (kind.includes("OpenPGP")
          ? "; export the private key with: gpg --export-secret-keys --armor <fingerprint>"
          : ""),
    );
  }
  return bytes;
}

/** What public material the bytes are, if they clearly are public (else undefined). */
function publicKeyKind(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder().decode(bytes.subarray(0, 200)).trimStart();
  if (head.startsWith("-----BEGIN PGP PUBLIC KEY BLOCK-----")) return "an OpenPGP public key";
  if (head.startsWith("-----BEGIN PUBLIC KEY-----")) return "a PEM public key";
  if (head.startsWith("-----BEGIN CERTIFICATE-----")) return "a certificate";
  const first = bytes[0]!;
  if ((first & 0x80) !== 0) {
    // OpenPGP packet header: new format (bit 6 set) or old format.
    const tag = (first & 0x40) !== 0 ? first & 0x3f : (first >> 2) & 0x0f;
    if (tag === 6) return "an OpenPGP public key (binary)";
  }
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path); // a dangling link is no file: the key is written through it
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Imports the key into gpg (`gpg --batch --import`, the key on stdin, `GNUPGHOME` from the
 * environment) and returns the fingerprints of the secret keys gpg reported as imported.
 */
async function gpgImport(
  payload: Uint8Array,
  name: string,
  io: CliIO,
  processes: ProcessRunner,
): Promise<string[]> {
  const action = `Cannot import key "${name}" into gpg`;
  const env: Record<string, string> = {};
  if (io.env.GNUPGHOME) env.GNUPGHOME = io.env.GNUPGHOME;
  let output;
  try {
    output = await processes.output("gpg", {
      args: ["--batch", "--status-fd", "1", "--import"],
      env,
      stdin: payload,
    });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolkitError(`${action}: gpg is not installed (GnuPG 2.2 or later is needed)`, {
        cause: error,
      });
    }
    throw new ToolkitError(`${action}: ${error instanceof Error ? error.message : error}`, {
      cause: error,
    });
  }
  const status = new TextDecoder().decode(output.stdout);
  const messages = new TextDecoder().decode(output.stderr).trim();

  // IMPORT_OK lines name the primary keys gpg took (new or unchanged, public or secret):
  // keep those gpg now holds a secret for.
  const fingerprints: string[] = [];
  for (const line of status.split("\n")) {
    const match = /^\[GNUPG:\] IMPORT_OK \d+ ([0-9A-F]+)/.exec(line.trim());
    if (match && !fingerprints.includes(match[1]!)) fingerprints.push(match[1]!);
  }
  const secrets = fingerprints.length > 0 ? await secretFingerprints(processes, env) : [];
  const imported = fingerprints.filter((f) => secrets.includes(f));
  if (!output.success || imported.length === 0) {
    const why = output.success
      ? "gpg imported no secret key (is the stored key a private key?)"
      : `gpg exited with status ${output.code}`;
    throw new ToolkitError(`${action}: ${why}${messages ? `: ${lastLines(messages, 5)}` : ""}`);
  }
  if (messages) io.stderr.write(`${messages}\n`);
  return imported;
}

/** The fingerprints of the primary keys gpg has secrets for. */
async function secretFingerprints(
  processes: ProcessRunner,
  env: Record<string, string>,
): Promise<string[]> {
  const output = await processes.output("gpg", {
    args: ["--batch", "--with-colons", "--list-secret-keys"],
    env,
  });
  const fingerprints: string[] = [];
  let inPrimary = false;
  for (const line of new TextDecoder().decode(output.stdout).split("\n")) {
    const fields = line.split(":");
    if (fields[0] === "sec") inPrimary = true;
    else if (fields[0] === "ssb") inPrimary = false;
    else if (fields[0] === "fpr" && inPrimary && fields[9]) {
      fingerprints.push(fields[9]);
      inPrimary = false;
    }
  }
  return fingerprints;
}

function lastLines(text: string, count: number): string {
  return text.split("\n").slice(-count).join(" / ");
}
