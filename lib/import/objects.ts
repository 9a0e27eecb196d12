/**
 * The toolkit objects an importer makes: policies in toolkit's schema (lib/policy), key Secrets
 * read as toolkit's `keySecret` reads them (the `key` entry), and trust-root ConfigMaps holding a
 * sigstore `trusted_root.json`. Each carries the annotation {@linkcode IMPORTED_FROM_ANNOTATION}
 * naming its source.
 *
 * @module
 */
import { API_GROUP, API_VERSION } from "../policy/mod.ts";
import type { ImportSource } from "./types.ts";

/** The annotation naming the source of an imported object. */
export const IMPORTED_FROM_ANNOTATION = "toolkit.dev/imported-from";

/** The data entry of a key Secret toolkit reads (lib/admission's `KEY_SECRET_ENTRY`). */
export const KEY_ENTRY = "key";

/** The data entry of a trust root (lib/sigstore's `TRUST_ROOT_ENTRY`). */
export const TRUSTED_ROOT_ENTRY = "trusted_root.json";

/**
 * The ConfigMap a converted policy names for the public-good Sigstore instance (Fulcio
 * `fulcio.sigstore.dev`, Rekor `rekor.sigstore.dev`): the user supplies its `trusted_root.json`
 * (`toolkit image-security trust-root sigstore-public-good -f trusted_root.json`).
 */
export const PUBLIC_GOOD_TRUST_ROOT = "sigstore-public-good";

/** The apiVersion of toolkit's policies. */
export const POLICY_API_VERSION = `${API_GROUP}/${API_VERSION}`;

/** `<apiVersion> <kind> <namespace/>name[ rule <rule>]`, the annotation's value. */
export function describeSource(source: ImportSource): string {
  const name = source.namespace ? `${source.namespace}/${source.name}` : source.name;
  const rule = source.rule === undefined ? "" : ` rule ${source.rule}`;
  return `${source.apiVersion} ${source.kind} ${name}${rule}`;
}

function metadata(name: string, namespace: string | undefined, source: ImportSource) {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    annotations: { [IMPORTED_FROM_ANNOTATION]: describeSource(source) },
  };
}

/** A ClusterImagePolicy (no namespace) or ImagePolicy (with one) holding `repositories`. */
export function policyObject(
  name: string,
  namespace: string | undefined,
  repositories: readonly Record<string, unknown>[],
  source: ImportSource,
): Record<string, unknown> {
  return {
    apiVersion: POLICY_API_VERSION,
    kind: namespace === undefined ? "ClusterImagePolicy" : "ImagePolicy",
    metadata: metadata(name, namespace, source),
    spec: { repositories },
  };
}

/** An `Opaque` Secret holding PEM (or OpenPGP armoured) public keys in its `key` entry. */
export function keySecretObject(
  name: string,
  namespace: string,
  keys: string,
  source: ImportSource,
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: metadata(name, namespace, source),
    type: "Opaque",
    stringData: { [KEY_ENTRY]: keys.endsWith("\n") ? keys : `${keys}\n` },
  };
}

/** A ConfigMap holding a sigstore `trusted_root.json`. */
export function trustRootObject(
  name: string,
  namespace: string,
  trustedRootJson: string,
  source: ImportSource,
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: metadata(name, namespace, source),
    data: { [TRUSTED_ROOT_ENTRY]: trustedRootJson },
  };
}
