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
 * `certChain` and `publicKey` are base64 of PEM; the rest is lib/import/trusted_root.ts's, which
 * Connaisseur's importer shares (DER, log ids the SHA-256 of the key's DER, valid from the epoch). `remote` and `repository` (a TUF root and mirror) are refused: toolkit reads
 * a trusted_root.json, which such a repository serves as a target (`cosign trusted-root create`).
 *
 * @module
 */
import { decodeBase64 } from "../base64.ts";
import { objectName } from "./naming.ts";
import { Refusal, refuse } from "./refusal.ts";
import { trustRootObject } from "./objects.ts";
import {
  Findings,
  POLICY_CONTROLLER_GROUP,
  policyControllerSourceOf,
} from "./policy_controller.ts";
import {
  type PemAuthority,
  type PemLog,
  trustedRootJson,
  trustedRootProblem,
} from "./trusted_root.ts";
import type { ImportContext, ImportedRule, PolicyImporter } from "./types.ts";

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

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

function list(raw: Obj, key: string, path: string): Obj[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) refuse(`${path}.${key}`, "must be a list");
  return value.map((v, i) => isObject(v) ? v : refuse(`${path}.${key}[${i}]`, "must be an object"));
}

function authority(raw: Obj, path: string): PemAuthority {
  const subject = isObject(raw.subject) ? raw.subject : {};
  return {
    organization: String(subject.organization ?? ""),
    commonName: String(subject.commonName ?? ""),
    uri: String(raw.uri ?? ""),
    certChainPem: pemOf(raw.certChain, `${path}.certChain`),
    path: `${path}.certChain`,
  };
}

function log(raw: Obj, path: string): PemLog & { readonly at: string } {
  return {
    baseUrl: String(raw.baseURL ?? ""),
    hashAlgorithm: raw.hashAlgorithm,
    publicKeyPem: pemOf(raw.publicKey, `${path}.publicKey`),
    path: `${path}.publicKey`,
    at: path,
  };
}

/** The trusted_root.json of `sigstoreKeys` (at `path`). */
function trustedRootOf(keys: Obj, path: string): string {
  return trustedRootJson(
    {
      tlogs: list(keys, "tLogs", path).map((l, i) => log(l, `${path}.tLogs[${i}]`)),
      certificateAuthorities: list(keys, "certificateAuthorities", path).map((a, i) =>
        authority(a, `${path}.certificateAuthorities[${i}]`)
      ),
      ctlogs: list(keys, "ctLogs", path).map((l, i) => log(l, `${path}.ctLogs[${i}]`)),
      timestampAuthorities: list(keys, "timestampAuthorities", path).map((a, i) =>
        authority(a, `${path}.timestampAuthorities[${i}]`)
      ),
    },
    (l) => `${(l as PemLog & { at: string }).at}.hashAlgorithm`,
  );
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

async function convertTrustRoot(
  document: Obj,
  index: number,
  context: ImportContext,
): Promise<ImportedRule> {
  const source = policyControllerSourceOf(document, index);
  const name = source.name;
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
    const f = new Findings();
    f.unknownFields(spec, ["remote", "repository", "sigstoreKeys"], "spec");
    f.unknownFields(
      spec.sigstoreKeys,
      ["certificateAuthorities", "tLogs", "ctLogs", "timestampAuthorities"],
      "spec.sigstoreKeys",
    );
    const text = trustedRootOf(spec.sigstoreKeys, "spec.sigstoreKeys");
    const problem = await trustedRootProblem(text, `TrustRoot ${name}`);
    if (problem !== undefined) {
      refuse("spec.sigstoreKeys", `the trusted_root.json made of it is refused: ${problem}`);
    }
    // The name the converted policies' trustRootRef use: the TrustRoot's own.
    const configMap = DNS_SUBDOMAIN.test(name) ? name : objectName(name);
    return {
      source,
      objects: [trustRootObject(configMap, context.controllerNamespace, text, source)],
      findings: f.list,
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
