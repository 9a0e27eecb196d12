/**
 * The payloads a cosign signature signs, byte for byte as cosign v3.1.3 writes them, without
 * signing or verification code (so that readers of signatures can build them cheaply, e.g. to
 * guess a legacy payload's digest): the legacy simple-signing payload and the in-toto statement
 * of a v3 bundle. `cosign_sign.ts` signs them; `cosign_statement.ts` parses a statement.
 *
 * @module
 */
import {
  COSIGN_PAYLOAD_TYPE,
  COSIGN_SIGN_PREDICATE_TYPE,
  IN_TOTO_STATEMENT_V1,
} from "./cosign_media_types.ts";
import { SigningError } from "./signing_error.ts";

const DIGEST = /^([a-z0-9]+):([a-f0-9]{32,})$/;

function checkDigest(manifestDigest: string): { algorithm: string; hex: string } {
  const match = DIGEST.exec(manifestDigest);
  if (!match) throw new SigningError(`Cannot sign "${manifestDigest}": not a manifest digest`);
  return { algorithm: match[1]!, hex: match[2]! };
}

/**
 * The repository a cosign payload names by default, as cosign writes it
 * (go-containerregistry's `Repository.Name()`): `registry/path`, Docker Hub as
 * `index.docker.io`, no tag or digest.
 */
export function cosignDockerReference(domain: string, path: string): string {
  return `${domain === "docker.io" ? "index.docker.io" : domain}/${path}`;
}

/** The legacy payload of `manifestDigest`, byte for byte as cosign writes it. */
export function cosignLegacyPayload(
  options: { dockerReference: string; manifestDigest: string },
): Uint8Array {
  checkDigest(options.manifestDigest);
  return new TextEncoder().encode(JSON.stringify({
    critical: {
      identity: { "docker-reference": options.dockerReference },
      image: { "docker-manifest-digest": options.manifestDigest },
      type: COSIGN_PAYLOAD_TYPE,
    },
    optional: null,
  }));
}

/** The in-toto statement `cosign sign` makes for `manifestDigest`, as cosign serializes it. */
export function cosignStatement(manifestDigest: string): Uint8Array {
  const { algorithm, hex } = checkDigest(manifestDigest);
  return new TextEncoder().encode(JSON.stringify({
    _type: IN_TOTO_STATEMENT_V1,
    subject: [{ digest: { [algorithm]: hex }, annotations: {} }],
    predicateType: COSIGN_SIGN_PREDICATE_TYPE,
    predicate: {},
  }));
}
