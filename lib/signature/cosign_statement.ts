/**
 * The in-toto statement a cosign v3 signature signs (inside the DSSE envelope of its sigstore
 * bundle):
 *
 * ```json
 * {"_type":"https://in-toto.io/Statement/v1",
 *  "subject":[{"digest":{"sha256":"<hex>"}}],
 *  "predicateType":"https://sigstore.dev/cosign/sign/v1","predicate":{}}
 * ```
 *
 * Parsing is strict: duplicated keys anywhere are refused (a signed statement must not be read two
 * ways), `_type` must be in-toto's Statement v1 (or v0.1, which older tools write), the predicate
 * type must be cosign's signature predicate (an attestation, with another predicate, is not a
 * signature of the image), and `subject` must be a list of descriptors whose `digest` maps
 * algorithms to lower-case hex. The statement names no repository or tag: it binds the signature
 * to digests only.
 *
 * @module
 */
import { type JsonValue, parseStrictJson } from "./_strict_json.ts";
import { COSIGN_SIGN_PREDICATE_TYPE, IN_TOTO_STATEMENT_V1 } from "./cosign_media_types.ts";
import { InvalidPayloadError } from "./payload.ts";

/** The `_type` of an in-toto statement v0.1. */
export const IN_TOTO_STATEMENT_V01 = "https://in-toto.io/Statement/v0.1";

/** The part of a cosign statement that is checked. */
export interface CosignStatement {
  /** `subject[].digest`: `sha256:<hex>` (and other algorithms) of each subject. */
  readonly subjectDigests: readonly string[];
  /** `predicateType`. */
  readonly predicateType: string;
}

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(detail: string, options?: ErrorOptions): InvalidPayloadError {
  return new InvalidPayloadError(`Cannot parse the in-toto statement: ${detail}`, detail, options);
}

const HEX = /^[0-9a-f]{32,128}$/;
const ALGORITHM = /^[a-z0-9]{1,16}$/;

/**
 * Parses the statement of a cosign v3 signature.
 *
 * @throws {InvalidPayloadError} with a short description of the first problem found.
 */
export function parseCosignStatement(data: Uint8Array): CosignStatement {
  let document: JsonValue;
  try {
    document = parseStrictJson(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw invalid(`not valid JSON: ${detail}`, { cause: error });
  }
  if (!isObject(document)) throw invalid("not a JSON object");
  const type = document._type;
  if (type !== IN_TOTO_STATEMENT_V1 && type !== IN_TOTO_STATEMENT_V01) {
    throw invalid(`_type ${JSON.stringify(type ?? null)} is not an in-toto statement`);
  }
  const predicateType = document.predicateType;
  if (predicateType !== COSIGN_SIGN_PREDICATE_TYPE) {
    throw invalid(
      `predicateType ${
        JSON.stringify(predicateType ?? null)
      } is not cosign's signature predicate ${COSIGN_SIGN_PREDICATE_TYPE} (an attestation is not a signature)`,
    );
  }
  const subjects = document.subject;
  if (!Array.isArray(subjects) || subjects.length === 0) {
    throw invalid("subject is not a non-empty list");
  }
  const subjectDigests: string[] = [];
  subjects.forEach((subject, index) => {
    if (!isObject(subject) || !isObject(subject.digest)) {
      throw invalid(`subject[${index}] has no digest object`);
    }
    for (const [algorithm, hex] of Object.entries(subject.digest)) {
      if (!ALGORITHM.test(algorithm) || typeof hex !== "string" || !HEX.test(hex)) {
        throw invalid(`subject[${index}].digest.${algorithm} is not a lower-case hex digest`);
      }
      subjectDigests.push(`${algorithm}:${hex}`);
    }
  });
  return { subjectDigests, predicateType };
}
