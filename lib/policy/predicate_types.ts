/**
 * Predicate types as policies and commands name them: a URI, or one of cosign's short names
 * (`cosign attest --type`), each standing for the URI cosign writes into the statement.
 *
 * @module
 */

/** cosign's short names of predicate types, and the URIs they stand for. */
export const PREDICATE_TYPE_SHORT_NAMES: Readonly<Record<string, string>> = Object.freeze({
  slsaprovenance: "https://slsa.dev/provenance/v0.2",
  slsaprovenance02: "https://slsa.dev/provenance/v0.2",
  slsaprovenance1: "https://slsa.dev/provenance/v1",
  link: "https://in-toto.io/Link/v1",
  spdx: "https://spdx.dev/Document",
  spdxjson: "https://spdx.dev/Document",
  cyclonedx: "https://cyclonedx.org/bom",
  vuln: "https://cosign.sigstore.dev/attestation/vuln/v1",
  openvex: "https://openvex.dev/ns",
  custom: "https://cosign.sigstore.dev/attestation/v1",
});

/**
 * The URI `name` stands for: a short name's, else `name` itself when it is an absolute URI;
 * undefined when it is neither.
 */
export function predicateTypeURI(name: string): string | undefined {
  if (Object.hasOwn(PREDICATE_TYPE_SHORT_NAMES, name)) return PREDICATE_TYPE_SHORT_NAMES[name];
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(name)) return undefined;
  try {
    new URL(name);
    return name;
  } catch {
    return undefined;
  }
}
