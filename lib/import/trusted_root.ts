/**
 * The sigstore `trusted_root.json` an importer makes of the PEM keys and certificates a peer's
 * configuration holds (policy-controller's TrustRoot `sigstoreKeys`, Connaisseur's
 * `host.rekorPubkey`/`fulcioCert`/`ctLogPubkey`), and its check by the parser the webhook uses.
 *
 * Certificates and keys become DER, each log's id the SHA-256 of its key's DER (as sigstore
 * computes it), every entry valid from the epoch (the peers' keys carry no validity).
 *
 * @module
 */
import { createHash, createPublicKey, X509Certificate } from "node:crypto";
import { decodeBase64, encodeBase64 } from "../base64.ts";
import { loadTrustRootParser } from "../sigstore/mod.ts";
import { refuse } from "./refusal.ts";

/** The media type of the trusted roots made. */
const MEDIA_TYPE = "application/vnd.dev.sigstore.trustedroot+json;version=0.1";

/** The start of validity given to every entry: the peers' keys have none. */
const VALID_FROM = "1970-01-01T00:00:00Z";

/** A transparency log (Rekor) or CT log: its URL, hash algorithm and PEM public key. */
export interface PemLog {
  readonly baseUrl: string;
  /** e.g. `sha-256` (the default when absent). */
  readonly hashAlgorithm?: unknown;
  readonly publicKeyPem: string;
  /** The source field of the key, for refusals. */
  readonly path: string;
}

/** A certificate authority (Fulcio) or timestamp authority: its chain as PEM. */
export interface PemAuthority {
  readonly organization?: string;
  readonly commonName?: string;
  readonly uri: string;
  readonly certChainPem: string;
  /** The source field of the chain, for refusals. */
  readonly path: string;
}

/** The parts of a trusted root, each entry PEM. */
export interface PemTrustedRoot {
  readonly tlogs: readonly PemLog[];
  readonly certificateAuthorities: readonly PemAuthority[];
  readonly ctlogs: readonly PemLog[];
  readonly timestampAuthorities: readonly PemAuthority[];
}

function derBlocks(pem: string, label: string, path: string): Uint8Array[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`, "g");
  const blocks = [...pem.matchAll(pattern)].map((m) => {
    try {
      return decodeBase64(m[1]!.replace(/\s+/g, ""));
    } catch {
      return refuse(path, `holds a PEM ${label} that is not base64`);
    }
  });
  if (blocks.length === 0) refuse(path, `holds no PEM ${label}`);
  return blocks;
}

function keyDetails(der: Uint8Array, path: string): string {
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(der), format: "der", type: "spki" });
  } catch {
    return refuse(path, "is not a PKIX public key");
  }
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case "ec": {
      const curve =
        { prime256v1: "P256_SHA_256", secp384r1: "P384_SHA_384", secp521r1: "P521_SHA_512" }[
          details.namedCurve ?? ""
        ];
      if (curve === undefined) refuse(path, `an ECDSA key on ${details.namedCurve}`);
      return `PKIX_ECDSA_${curve}`;
    }
    case "ed25519":
      return "PKIX_ED25519";
    case "rsa": {
      const bits = details.modulusLength;
      if (bits !== 2048 && bits !== 3072 && bits !== 4096) {
        refuse(path, `an RSA key of ${bits} bits`);
      }
      return `PKIX_RSA_PKCS1V15_${bits}_SHA256`;
    }
  }
  return refuse(path, `a ${key.asymmetricKeyType} key`);
}

function hashAlgorithm(value: unknown, path: string): string {
  const name = typeof value === "string" ? value.toLowerCase().replace(/[-_]/g, "") : "sha256";
  const known: Record<string, string> = {
    sha256: "SHA2_256",
    sha384: "SHA2_384",
    sha512: "SHA2_512",
  };
  return known[name] ?? refuse(path, `unknown hash algorithm ${String(value)}`);
}

function authority(raw: PemAuthority): Record<string, unknown> {
  const certificates = derBlocks(raw.certChainPem, "CERTIFICATE", raw.path);
  for (const [i, der] of certificates.entries()) {
    try {
      new X509Certificate(der);
    } catch {
      refuse(raw.path, `certificate ${i + 1} does not parse`);
    }
  }
  return {
    subject: { organization: raw.organization ?? "", commonName: raw.commonName ?? "" },
    uri: raw.uri,
    certChain: { certificates: certificates.map((der) => ({ rawBytes: encodeBase64(der) })) },
    validFor: { start: VALID_FROM },
  };
}

function log(raw: PemLog, hashPath: string): Record<string, unknown> {
  const [der] = derBlocks(raw.publicKeyPem, "PUBLIC KEY", raw.path);
  return {
    baseUrl: raw.baseUrl,
    hashAlgorithm: hashAlgorithm(raw.hashAlgorithm, hashPath),
    publicKey: {
      rawBytes: encodeBase64(der!),
      keyDetails: keyDetails(der!, raw.path),
      validFor: { start: VALID_FROM },
    },
    logId: { keyId: createHash("sha256").update(der!).digest("base64") },
  };
}

/**
 * The `trusted_root.json` text of `root`; throws a `Refusal` (refusal.ts) naming the field
 * whose PEM does not parse. `hashPathOf` names a log's hash algorithm field.
 */
export function trustedRootJson(
  root: PemTrustedRoot,
  hashPathOf: (log: PemLog) => string = (l) => l.path,
): string {
  const json = {
    mediaType: MEDIA_TYPE,
    tlogs: root.tlogs.map((l) => log(l, hashPathOf(l))),
    certificateAuthorities: root.certificateAuthorities.map(authority),
    ctlogs: root.ctlogs.map((l) => log(l, hashPathOf(l))),
    timestampAuthorities: root.timestampAuthorities.map(authority),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/**
 * Parses `text` as the webhook will: undefined when it is accepted, else the parser's reason.
 */
export async function trustedRootProblem(text: string, label: string): Promise<string | undefined> {
  const { InvalidTrustRootError, parseTrustRoot } = await loadTrustRootParser();
  try {
    await parseTrustRoot(text, label);
    return undefined;
  } catch (error) {
    if (!(error instanceof InvalidTrustRootError)) throw error;
    return error.message;
  }
}
