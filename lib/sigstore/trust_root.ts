/**
 * A sigstore trust root: the `trusted_root.json` of a sigstore instance (the public-good one
 * publishes it through TUF as `targets/trusted_root.json` of sigstore/root-signing; a private
 * instance writes its own, e.g. with `cosign trusted-root create`). It lists the Fulcio CAs that
 * issue signing certificates, the Rekor logs and CT logs with their keys, and the RFC 3161
 * timestamp authorities, each with the time range in which it may be trusted.
 *
 * toolkit never fetches a trust root at admission: it is read from a ConfigMap or Secret of the
 * cluster (`toolkit image-security trust-root import` writes one from a file), parsed once per
 * distinct content, and checked more strictly than `@sigstore/verify` does when it is read:
 *
 * - the media type is a `application/vnd.dev.sigstore.trustedroot…+json` one;
 * - every CA, timestamp authority, transparency log and CT log names the start of its validity
 *   (a trust root without one would trust a key for all time before it existed: the
 *   sigstore-conformance case `trust-root-tlog-missing-validity-start_fail`);
 * - every certificate and key parses;
 * - the text is at most {@linkcode MAX_TRUST_ROOT_BYTES}.
 *
 * @module
 */
import { TrustedRoot } from "@sigstore/protobuf-specs";
import { toTrustMaterial, type TrustMaterial } from "@sigstore/verify";
import { ToolkitError } from "../errors.ts";
import { JsonShapeError, parseJsonWithin } from "../json_shape.ts";

/**
 * The shape of a trust root, bounded before it is parsed: the public-good instance's has about
 * 300 values, 7 levels deep.
 */
const TRUST_ROOT_JSON_LIMITS = { maxValues: 16_384, maxDepth: 16 };
import { computeDigest } from "../registry/mod.ts";

/** The largest trust root read (the public-good one is about 7 KiB). */
export const MAX_TRUST_ROOT_BYTES = 1024 * 1024;

/** The media type prefix of a trust root. */
export const TRUST_ROOT_MEDIA_TYPE = "application/vnd.dev.sigstore.trustedroot";

/** The data key of a trust root ConfigMap or Secret, as `cosign trusted-root create` names it. */
export const TRUST_ROOT_ENTRY = "trusted_root.json";

/** A trust root that cannot be used. */
export class InvalidTrustRootError extends ToolkitError {
  /** Creates the error; `message` says which trust root and what is wrong. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidTrustRootError";
  }
}

/** A parsed trust root. */
export interface TrustRoot {
  /** The verification material for `@sigstore/verify`. */
  readonly material: TrustMaterial;
  /** `sha256:<hex>` of the text: identifies the exact trust root in cache keys. */
  readonly id: string;
  /** How many of each it lists (for messages and `trust-root import`). */
  readonly counts: {
    readonly certificateAuthorities: number;
    readonly tlogs: number;
    readonly ctlogs: number;
    readonly timestampAuthorities: number;
  };
  /** The base URLs of its transparency logs and the URIs of its CAs (for messages). */
  readonly names: readonly string[];
  /**
   * When it stops being able to verify new signatures ({@linkcode trustRootValidUntil}); absent
   * when nothing in it expires.
   */
  readonly validUntil?: Date;
}

/**
 * When a trust root stops being able to verify new signatures: for each kind of authority it
 * lists (CAs, timestamp authorities, transparency logs, CT logs), the last end of validity among
 * them (a CA's `validFor.end` or the expiry of a certificate of its chain, whichever is first; a
 * log's key's `validFor.end`), and the earliest of these. Undefined when none of its kinds ends.
 * A past time means it can verify nothing new.
 */
export function trustRootValidUntil(material: TrustMaterial): Date | undefined {
  const caEnd = (ca: TrustMaterial["certificateAuthorities"][number]) =>
    Math.min(ca.validFor.end.getTime(), ...ca.certChain.map((c) => c.notAfter.getTime()));
  const logEnd = (log: TrustMaterial["tlogs"][number]) => log.validFor.end.getTime();
  const ends = [
    material.certificateAuthorities.map(caEnd),
    material.timestampAuthorities.map(caEnd),
    material.tlogs.map(logEnd),
    material.ctlogs.map(logEnd),
  ].filter((kind) => kind.length > 0).map((kind) => Math.max(...kind));
  const earliest = Math.min(...ends.filter(Number.isFinite));
  // @sigstore/verify writes an absent end as the end of time (8.64e15 ms): nothing ends then.
  return Number.isFinite(earliest) && earliest < END_OF_TIME_MS ? new Date(earliest) : undefined;
}

/** The largest time a Date holds, which @sigstore/verify gives an absent end of validity. */
const END_OF_TIME_MS = 8_640_000_000_000_000;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function listOf(root: Obj, key: string, where: string): Obj[] {
  const value = root[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObject)) {
    throw new InvalidTrustRootError(
      `Cannot use trust root ${where}: "${key}" is not a list of objects`,
    );
  }
  return value;
}

function requireStart(items: Obj[], key: string, validity: (item: Obj) => unknown, where: string) {
  items.forEach((item, index) => {
    const range = validity(item);
    const start = isObject(range) ? range.start : undefined;
    if (typeof start !== "string" || Number.isNaN(Date.parse(start))) {
      throw new InvalidTrustRootError(
        `Cannot use trust root ${where}: ${key}[${index}] has no validFor.start (a key or CA must say from when it is trusted)`,
      );
    }
  });
}

/**
 * Parses a trust root from its JSON text (`where` names it in messages, e.g. `ConfigMap
 * "toolkit-system/sigstore-trust-root"`).
 *
 * @throws {InvalidTrustRootError} when it is too large, not JSON, not a trust root, or fails a
 * check above.
 */
export async function parseTrustRoot(text: string | Uint8Array, where: string): Promise<TrustRoot> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  if (bytes.byteLength > MAX_TRUST_ROOT_BYTES) {
    throw new InvalidTrustRootError(
      `Cannot use trust root ${where}: larger than ${MAX_TRUST_ROOT_BYTES} bytes`,
    );
  }
  let raw: unknown;
  try {
    raw = parseJsonWithin(
      new TextDecoder("utf-8", { fatal: true }).decode(bytes),
      TRUST_ROOT_JSON_LIMITS,
      "it",
    );
  } catch (error) {
    const detail = error instanceof JsonShapeError ? error.message : "not JSON text";
    throw new InvalidTrustRootError(`Cannot use trust root ${where}: ${detail}`, {
      cause: error,
    });
  }
  if (!isObject(raw)) {
    throw new InvalidTrustRootError(`Cannot use trust root ${where}: not a JSON object`);
  }
  const mediaType = raw.mediaType;
  if (typeof mediaType !== "string" || !mediaType.startsWith(TRUST_ROOT_MEDIA_TYPE)) {
    throw new InvalidTrustRootError(
      `Cannot use trust root ${where}: its mediaType ${
        JSON.stringify(mediaType ?? null)
      } is not a sigstore trusted root (${TRUST_ROOT_MEDIA_TYPE}+json;version=0.1)`,
    );
  }
  const cas = listOf(raw, "certificateAuthorities", where);
  const tsas = listOf(raw, "timestampAuthorities", where);
  const tlogs = listOf(raw, "tlogs", where);
  const ctlogs = listOf(raw, "ctlogs", where);
  requireStart(cas, "certificateAuthorities", (ca) => ca.validFor, where);
  requireStart(tsas, "timestampAuthorities", (ca) => ca.validFor, where);
  const keyValidity = (log: Obj) => isObject(log.publicKey) ? log.publicKey.validFor : undefined;
  requireStart(tlogs, "tlogs", keyValidity, where);
  requireStart(ctlogs, "ctlogs", keyValidity, where);
  if (cas.length === 0 && tlogs.length === 0 && tsas.length === 0) {
    throw new InvalidTrustRootError(
      `Cannot use trust root ${where}: it lists no certificate authority, transparency log or timestamp authority`,
    );
  }
  let material: TrustMaterial;
  try {
    material = toTrustMaterial(TrustedRoot.fromJSON(raw));
  } catch (error) {
    throw new InvalidTrustRootError(
      `Cannot use trust root ${where}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const validUntil = trustRootValidUntil(material);
  const names = [
    ...tlogs.map((log) => log.baseUrl),
    ...cas.map((ca) => ca.uri),
  ].filter((name): name is string => typeof name === "string" && name !== "");
  return {
    material,
    id: await computeDigest(bytes),
    counts: {
      certificateAuthorities: material.certificateAuthorities.length,
      tlogs: material.tlogs.length,
      ctlogs: material.ctlogs.length,
      timestampAuthorities: material.timestampAuthorities.length,
    },
    names: [...new Set(names)],
    ...(validUntil ? { validUntil } : {}),
  };
}
