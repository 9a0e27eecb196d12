/**
 * The in-toto statement of an attestation, and the DSSE envelope that carries it, read strictly
 * (duplicated keys refused, nesting bounded, as `cosign_statement.ts` reads a signature's):
 *
 * ```json
 * {"_type":"https://in-toto.io/Statement/v1",
 *  "subject":[{"name":"reg/app","digest":{"sha256":"<hex>"}}],
 *  "predicateType":"https://slsa.dev/provenance/v1","predicate":{…}}
 * ```
 *
 * `_type` is in-toto's Statement v1 or v0.1 (older cosign), `subject` a non-empty list of
 * descriptors whose `digest` maps algorithms to lower-case hex, `predicateType` a string; the
 * predicate is any JSON value. Nothing here is trusted until the envelope's signature is
 * verified over the payload's bytes.
 *
 * @module
 */
import { decodeBase64 } from "../base64.ts";
import { type JsonValue, parseStrictJson } from "./_strict_json.ts";

export type { JsonValue };
import { IN_TOTO_PAYLOAD_TYPE, IN_TOTO_STATEMENT_V1 } from "./cosign_media_types.ts";
import { IN_TOTO_STATEMENT_V01 } from "./cosign_statement.ts";
import { InvalidPayloadError } from "./payload.ts";

/** The most bytes of a statement (an envelope's payload) read. */
export const MAX_ATTESTATION_STATEMENT_BYTES = 256 * 1024;

/** The most signatures of one envelope looked at. */
export const MAX_ENVELOPE_SIGNATURES = 8;

/** An attestation's statement, parsed. */
export interface AttestationStatement {
  /** The whole statement (objects without prototype). */
  readonly statement: { readonly [key: string]: JsonValue };
  /** `predicateType`. */
  readonly predicateType: string;
  /** `subject[].digest`: `sha256:<hex>` (and other algorithms) of each subject. */
  readonly subjectDigests: readonly string[];
}

/** A DSSE envelope: its payload's bytes and signatures (`keyid`, raw `sig` bytes). */
export interface DsseEnvelope {
  readonly payloadType: string;
  readonly payload: Uint8Array;
  readonly signatures: readonly { readonly keyid: string; readonly sig: Uint8Array }[];
}

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(what: string, detail: string, options?: ErrorOptions): InvalidPayloadError {
  return new InvalidPayloadError(`Cannot parse the ${what}: ${detail}`, detail, options);
}

function strictObject(data: Uint8Array, what: string): JsonObject {
  let document: JsonValue;
  try {
    document = parseStrictJson(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw invalid(what, `not valid JSON: ${detail}`, { cause: error });
  }
  if (!isObject(document)) throw invalid(what, "not a JSON object");
  return document;
}

/**
 * Parses a DSSE envelope (the blob of a `.att` layer) of an in-toto statement.
 *
 * @throws {InvalidPayloadError} naming the first problem.
 */
export function parseDsseEnvelope(data: Uint8Array): DsseEnvelope {
  const envelope = strictObject(data, "DSSE envelope");
  const { payloadType, payload, signatures } = envelope;
  if (payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    throw invalid(
      "DSSE envelope",
      `its payload type ${JSON.stringify(payloadType ?? null)} is not ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  }
  if (typeof payload !== "string") throw invalid("DSSE envelope", "it has no payload");
  if (!Array.isArray(signatures) || signatures.length === 0) {
    throw invalid("DSSE envelope", "it has no signatures");
  }
  if (signatures.length > MAX_ENVELOPE_SIGNATURES) {
    throw invalid(
      "DSSE envelope",
      `it has ${signatures.length} signatures, more than ${MAX_ENVELOPE_SIGNATURES}`,
    );
  }
  const decode = (text: string, what: string) => {
    try {
      return decodeBase64(text);
    } catch {
      throw invalid("DSSE envelope", `its ${what} is not base64`);
    }
  };
  return {
    payloadType,
    payload: decode(payload, "payload"),
    signatures: signatures.map((s, i) => {
      if (!isObject(s) || typeof s.sig !== "string") {
        throw invalid("DSSE envelope", `signature ${i + 1} has no sig`);
      }
      return { keyid: typeof s.keyid === "string" ? s.keyid : "", sig: decode(s.sig, "sig") };
    }),
  };
}

/** The DSSE pre-authentication encoding of `payload` (what the envelope's signatures sign). */
export function dssePae(payloadType: string, payload: Uint8Array): Uint8Array {
  const encoder = new TextEncoder();
  const type = encoder.encode(payloadType);
  const head = encoder.encode(`DSSEv1 ${type.byteLength} `);
  const middle = encoder.encode(` ${payload.byteLength} `);
  const out = new Uint8Array(
    head.byteLength + type.byteLength + middle.byteLength + payload.byteLength,
  );
  out.set(head, 0);
  out.set(type, head.byteLength);
  out.set(middle, head.byteLength + type.byteLength);
  out.set(payload, head.byteLength + type.byteLength + middle.byteLength);
  return out;
}

const HEX = /^[0-9a-f]{32,128}$/;
const ALGORITHM = /^[a-z0-9]{1,16}$/;

/**
 * Parses an attestation's statement (at most {@linkcode MAX_ATTESTATION_STATEMENT_BYTES}).
 *
 * @throws {InvalidPayloadError} naming the first problem.
 */
export function parseAttestationStatement(data: Uint8Array): AttestationStatement {
  if (data.byteLength > MAX_ATTESTATION_STATEMENT_BYTES) {
    throw invalid(
      "in-toto statement",
      `it is ${data.byteLength} bytes long, more than ${MAX_ATTESTATION_STATEMENT_BYTES}`,
    );
  }
  const statement = strictObject(data, "in-toto statement");
  const type = statement._type;
  if (type !== IN_TOTO_STATEMENT_V1 && type !== IN_TOTO_STATEMENT_V01) {
    throw invalid(
      "in-toto statement",
      `_type ${JSON.stringify(type ?? null)} is not an in-toto statement`,
    );
  }
  const predicateType = statement.predicateType;
  if (typeof predicateType !== "string" || predicateType === "") {
    throw invalid("in-toto statement", "it has no predicateType");
  }
  const subjects = statement.subject;
  if (!Array.isArray(subjects) || subjects.length === 0) {
    throw invalid("in-toto statement", "subject is not a non-empty list");
  }
  const subjectDigests: string[] = [];
  subjects.forEach((subject, index) => {
    if (!isObject(subject) || !isObject(subject.digest)) {
      throw invalid("in-toto statement", `subject[${index}] has no digest object`);
    }
    for (const [algorithm, hex] of Object.entries(subject.digest)) {
      if (!ALGORITHM.test(algorithm) || typeof hex !== "string" || !HEX.test(hex)) {
        throw invalid(
          "in-toto statement",
          `subject[${index}].digest.${algorithm} is not a lower-case hex digest`,
        );
      }
      subjectDigests.push(`${algorithm}:${hex}`);
    }
  });
  return { statement, predicateType, subjectDigests };
}
