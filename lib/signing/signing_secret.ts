/**
 * The `image-signing` Secret: where a pipeline finds the signing key. `toolkit image-security
 * setup-signing` writes it into the template namespace with the tool-config labels, so `toolkit
 * sync` copies it into development namespaces as it copies the other tools' Secrets; the Tekton
 * Task `toolkit-image-sign` mounts it and `toolkit image-security sign --signing-secret-dir` reads
 * it; `toolkit pipeline` looks for it to decide whether a pipeline signs.
 *
 * Its entries (the first three as the Cloud-Native Toolkit's `portieris-keys` Secret named them):
 *
 * | entry               | what                                                              |
 * | ------------------- | ----------------------------------------------------------------- |
 * | `vault-url`         | the vault's base URL (Key Protect or Hyper Protect Crypto Services) |
 * | `vault-instance-id` | its instance id                                                   |
 * | `vault-key-id`      | the id of the key holding the private key (extractable)           |
 * | `vault-key-ring`    | the key ring the key is in, when one was named                    |
 * | `iam-url`           | the IAM token endpoint                                            |
 * | `apikey`            | the IBM Cloud API key the pipeline signs in to IAM with           |
 * | `fingerprint`       | the signing key's fingerprint (the key read is checked against it)  |
 * | `format`            | `simple` (OpenPGP, simple signing) or `cosign`                    |
 * | `key-secret`        | `<namespace>/<name>` of the public key Secret the policy names    |
 * | `repositories`      | the repositories the policy guards, one a line                    |
 * | `cosign-password`   | the password the cosign private key is encrypted with (cosign only) |
 * | `builder-id`        | the pipeline's SLSA `runDetails.builder.id` (its provenance's builder) |
 *
 * @module
 */
import { decodeBase64Text, encodeBase64 } from "../base64.ts";
import { ToolkitError } from "../errors.ts";
import type { KubeObject } from "../kube/mod.ts";
import type { SigningKeyFormat } from "./key_pair.ts";

/** The Secret's name. */
export const IMAGE_SIGNING_SECRET = "image-signing";

/** The Secret's entries. */
export const SIGNING_ENTRIES = {
  vaultUrl: "vault-url",
  instanceId: "vault-instance-id",
  keyId: "vault-key-id",
  keyRing: "vault-key-ring",
  iamUrl: "iam-url",
  apiKey: "apikey",
  fingerprint: "fingerprint",
  format: "format",
  keySecret: "key-secret",
  repositories: "repositories",
  cosignPassword: "cosign-password",
  builderId: "builder-id",
} as const;

/** The kinds of key a setup signs with. */
export const SIGNING_FORMATS: readonly SigningKeyFormat[] = ["simple", "cosign"];

/** A kind of key: OpenPGP for simple signing, or a cosign key. */
export type SigningFormat = SigningKeyFormat;

/** What the Secret says. */
export interface SigningSetup {
  readonly vaultUrl: string;
  readonly instanceId: string;
  readonly keyId: string;
  /** The key ring of the key, when one was named. */
  readonly keyRing?: string;
  readonly iamUrl: string;
  readonly apiKey: string;
  readonly fingerprint: string;
  readonly format: SigningFormat;
  /** `<namespace>/<name>` of the public key Secret. */
  readonly keySecret?: string;
  /** The repository patterns the policy guards. */
  readonly repositories?: readonly string[];
  /** The cosign key's password (cosign keys only). */
  readonly cosignPassword?: string;
  /** The builder id the pipeline's provenance names (`setup-signing --builder-id`). */
  readonly builderId?: string;
}

/** The Secret, or a directory where it is mounted, does not hold a usable setup. */
export class SigningSetupError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SigningSetupError";
  }
}

/** The entries of `setup`, as text. */
export function signingEntries(setup: SigningSetup): Record<string, string> {
  const E = SIGNING_ENTRIES;
  return {
    [E.vaultUrl]: setup.vaultUrl,
    [E.instanceId]: setup.instanceId,
    [E.keyId]: setup.keyId,
    ...(setup.keyRing !== undefined ? { [E.keyRing]: setup.keyRing } : {}),
    [E.iamUrl]: setup.iamUrl,
    [E.apiKey]: setup.apiKey,
    [E.fingerprint]: setup.fingerprint,
    [E.format]: setup.format,
    ...(setup.keySecret !== undefined ? { [E.keySecret]: setup.keySecret } : {}),
    ...(setup.repositories !== undefined
      ? { [E.repositories]: setup.repositories.join("\n") }
      : {}),
    ...(setup.cosignPassword !== undefined ? { [E.cosignPassword]: setup.cosignPassword } : {}),
    ...(setup.builderId !== undefined ? { [E.builderId]: setup.builderId } : {}),
  };
}

/** The Secret holding `setup`. */
export function signingSecretManifest(
  setup: SigningSetup,
  metadata: {
    readonly namespace: string;
    readonly name?: string;
    readonly labels?: Readonly<Record<string, string>>;
  },
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: metadata.name ?? IMAGE_SIGNING_SECRET,
      namespace: metadata.namespace,
      labels: { ...metadata.labels },
      annotations: {
        description:
          "How pipelines sign images: the vault and key id of the signing key, the IAM API key to read it with (toolkit image-security setup-signing)",
      },
    },
    type: "Opaque",
    data: Object.fromEntries(
      Object.entries(signingEntries(setup)).map(([k, v]) => [k, encodeBase64(v)]),
    ),
  };
}

/** The entries of a Secret as text (`data` decoded, and `stringData`). */
export function secretEntries(secret: KubeObject): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data as Record<string, string> ?? {})) {
    try {
      entries[key] = decodeBase64Text(value);
    } catch {
      // not base64: left out, reported missing if it is needed
    }
  }
  return { ...entries, ...secret.stringData as Record<string, string> | undefined };
}

/**
 * The setup the entries hold. `where` names them in errors (`Secret "tools/image-signing"`).
 *
 * @throws {SigningSetupError} naming the entries that are missing or wrong.
 */
export function signingSetupOf(
  entries: Readonly<Record<string, string>>,
  where: string,
): SigningSetup {
  const E = SIGNING_ENTRIES;
  const value = (key: string) => entries[key]?.trim() || undefined;
  const required = [E.vaultUrl, E.instanceId, E.keyId, E.apiKey];
  const missing = required.filter((key) => value(key) === undefined);
  if (missing.length > 0) {
    throw new SigningSetupError(
      `${where} lacks ${missing.map((m) => `"${m}"`).join(", ")}: ` +
        "run `toolkit image-security setup-signing` to write it again",
    );
  }
  const format = value(E.format) ?? "simple";
  if (!(SIGNING_FORMATS as readonly string[]).includes(format)) {
    throw new SigningSetupError(
      `${where} has "${E.format}" "${format}": expected ${SIGNING_FORMATS.join(" or ")}`,
    );
  }
  const repositories = value(E.repositories)?.split("\n").map((r) => r.trim()).filter(Boolean);
  const keySecret = value(E.keySecret);
  const keyRing = value(E.keyRing);
  const cosignPassword = entries[E.cosignPassword];
  const builderId = value(E.builderId);
  return {
    vaultUrl: value(E.vaultUrl)!,
    instanceId: value(E.instanceId)!,
    keyId: value(E.keyId)!,
    ...(keyRing !== undefined ? { keyRing } : {}),
    iamUrl: value(E.iamUrl) ?? "",
    apiKey: value(E.apiKey)!,
    fingerprint: value(E.fingerprint) ?? "",
    format: format as SigningFormat,
    ...(keySecret !== undefined ? { keySecret } : {}),
    ...(repositories !== undefined ? { repositories } : {}),
    ...(cosignPassword !== undefined ? { cosignPassword } : {}),
    ...(builderId !== undefined ? { builderId } : {}),
  };
}

/** The largest entry read from a mounted Secret. */
const MAX_ENTRY_BYTES = 64 * 1024;

/**
 * The entries of a Secret mounted as a directory (one file an entry; the kubelet's `..data`
 * links and directories skipped). A directory that is missing or empty gives no entries: an
 * optional Secret volume whose Secret does not exist is an empty directory.
 */
export async function readSecretDir(dir: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  let names: string[];
  try {
    names = [];
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.startsWith("..") && !entry.isDirectory) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return entries;
    throw new SigningSetupError(`Cannot read the Secret mounted at "${dir}"`, { cause: error });
  }
  for (const name of names.sort()) {
    const path = `${dir.replace(/\/+$/, "")}/${name}`;
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw new SigningSetupError(`Cannot read "${path}"`, { cause: error });
    }
    try {
      const info = await file.stat();
      if (!info.isFile) continue;
      if (info.size > MAX_ENTRY_BYTES) {
        throw new SigningSetupError(`Cannot read "${path}": ${info.size} bytes is too large`);
      }
      const bytes = new Uint8Array(info.size);
      for (let done = 0; done < bytes.length;) {
        const n = await file.read(bytes.subarray(done));
        if (n === null) break;
        done += n;
      }
      entries[name] = new TextDecoder().decode(bytes);
    } finally {
      file.close();
    }
  }
  return entries;
}
