/**
 * When what the verifications trust stops being valid, reported each time it is read (its parse
 * is cached; a report is one call): the OpenPGP keys of a `signedBy` key Secret (the earliest
 * expiry of its keys) and a sigstore trust root (`trustRootValidUntil` of lib/sigstore). The
 * webhook turns the reports into gauges, so that an alert says which Secret or trust root
 * expires before the images signed with it are denied. PEM keys carry no expiry and are not
 * reported.
 *
 * @module
 */

/** What was read and when it stops being valid. */
export interface TrustExpiry {
  /** `key-secret`: the keys of a `signedBy` key Secret; `trust-root`: a sigstore trust root. */
  readonly material: "key-secret" | "trust-root";
  /** The object it was read from. */
  readonly kind: "Secret" | "ConfigMap";
  readonly namespace: string;
  readonly name: string;
  /**
   * Milliseconds since the epoch when it stops being valid (the first of its keys expires, the
   * trust root can verify nothing new); undefined when nothing in it expires.
   */
  readonly expiresAt: number | undefined;
}

/** Receives a {@linkcode TrustExpiry} each time key material is read for a verification. */
export type TrustExpiryObserver = (expiry: TrustExpiry) => void;
