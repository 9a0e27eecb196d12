/**
 * Choosing the policy for an image: any ImagePolicy in the workload's namespace replaces the
 * cluster policies; among the repositories of the chosen set, an exact name wins, then the
 * most specific pattern (most literal characters); ties go to the first in a stable order
 * (by policy name, then position).
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import { parsePattern, patternMatches, type RepositoryPattern } from "./pattern.ts";
import type { ImagePolicy, RepositoryPolicy } from "./types.ts";

/** The policy chosen for an image, and where it came from. */
export interface PolicyMatch {
  /** The repository policy to apply. */
  readonly policy: RepositoryPolicy;
  /** The pattern that matched. */
  readonly pattern: string;
  /** `ClusterImagePolicy "name"` or `ImagePolicy "namespace/name"`. */
  readonly source: string;
  /** The kind of the policy that matched. */
  readonly kind: ImagePolicy["kind"];
  /** The name of the policy that matched. */
  readonly name: string;
  /** The namespace of an ImagePolicy that matched. */
  readonly namespace?: string | undefined;
  /**
   * True when the pattern matched the image only through its tag (`repo:1` for
   * `repo:1@sha256:…`): the policy was chosen for the tag, so a reference that also carries a
   * digest must have its tag resolve to that digest.
   */
  readonly matchedByTag?: boolean;
}

/** Why no policy matched: there were none, or none matched. */
export interface NoPolicyMatch {
  readonly policy: undefined;
  /** A human reason, e.g. `no ImagePolicy in namespace "dev" matches "docker.io/library/nginx"`. */
  readonly reason: string;
}

interface Compiled {
  readonly pattern: RepositoryPattern;
  readonly policy: RepositoryPolicy;
  readonly source: string;
  readonly owner: ImagePolicy;
}

function describe(p: ImagePolicy): string {
  return p.kind === "ImagePolicy"
    ? `ImagePolicy "${p.namespace}/${p.name}"`
    : `ClusterImagePolicy "${p.name}"`;
}

/** A set of policies, compiled once, that answers which policy applies to an image. */
export class PolicySet {
  readonly #cluster: Compiled[];
  readonly #byNamespace = new Map<string, Compiled[]>();
  /** The number of policies in the set. */
  readonly size: number;

  /** Compiles the policies. */
  constructor(policies: Iterable<ImagePolicy>) {
    const sorted = [...policies].sort((a, b) =>
      `${a.namespace ?? ""}/${a.name}`.localeCompare(`${b.namespace ?? ""}/${b.name}`)
    );
    this.#cluster = [];
    this.size = sorted.length;
    for (const p of sorted) {
      const compiled = p.repositories.map((r) => ({
        pattern: parsePattern(r.name),
        policy: r.policy,
        source: describe(p),
        owner: p,
      }));
      if (p.kind === "ClusterImagePolicy") {
        this.#cluster.push(...compiled);
      } else {
        // A namespace with ImagePolicies is governed by them, even when they list nothing.
        const ns = p.namespace ?? "default";
        const list = this.#byNamespace.get(ns) ?? [];
        list.push(...compiled);
        this.#byNamespace.set(ns, list);
      }
    }
  }

  /** Whether `namespace` has ImagePolicies (which then replace the cluster policies there). */
  hasImagePolicies(namespace: string): boolean {
    return this.#byNamespace.has(namespace);
  }

  /** The policy for an image admitted into `namespace`. */
  select(namespace: string, image: ImageReference, imageText: string): PolicyMatch | NoPolicyMatch {
    const local = this.#byNamespace.get(namespace);
    const candidates = local ?? this.#cluster;
    let best: Compiled | undefined;
    for (const c of candidates) {
      if (!patternMatches(c.pattern, image)) continue;
      if (
        !best || (c.pattern.exact && !best.pattern.exact) ||
        (c.pattern.exact === best.pattern.exact && c.pattern.specificity > best.pattern.specificity)
      ) {
        best = c;
      }
    }
    if (best) {
      return {
        policy: best.policy,
        pattern: best.pattern.source,
        source: best.source,
        kind: best.owner.kind,
        name: best.owner.name,
        namespace: best.owner.namespace,
        matchedByTag: image.tag !== undefined &&
          !patternMatches(best.pattern, { ...image, tag: undefined }),
      };
    }
    let reason: string;
    if (local) {
      reason = `no ImagePolicy in namespace "${namespace}" matches "${imageText}"`;
    } else if (this.#cluster.length === 0) {
      reason = `no ImagePolicy in namespace "${namespace}" and no ClusterImagePolicy`;
    } else {
      reason =
        `no ClusterImagePolicy matches "${imageText}" and there is no ImagePolicy in namespace "${namespace}"`;
    }
    return { policy: undefined, reason };
  }
}
