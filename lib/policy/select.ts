/**
 * Choosing the policy for an image: any ImagePolicy in the workload's namespace replaces the
 * cluster policies; among the repositories of the chosen set, an exact name wins, then the
 * most specific pattern (most literal characters); ties go to the first in a stable order
 * (by policy name, then position).
 *
 * The cost of a choice is bounded whatever the policies say: patterns match in linear time
 * (lib/glob.ts), a set of policies governs a namespace with at most
 * {@linkcode MAX_PATTERNS_PER_NAMESPACE} patterns (more is a policy problem that denies the
 * namespace's images, see {@linkcode PolicySet.problem}), and patterns written for one registry
 * host are only tried on images of that host.
 *
 * @module
 */
import type { StepCounter } from "../glob.ts";
import type { ImageReference } from "../image/mod.ts";
import { matchTexts, parsePattern, patternMatches, type RepositoryPattern } from "./pattern.ts";

/**
 * The most repository patterns that govern one namespace (its ImagePolicies, or the cluster
 * policies where it has none). One choice then takes at most this many linear-time matches.
 */
export const MAX_PATTERNS_PER_NAMESPACE = 512;
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
  /** Position in the stable order (policy name, then position): ties go to the lower. */
  readonly order: number;
}

/** The patterns that govern one namespace, indexed by the registry host they name. */
class Governing {
  readonly all: Compiled[] = [];
  /** Patterns with a literal host (canonical), by host. */
  readonly #byHost = new Map<string, Compiled[]>();
  /** Patterns with a wildcard host, and whole-name patterns. */
  readonly #anyHost: Compiled[] = [];

  add(c: Compiled): void {
    this.all.push(c);
    const host = c.pattern.hostGlob?.literal ? c.pattern.host : undefined;
    if (host === undefined) {
      this.#anyHost.push(c);
      return;
    }
    const list = this.#byHost.get(host);
    if (list) list.push(c);
    else this.#byHost.set(host, [c]);
  }

  /** The patterns that may match an image of `domain` (its spellings with and without :443). */
  *candidates(domain: string): Iterable<Compiled> {
    yield* this.#byHost.get(domain) ?? [];
    if (!/:[0-9]+$/.test(domain)) yield* this.#byHost.get(`${domain}:443`) ?? [];
    yield* this.#anyHost;
  }
}

/** Whether `c` wins over `best`: exact first, then more literal characters, then order. */
function better(c: Compiled, best: Compiled): boolean {
  if (c.pattern.exact !== best.pattern.exact) return c.pattern.exact;
  if (c.pattern.specificity !== best.pattern.specificity) {
    return c.pattern.specificity > best.pattern.specificity;
  }
  return c.order < best.order;
}

function describe(p: ImagePolicy): string {
  return p.kind === "ImagePolicy"
    ? `ImagePolicy "${p.namespace}/${p.name}"`
    : `ClusterImagePolicy "${p.name}"`;
}

/** A set of policies, compiled once, that answers which policy applies to an image. */
export class PolicySet {
  readonly #cluster = new Governing();
  readonly #byNamespace = new Map<string, Governing>();
  /** The number of policies in the set. */
  readonly size: number;

  /** Compiles the policies. */
  constructor(policies: Iterable<ImagePolicy>) {
    const sorted = [...policies].sort((a, b) =>
      `${a.namespace ?? ""}/${a.name}`.localeCompare(`${b.namespace ?? ""}/${b.name}`)
    );
    this.size = sorted.length;
    let order = 0;
    for (const p of sorted) {
      // A namespace with ImagePolicies is governed by them, even when they list nothing.
      let governing = this.#cluster;
      if (p.kind !== "ClusterImagePolicy") {
        const ns = p.namespace ?? "default";
        governing = this.#byNamespace.get(ns) ?? new Governing();
        this.#byNamespace.set(ns, governing);
      }
      for (const r of p.repositories) {
        // Past the bound the set is a problem (see problem()); compiling more would only cost.
        if (governing.all.length > MAX_PATTERNS_PER_NAMESPACE) break;
        governing.add({
          pattern: parsePattern(r.name),
          policy: r.policy,
          source: describe(p),
          owner: p,
          order: order++,
        });
      }
    }
  }

  /**
   * Why the policies that govern `namespace` cannot be used, or undefined: more than
   * {@linkcode MAX_PATTERNS_PER_NAMESPACE} repository patterns. Images there are then denied
   * with this reason (failing closed), and other namespaces are not affected.
   */
  problem(namespace: string): string | undefined {
    const local = this.#byNamespace.get(namespace);
    const governing = local ?? this.#cluster;
    if (governing.all.length <= MAX_PATTERNS_PER_NAMESPACE) return undefined;
    const what = local
      ? `the ImagePolicies of namespace "${namespace}"`
      : "the ClusterImagePolicies";
    return `Cannot use ${what}: they hold more than ${MAX_PATTERNS_PER_NAMESPACE} repository patterns`;
  }

  /** Whether `namespace` has ImagePolicies (which then replace the cluster policies there). */
  hasImagePolicies(namespace: string): boolean {
    return this.#byNamespace.has(namespace);
  }

  /**
   * The policy for an image admitted into `namespace`. `counter` receives the character steps
   * the matches took (callers that choose for many images yield to the event loop by it).
   */
  select(
    namespace: string,
    image: ImageReference,
    imageText: string,
    counter?: StepCounter,
  ): PolicyMatch | NoPolicyMatch {
    const local = this.#byNamespace.get(namespace);
    const governing = local ?? this.#cluster;
    let best: Compiled | undefined;
    const texts = matchTexts(image);
    for (const c of governing.candidates(image.domain)) {
      if (!patternMatches(c.pattern, texts, counter)) continue;
      if (!best || better(c, best)) best = c;
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
    } else if (this.#cluster.all.length === 0) {
      reason = `no ImagePolicy in namespace "${namespace}" and no ClusterImagePolicy`;
    } else {
      reason =
        `no ClusterImagePolicy matches "${imageText}" and there is no ImagePolicy in namespace "${namespace}"`;
    }
    return { policy: undefined, reason };
  }
}
