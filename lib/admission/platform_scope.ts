/**
 * What a requirement's signatures must cover when the image is a multi-platform index, applied
 * around any kind's `verify`, so a kind needs no code of its own for it. Each signature or
 * attestation requirement says (`multiArch`, default `index`):
 *
 * - `index`: the index digest is verified, as for any image (toolkit's behaviour before, and
 *   Portieris's and containers/image's);
 * - `everyPlatform`: every platform manifest the index lists is verified as an image, by its own
 *   digest, and each must also still be in the registry; `platforms` narrows which count (the
 *   others, and BuildKit's attestation manifests, are ignored and the answer says so);
 * - `either`: the index is verified, and when it is not admitted, every counted platform is.
 *
 * An image that is not an index is verified as it always was, whatever the rule. The index's
 * manifest is read once per verification, bounded (`lib/registry/image_index.ts`). Platforms are
 * verified one at a time on the verification's own slot, and up to
 * {@linkcode MAX_PLATFORMS_AT_ONCE} at once with further slots, taken only when one is free and
 * nobody waits for it (`fair_slots.ts`'s `tryAcquire`): other reviews are never kept waiting for a
 * platform. They run inside the image's verification, which the reviews of that index share
 * (`shared_flight.ts`), under its signal and read budget; two indexes listing the same platform
 * share its cached verdict once one has verified it, not a verification in flight (whose reads
 * are reserved by the index that started it). The first denial, in the index's order, decides and names the platform:
 * `platform linux/arm64 (sha256:…): <the kind's reason>`. An index admitted by its platforms'
 * signatures is still pinned by its own digest; the verdict carries a note saying so, which the
 * answer sends as a warning.
 *
 * @module
 */
import type { MultiArchRule, Requirement } from "../policy/mod.ts";
import {
  ImageIndexBoundError,
  type ImageManifestShape,
  type PlatformManifest,
} from "../registry/mod.ts";
import type {
  AnyRequirementKind,
  ImageToVerify,
  KindOutcome,
  KindServices,
} from "./requirement_kind.ts";
import type { Slot } from "./fair_slots.ts";

/** The most platforms of one image verified at once (each past the first on a free slot). */
export const MAX_PLATFORMS_AT_ONCE = 4;

/** A requirement's rule for indexes. */
export interface PlatformRule {
  readonly multiArch: MultiArchRule;
  /** The platforms that count; undefined: every platform. */
  readonly platforms?: readonly string[] | undefined;
}

/** The rule of `requirement` (`index` when it says nothing). */
export function platformRuleOf(requirement: Requirement): PlatformRule {
  const multiArch = requirement.multiArch ?? "index";
  return multiArch === "index" ? { multiArch } : { multiArch, platforms: requirement.platforms };
}

/** What a verdict under `rule` depends on: "" for `index` (the verdict key of old). */
export function platformRuleKey(rule: PlatformRule): string {
  if (rule.multiArch === "index") return "";
  return `${rule.multiArch}[${rule.platforms?.join(",") ?? "*"}]`;
}

/** What the scope reaches, wired by the verifier (its caches, registry client, slots). */
export interface PlatformWork {
  /** The image's manifest: an image, or an index with what it lists (read once, bounded). */
  shape(): Promise<ImageManifestShape>;
  /**
   * `kind` verifying the platform manifest as an image (its digest in place of the index's),
   * its verdict cached by platform digest; throws when the registry does not have the manifest.
   */
  verifyPlatform(
    kind: AnyRequirementKind,
    plans: readonly unknown[],
    manifest: PlatformManifest,
  ): Promise<KindOutcome>;
  /** A further slot when one is free and nobody waits for it; undefined otherwise. */
  extraSlot(): Slot | undefined;
}

type Allowed = Extract<KindOutcome, { allowed: true }>;
type Denied = Extract<KindOutcome, { allowed: false }>;

/** `linux/arm64 (sha256:…)`. */
function describe(manifest: PlatformManifest): string {
  return `${manifest.platform ?? "(no platform)"} (${manifest.digest})`;
}

/** The platform manifests that count under `rule`, and what is ignored (for the answer). */
export function countedPlatforms(
  manifests: readonly PlatformManifest[],
  rule: PlatformRule,
): { counted: PlatformManifest[]; ignored: string[] } {
  const counted: PlatformManifest[] = [];
  const ignored: string[] = [];
  let attestations = 0;
  for (const m of manifests) {
    if (m.attestation) attestations++;
    else if (rule.platforms === undefined || rule.platforms.includes(m.platform ?? "")) {
      counted.push(m);
    } else ignored.push(m.platform ?? "(no platform)");
  }
  const notes = ignored.length > 0 ? [`${ignored.join(", ")} (not in platforms)`] : [];
  if (attestations > 0) {
    notes.push(`${attestations} attestation manifest${attestations === 1 ? "" : "s"}`);
  }
  return { counted, ignored: notes };
}

/** The requirements of one kind under one rule, verified against one image. */
export class PlatformScope {
  readonly #work: PlatformWork;
  #shape: Promise<ImageManifestShape | ImageIndexBoundError> | undefined;

  constructor(work: PlatformWork) {
    this.#work = work;
  }

  /**
   * The image's shape, read once for every group; an index over the bounds is the policy's
   * denial (its error, named), not a failure of the registry.
   */
  #readShape(): Promise<ImageManifestShape | ImageIndexBoundError> {
    return this.#shape ??= this.#work.shape().catch((error: unknown) => {
      if (error instanceof ImageIndexBoundError) return error;
      throw error;
    });
  }

  /** Verifies `image` by `kind` under `rule`. */
  async verify(
    kind: AnyRequirementKind,
    plans: readonly unknown[],
    rule: PlatformRule,
    image: ImageToVerify,
    services: KindServices,
  ): Promise<KindOutcome> {
    const viaIndex = () => kind.verify(plans, image, services);
    if (rule.multiArch === "index") return await viaIndex();
    if (rule.multiArch === "either") {
      // The index first: when it admits, its manifest is not even read.
      const indexOutcome = await viaIndex();
      if (indexOutcome.allowed) return indexOutcome;
      const shape = await this.#readShape();
      if (shape instanceof ImageIndexBoundError) {
        return {
          allowed: false,
          cause: "policy",
          reason: `${indexOutcome.reason}; ${shape.message}`,
        };
      }
      if (!shape.index) return indexOutcome;
      const platforms = await this.#everyPlatform(kind, plans, rule, shape.manifests, image);
      if (platforms.allowed) return platforms;
      return {
        ...platforms,
        reason:
          `neither the index nor every platform is signed as required (multiArch: either): the index ${image.digest}: ${indexOutcome.reason}; ${platforms.reason}`,
      };
    }
    const shape = await this.#readShape();
    if (shape instanceof ImageIndexBoundError) {
      return { allowed: false, cause: "policy", reason: shape.message };
    }
    if (!shape.index) return await viaIndex();
    const outcome = await this.#everyPlatform(kind, plans, rule, shape.manifests, image);
    if (outcome.allowed) return outcome;
    return {
      ...outcome,
      reason:
        `every platform of the index ${image.digest} must be signed as required (multiArch: everyPlatform): ${outcome.reason}`,
    };
  }

  async #everyPlatform(
    kind: AnyRequirementKind,
    plans: readonly unknown[],
    rule: PlatformRule,
    manifests: readonly PlatformManifest[],
    image: ImageToVerify,
  ): Promise<KindOutcome> {
    const { counted, ignored } = countedPlatforms(manifests, rule);
    if (counted.length === 0) {
      const listed = manifests.filter((m) => !m.attestation).map((m) => m.platform ?? "(none)");
      return {
        allowed: false,
        cause: "policy",
        reason: `the index lists none of the platforms that count (${
          rule.platforms?.join(", ") ?? "any"
        }); it lists ${listed.join(", ") || "no platform"}`,
      };
    }
    const outcomes = await this.#run(counted, image.signal, async (manifest) => {
      try {
        return await this.#work.verifyPlatform(kind, plans, manifest);
      } catch (error) {
        image.signal.throwIfAborted();
        const status = (error as { status?: unknown }).status;
        const message = error instanceof Error ? error.message : String(error);
        return {
          allowed: false,
          cause: status === 404 ? "policy" : "error",
          reason: status === 404
            ? `the registry no longer has this platform's manifest (${message})`
            : message,
        } satisfies Denied;
      }
    });
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome !== undefined && !outcome.allowed) {
        return { ...outcome, reason: `platform ${describe(counted[i]!)}: ${outcome.reason}` };
      }
    }
    const allowed = outcomes as Allowed[];
    const signers = [...new Set(allowed.flatMap((o) => o.signers))];
    const ends = allowed.map((o) => o.validUntil).filter((v): v is number => v !== undefined);
    const note = `the image index ${image.digest} was admitted by the signatures of its platforms ${
      counted.map((m) => m.platform ?? "(no platform)").join(", ")
    } (multiArch: ${rule.multiArch}), not by its own; it is still pinned by its digest${
      ignored.length > 0 ? `; ignored: ${ignored.join("; ")}` : ""
    }`;
    return {
      allowed: true,
      signers,
      ...(ends.length > 0 ? { validUntil: Math.min(...ends) } : {}),
      notes: [note],
    };
  }

  /**
   * Runs `work` over `items` in order: one at a time on the verification's slot, more at once
   * with free slots; after a denial nothing more starts (undefined in its place).
   */
  async #run(
    items: readonly PlatformManifest[],
    signal: AbortSignal,
    work: (item: PlatformManifest) => Promise<KindOutcome>,
  ): Promise<(KindOutcome | undefined)[]> {
    const results = new Array<KindOutcome | undefined>(items.length);
    let next = 0;
    let denied = false;
    const worker = async (slot?: Slot) => {
      try {
        while (next < items.length && !denied) {
          signal.throwIfAborted();
          const i = next++;
          const outcome = await work(items[i]!);
          results[i] = outcome;
          if (!outcome.allowed) denied = true;
        }
      } finally {
        slot?.release();
      }
    };
    const workers = [worker()];
    for (let k = 1; k < Math.min(MAX_PLATFORMS_AT_ONCE, items.length); k++) {
      const slot = this.#work.extraSlot();
      if (slot === undefined) break;
      workers.push(worker(slot));
    }
    await Promise.all(workers);
    return results;
  }
}
