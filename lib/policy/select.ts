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
import type { Slicer } from "../turns.ts";
import type { ImageReference } from "../image/mod.ts";
import { matchTexts, parsePattern, patternMatches, type RepositoryPattern } from "./pattern.ts";

/**
 * The most repository patterns that govern one namespace (its ImagePolicies, or the cluster
 * policies where it has none). One choice then takes at most this many linear-time matches.
 */
export const MAX_PATTERNS_PER_NAMESPACE = 512;

/** How many patterns {@linkcode PolicySet.selectInSlices} tries between two looks at the time. */
export const PATTERNS_PER_SLICE = 16;

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

/** The patterns of one group of policies (sorted by name), in their order. */
function compileGroup(group: readonly ImagePolicy[]): Governing {
  const steps = compiling(group);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** {@linkcode compileGroup}, pausing (yielding) after every {@linkcode PATTERNS_PER_SLICE} patterns. */
function* compiling(group: readonly ImagePolicy[]): Generator<void, Governing> {
  const governing = new Governing();
  let order = 0;
  for (const p of group) {
    for (const r of p.repositories) {
      // Past the bound the set is a problem (see problem()); compiling more would only cost.
      if (governing.all.length > MAX_PATTERNS_PER_NAMESPACE) return governing;
      if (order > 0 && order % PATTERNS_PER_SLICE === 0) yield;
      governing.add({
        pattern: parsePattern(r.name),
        policy: r.policy,
        source: describe(p),
        owner: p,
        order: order++,
      });
    }
  }
  return governing;
}

/** The scope of a policy: `""` for a ClusterImagePolicy, else the ImagePolicy's namespace. */
export function policyScope(policy: ImagePolicy): string {
  return policy.kind === "ClusterImagePolicy" ? "" : policy.namespace ?? "default";
}

/** The order of ties, as ever: by name as the locale sorts it. */
function byName(a: ImagePolicy, b: ImagePolicy): number {
  return a.name.localeCompare(b.name);
}

const compiledScopes = new WeakMap<CompiledScope, Governing>();

/**
 * The policies of one scope (the cluster's, `""`, or one namespace's ImagePolicies), compiled
 * apart from any set by {@linkcode PolicySet.compileScope}, to be put into one with
 * {@linkcode PolicySet.withScope}.
 */
export class CompiledScope {
  /** `""` for the cluster policies, else a namespace. */
  readonly scope: string;
  /** The policies, in their stable order. */
  readonly policies: readonly ImagePolicy[];

  private constructor(scope: string, policies: readonly ImagePolicy[]) {
    this.scope = scope;
    this.policies = policies;
  }

  /** @internal */
  static of(scope: string, policies: readonly ImagePolicy[], governing: Governing): CompiledScope {
    const compiled = new CompiledScope(scope, policies);
    compiledScopes.set(compiled, governing);
    return compiled;
  }
}

function describe(p: ImagePolicy): string {
  return p.kind === "ImagePolicy"
    ? `ImagePolicy "${p.namespace}/${p.name}"`
    : `ClusterImagePolicy "${p.name}"`;
}

/** A set of policies, compiled once, that answers which policy applies to an image. */
export class PolicySet {
  #cluster: Governing;
  readonly #byNamespace = new Map<string, Governing>();
  /** The policies of each group (`""` for the cluster), as given: what a later set compares. */
  readonly #groups = new Map<string, ImagePolicy[]>();
  #size = 0;

  /**
   * Compiles the policies. With `previous`, a group (the cluster policies, or one namespace's
   * ImagePolicies) made of the very same policy objects as there is not compiled again: when
   * one namespace's ImagePolicy changes, only that namespace is compiled, so the cost of a change
   * is bounded by what one namespace may hold, whatever the others hold.
   */
  constructor(policies: Iterable<ImagePolicy>, previous?: PolicySet) {
    let size = 0;
    for (const p of policies) {
      size++;
      // A namespace with ImagePolicies is governed by them, even when they list nothing.
      const key = policyScope(p);
      const group = this.#groups.get(key);
      if (group) group.push(p);
      else this.#groups.set(key, [p]);
    }
    this.#size = size;
    this.#cluster = new Governing();
    for (const [key, group] of this.#groups) {
      group.sort(byName);
      const before = previous === undefined ? undefined : previous.#groups.get(key);
      const same = before !== undefined && before.length === group.length &&
        before.every((p, i) => p === group[i]);
      const governing = same ? previous!.#governing(key) : compileGroup(group);
      if (key === "") this.#cluster = governing;
      else this.#byNamespace.set(key, governing);
    }
  }

  /** The number of policies in the set. */
  get size(): number {
    return this.#size;
  }

  /**
   * Compiles the policies of one scope (`""`: they must all be ClusterImagePolicies; else all
   * ImagePolicies of that namespace) apart from any set, cut into slices: every
   * {@linkcode PATTERNS_PER_SLICE} patterns it asks `slicer.due()` whether its slice has taken
   * long enough, and if so waits for `slicer.next()`.
   */
  static async compileScope(
    scope: string,
    policies: readonly ImagePolicy[],
    slicer: Slicer,
  ): Promise<CompiledScope> {
    const group = [...policies].sort(byName);
    const steps = compiling(group);
    for (;;) {
      const step = steps.next();
      if (step.done) return CompiledScope.of(scope, group, step.value);
      slicer.counter.steps += PATTERNS_PER_SLICE * 100;
      if (slicer.due()) await slicer.next();
    }
  }

  /**
   * This set with the policies of one scope replaced by `compiled` (no policies: the scope has
   * none any more, and a namespace is governed by the cluster policies again). The other scopes
   * are shared, not compiled again: the cost is a copy of the set's index, whatever it holds.
   */
  withScope(compiled: CompiledScope): PolicySet {
    const governing = compiledScopes.get(compiled)!;
    const { scope, policies } = compiled;
    const next = new PolicySet([]);
    next.#cluster = scope === ""
      ? (policies.length > 0 ? governing : new Governing())
      : this.#cluster;
    for (const [key, value] of this.#byNamespace) {
      if (key !== scope) next.#byNamespace.set(key, value);
    }
    for (const [key, value] of this.#groups) if (key !== scope) next.#groups.set(key, value);
    if (policies.length > 0) {
      next.#groups.set(scope, [...policies]);
      if (scope !== "") next.#byNamespace.set(scope, governing);
    }
    next.#size = this.#size - (this.#groups.get(scope)?.length ?? 0) + policies.length;
    return next;
  }

  #governing(key: string): Governing {
    return key === "" ? this.#cluster : this.#byNamespace.get(key)!;
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
   * the matches took.
   */
  select(
    namespace: string,
    image: ImageReference,
    imageText: string,
    counter?: StepCounter,
  ): PolicyMatch | NoPolicyMatch {
    const steps = this.#choose(namespace, image, imageText, counter);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * {@linkcode select}, cut into slices: every {@linkcode PATTERNS_PER_SLICE} patterns it asks
   * `slicer.due()` whether its slice has taken long enough, and if so waits for
   * `slicer.next()` (another turn of the event loop) before it goes on. A namespace's 512
   * patterns then never hold the event loop in one piece, even while the code is still cold.
   */
  async selectInSlices(
    namespace: string,
    image: ImageReference,
    imageText: string,
    slicer: Slicer,
  ): Promise<PolicyMatch | NoPolicyMatch> {
    const steps = this.#choose(namespace, image, imageText, slicer.counter);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      if (slicer.due()) await slicer.next();
    }
  }

  /** The choice, pausing (yielding) after every {@linkcode PATTERNS_PER_SLICE} patterns. */
  *#choose(
    namespace: string,
    image: ImageReference,
    imageText: string,
    counter: StepCounter | undefined,
  ): Generator<void, PolicyMatch | NoPolicyMatch> {
    const local = this.#byNamespace.get(namespace);
    const governing = local ?? this.#cluster;
    let best: Compiled | undefined;
    const texts = matchTexts(image);
    let tried = 0;
    for (const c of governing.candidates(image.domain)) {
      if (++tried % PATTERNS_PER_SLICE === 0) yield;
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
