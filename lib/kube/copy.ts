/**
 * Copying objects from one namespace to another: the copy keeps the name (or takes a new one),
 * labels, annotations and content, and drops everything the server assigned to the original
 * (uid, resourceVersion, creationTimestamp, managedFields, ownerReferences, generation,
 * selfLink, finalizers, status) along with the labels that tie it to an Argo CD application
 * or Helm-style instance, so that Argo CD does not prune the copy.
 *
 * @module
 */
import { apiVersionOf, type KubeObject, type ResourceType } from "./resources.ts";

/** Labels that are not carried over to a copy. */
export const STRIPPED_LABELS: readonly string[] = [
  "app.kubernetes.io/instance",
  "argocd.argoproj.io/instance",
];

/** Annotations that are not carried over to a copy (they describe the original). */
export const STRIPPED_ANNOTATIONS: readonly string[] = [
  "kubectl.kubernetes.io/last-applied-configuration",
];

function without(
  map: Record<string, string> | undefined,
  keys: readonly string[],
): Record<string, string> | undefined {
  if (!map) return undefined;
  const out = Object.fromEntries(Object.entries(map).filter(([k]) => !keys.includes(k)));
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A copy of `object` for `namespace` (optionally under a new name), with only `name`,
 * `namespace`, `labels` and `annotations` left in its metadata and no `status`.
 */
export function copyForNamespace(
  type: ResourceType,
  object: KubeObject,
  namespace: string,
  name: string = object.metadata.name,
): KubeObject {
  const { metadata, status: _status, apiVersion: _v, kind: _k, ...content } = object;
  const labels = without(metadata.labels, STRIPPED_LABELS);
  const annotations = without(metadata.annotations, STRIPPED_ANNOTATIONS);
  return {
    apiVersion: apiVersionOf(type),
    kind: type.kind,
    metadata: {
      name,
      namespace,
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
    },
    ...structuredClone(content),
  };
}
