/**
 * The importer of sigstore policy-controller's `TrustRoot` (`policy.sigstore.dev/v1alpha1`), the
 * resource a ClusterImagePolicy's `trustRootRef` names. One with `spec.sigstoreKeys` becomes the
 * ConfigMap of the same name holding the equivalent sigstore `trusted_root.json` (the name the
 * converted policies' `trustRootRef` already use), checked by the parser the webhook uses:
 *
 * | policy-controller `sigstoreKeys`                      | `trusted_root.json`                                                   |
 * | ----------------------------------------------------- | --------------------------------------------------------------------- |
 * | `certificateAuthorities[]{subject, uri, certChain}`    | `certificateAuthorities[]{subject, uri, certChain.certificates[]}`     |
 * | `timestampAuthorities[]` (the same fields)             | `timestampAuthorities[]`                                              |
 * | `tLogs[]{baseURL, hashAlgorithm, publicKey}`           | `tlogs[]{baseUrl, hashAlgorithm, publicKey{rawBytes, keyDetails}, logId}` |
 * | `ctLogs[]` (the same fields)                          | `ctlogs[]`                                                            |
 *
 * `certChain` and `publicKey` are base64 of PEM; they become DER, the log ids the SHA-256 of the
 * key's DER (as sigstore computes them), each entry valid from the epoch (policy-controller's keys
 * carry no validity). `remote` and `repository` (a TUF root and mirror) are refused: toolkit reads
 * a trusted_root.json, which such a repository serves as a target (`cosign trusted-root create`).
 *
 * @module
 */
import { createHash, createPublicKey, X509Certificate } from "node:crypto";
import { decodeBase64, encodeBase64 } from "../base64.ts";
import { loadTrustRootParser } from "../sigstore/mod.ts";
import { objectName } from "./naming.ts";
import { trustRootObject } from "./objects.ts";
import { POLICY_CONTROLLER_GROUP } from "./policy_controller.ts";
import type { ImportContext, ImportedRule, ImportSource, PolicyImporter } from "./types.ts";

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The media type of the trusted roots made. */
const MEDIA_TYPE = "application/vnd.dev.sigstore.trustedroot+json;version=0.1";

/** The start of validity given to every entry: policy-controller's keys have none. */
const VALID_FROM = "1970-01-01T00:00:00Z";

class Refusal extends Error {
  constructor(readonly path: string, readonly reason: string) {
    super(reason);
  }
}

function refuse(path: string, reason: string): never {
  throw new Refusal(path, reason);
}

/** The PEM text of a base64 field (policy-controller's `[]byte` of PEM). */
function pemOf(value: unknown, path: string): string {
  if (typeof value !== "string" || value.trim() === "") refuse(path, "is required");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      decodeBase64(value.replace(/\s+/g, "")),
    );
  } catch {
    return refuse(path, "is not base64 of PEM");
  }
}

function derBlocks(pem: string, label: string, path: string): Uint8Array[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`, "g");
  const blocks = [...pem.matchAll(pattern)].map((m) => decodeBase64(m[1]!.replace(/\s+/g, "")));
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

function list(raw: Obj, key: string, path: string): Obj[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) refuse(`${path}.${key}`, "must be a list");
  return value.map((v, i) => isObject(v) ? v : refuse(`${path}.${key}[${i}]`, "must be an object"));
}

function authority(raw: Obj, path: string): Obj {
  const subject = isObject(raw.subject) ? raw.subject : {};
  const certificates = derBlocks(
    pemOf(raw.certChain, `${path}.certChain`),
    "CERTIFICATE",
    `${path}.certChain`,
  );
  for (const [i, der] of certificates.entries()) {
    try {
      new X509Certificate(der);
    } catch {
      refuse(`${path}.certChain`, `certificate ${i + 1} does not parse`);
    }
  }
  return {
    subject: {
      organization: String(subject.organization ?? ""),
      commonName: String(subject.commonName ?? ""),
    },
    uri: String(raw.uri ?? ""),
    certChain: { certificates: certificates.map((der) => ({ rawBytes: encodeBase64(der) })) },
    validFor: { start: VALID_FROM },
  };
}

function log(raw: Obj, path: string): Obj {
  const [der] = derBlocks(
    pemOf(raw.publicKey, `${path}.publicKey`),
    "PUBLIC KEY",
    `${path}.publicKey`,
  );
  return {
    baseUrl: String(raw.baseURL ?? ""),
    hashAlgorithm: hashAlgorithm(raw.hashAlgorithm, `${path}.hashAlgorithm`),
    publicKey: {
      rawBytes: encodeBase64(der!),
      keyDetails: keyDetails(der!, `${path}.publicKey`),
      validFor: { start: VALID_FROM },
    },
    logId: { keyId: createHash("sha256").update(der!).digest("base64") },
  };
}

/** The trusted_root.json of `sigstoreKeys` (at `path`). */
export function trustedRootOf(keys: Obj, path: string): string {
  const root = {
    mediaType: MEDIA_TYPE,
    tlogs: list(keys, "tLogs", path).map((l, i) => log(l, `${path}.tLogs[${i}]`)),
    certificateAuthorities: list(keys, "certificateAuthorities", path).map((a, i) =>
      authority(a, `${path}.certificateAuthorities[${i}]`)
    ),
    ctlogs: list(keys, "ctLogs", path).map((l, i) => log(l, `${path}.ctLogs[${i}]`)),
    timestampAuthorities: list(keys, "timestampAuthorities", path).map((a, i) =>
      authority(a, `${path}.timestampAuthorities[${i}]`)
    ),
  };
  return `${JSON.stringify(root, null, 2)}\n`;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

async function convertTrustRoot(
  document: Obj,
  index: number,
  context: ImportContext,
): Promise<ImportedRule> {
  const meta = isObject(document.metadata) ? document.metadata : {};
  const name = typeof meta.name === "string" ? meta.name : "";
  const source: ImportSource = {
    apiVersion: String(document.apiVersion),
    kind: String(document.kind),
    name,
    document: index,
  };
  try {
    if (name === "") refuse("metadata.name", "is required");
    const spec = isObject(document.spec) ? document.spec : refuse("spec", "must be an object");
    for (const tuf of ["remote", "repository"]) {
      if (spec[tuf] !== undefined && spec[tuf] !== null) {
        refuse(
          `spec.${tuf}`,
          "a TUF repository: toolkit reads a trusted_root.json, which the repository serves as its trusted_root.json target (cosign trusted-root create, or download it) and image-security trust-root stores",
        );
      }
    }
    if (!isObject(spec.sigstoreKeys)) refuse("spec.sigstoreKeys", "is required");
    const findings = Object.keys(spec).filter((k) =>
      !["remote", "repository", "sigstoreKeys"].includes(k)
    )
      .map((k) => ({
        path: `spec.${k}`,
        kind: "unmapped" as const,
        reason: "not a field of policy-controller's schema: ignored",
      }));
    for (const key of Object.keys(spec.sigstoreKeys)) {
      if (!["certificateAuthorities", "tLogs", "ctLogs", "timestampAuthorities"].includes(key)) {
        findings.push({
          path: `spec.sigstoreKeys.${key}`,
          kind: "unmapped",
          reason: "not a field of policy-controller's schema: ignored",
        });
      }
    }
    const text = trustedRootOf(spec.sigstoreKeys, "spec.sigstoreKeys");
    const { InvalidTrustRootError, parseTrustRoot } = await loadTrustRootParser();
    try {
      await parseTrustRoot(text, `TrustRoot ${name}`);
    } catch (error) {
      if (!(error instanceof InvalidTrustRootError)) throw error;
      refuse("spec.sigstoreKeys", `the trusted_root.json made of it is refused: ${error.message}`);
    }
    // The name the converted policies' trustRootRef use: the TrustRoot's own.
    const configMap = DNS_SUBDOMAIN.test(name) ? name : objectName(name);
    return {
      source,
      objects: [trustRootObject(configMap, context.controllerNamespace, text, source)],
      findings,
      refused: false,
    };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return {
      source,
      objects: [],
      findings: [{ path: error.path, kind: "refused", reason: error.reason }],
      refused: true,
    };
  }
}

/** The importer of policy-controller's TrustRoot. */
export const POLICY_CONTROLLER_TRUST_ROOT_IMPORTER: PolicyImporter = {
  name: "sigstore-policy-controller-trustroot",
  accepts(document: unknown): boolean {
    return isObject(document) && document.kind === "TrustRoot" &&
      typeof document.apiVersion === "string" &&
      document.apiVersion.startsWith(`${POLICY_CONTROLLER_GROUP}/`);
  },
  async convert(
    document: Obj,
    index: number,
    context: ImportContext,
  ): Promise<readonly ImportedRule[]> {
    return [await convertTrustRoot(document, index, context)];
  },
};
