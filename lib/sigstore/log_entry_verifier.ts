/**
 * The key or certificate a transparency log entry names, compared with the one a bundle is
 * verified with (sigstore client spec §4.4: the entry must be for the same signature, the same
 * artifact and the same key; `@sigstore/verify` compares the first two only, cosign all three).
 * Where each entry kind keeps it:
 *
 * - Rekor v1 `hashedrekord` 0.0.1: `spec.signature.publicKey.content` (base64 of a PEM);
 * - Rekor v1 `dsse` 0.0.1: `spec.signatures[].verifier` (base64 of a PEM);
 * - Rekor v1 `intoto` 0.0.1: `spec.publicKey` (base64 of a PEM; legacy `.att` attestations of
 *   older cosign, see `verify.ts`);
 * - Rekor v1 `intoto` 0.0.2: `spec.content.envelope.signatures[].publicKey` (base64 of a PEM);
 * - Rekor v2 `hashedrekord` 0.0.2: `spec.hashedRekordV002.signature.verifier`, its
 *   `x509Certificate.rawBytes` or `publicKey.rawBytes` (base64 DER).
 *
 * Rekor v2 logs DSSE envelopes as `hashedrekord` 0.0.2 entries over their pre-authentication
 * encoding (rekor-v2 spec §6.1.4) and makes no `dsse` entries: a `dsse` entry of another version
 * than 0.0.1 is refused. Any other kind is refused too (the library verifies no other).
 *
 * @module
 */
import { decodeBase64 } from "../base64.ts";
import { JsonShapeError, parseJsonWithin } from "../json_shape.ts";
import { decodePem, PemSyntaxError } from "../pem.ts";

/** The shape of an entry body, bounded before it is parsed (about 20 values, 6 levels). */
const BODY_JSON_LIMITS = { maxValues: 1024, maxDepth: 16 };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function at(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = isObject(current) ? current[key] : undefined;
  return current;
}

/** The DERs an entry body names (base64 PEMs or base64 DERs), or a reason it names none. */
function namedDers(kind: string, version: string, body: unknown): Uint8Array[] | string {
  const pems = (values: unknown[]): Uint8Array[] | string => {
    const ders: Uint8Array[] = [];
    for (const value of values) {
      if (typeof value !== "string") return "names no key or certificate";
      try {
        const blocks = decodePem(new TextDecoder().decode(decodeBase64(value)), { maxBlocks: 1 });
        ders.push(blocks[0]!.bytes);
      } catch (error) {
        if (error instanceof PemSyntaxError || error instanceof SyntaxError) {
          return "names a key or certificate that is not PEM";
        }
        throw error;
      }
    }
    return ders.length > 0 ? ders : "names no key or certificate";
  };
  const list = (value: unknown): unknown[] => Array.isArray(value) ? value : [undefined];
  switch (`${kind} ${version}`) {
    case "hashedrekord 0.0.1":
      return pems([at(body, "spec", "signature", "publicKey", "content")]);
    case "dsse 0.0.1":
      return pems(list(at(body, "spec", "signatures")).map((s) => at(s, "verifier")));
    case "intoto 0.0.1":
      return pems([at(body, "spec", "publicKey")]);
    case "intoto 0.0.2":
      return pems(
        list(at(body, "spec", "content", "envelope", "signatures")).map((s) => at(s, "publicKey")),
      );
    case "hashedrekord 0.0.2": {
      const verifier = at(body, "spec", "hashedRekordV002", "signature", "verifier");
      const raw = at(verifier, "x509Certificate", "rawBytes") ??
        at(verifier, "publicKey", "rawBytes");
      if (typeof raw !== "string") return "names no key or certificate";
      try {
        return [decodeBase64(raw)];
      } catch {
        return "names a key or certificate that is not base64";
      }
    }
    default:
      return kind === "dsse"
        ? `is a dsse ${version} entry, which no Rekor makes (Rekor v2 logs DSSE envelopes as hashedrekord 0.0.2 entries)`
        : `is a ${kind} ${version} entry, whose key cannot be compared with the bundle's`;
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Why the entry of `kind` and `version` with the canonicalized `body` is not for `expected`
 * (the DER of the bundle's certificate, or of the key that verified it); undefined when every
 * key or certificate the entry names is that one.
 */
export function logEntryVerifierProblem(
  kind: string,
  version: string,
  body: Uint8Array,
  expected: { readonly der: Uint8Array; readonly what: "key" | "certificate" },
): string | undefined {
  let parsed: unknown;
  try {
    parsed = parseJsonWithin(
      new TextDecoder("utf-8", { fatal: true }).decode(body),
      BODY_JSON_LIMITS,
      "its transparency log entry",
    );
  } catch (error) {
    return error instanceof JsonShapeError
      ? error.message
      : "its transparency log entry's body is not JSON";
  }
  const ders = namedDers(kind, version, parsed);
  if (typeof ders === "string") return `its transparency log entry ${ders}`;
  if (ders.some((der) => !equal(der, expected.der))) {
    return `its transparency log entry names another key or certificate than the ${expected.what} it is verified with (sigstore client spec §4.4)`;
  }
  return undefined;
}
