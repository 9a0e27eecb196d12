import assert from "node:assert/strict";
import type { ImageManifestShape, PlatformManifest } from "../registry/mod.ts";
import { ImageIndexBoundError, RegistryError } from "../registry/mod.ts";
import type { Requirement } from "../policy/mod.ts";
import { planKinds, plansKey, verifyKinds } from "./kind_dispatch.ts";
import {
  countedPlatforms,
  MAX_PLATFORMS_AT_ONCE,
  type PlatformRule,
  platformRuleKey,
  platformRuleOf,
  PlatformScope,
  type PlatformWork,
} from "./platform_scope.ts";
import type { AnyRequirementKind, ImageToVerify, KindOutcome } from "./requirement_kind.ts";
import { REQUIREMENT_KINDS } from "./requirement_kinds.ts";
import type { Slot } from "./fair_slots.ts";
import { fakePlanContext, fakeServices } from "../../tests/fakes/requirement_kinds.ts";

const digest = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;
const INDEX = digest(1);

function platform(n: number, name: string | undefined, attestation = false): PlatformManifest {
  return {
    digest: digest(n),
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    size: 500,
    platform: name,
    attestation,
  };
}

const AMD64 = platform(2, "linux/amd64");
const ARM64 = platform(3, "linux/arm64");
const S390X = platform(4, "linux/s390x");
const ATTESTATION = platform(5, "unknown/unknown", true);
const INDEX_SHAPE: ImageManifestShape = {
  index: true,
  mediaType: "application/vnd.oci.image.index.v1+json",
  manifests: [AMD64, ARM64, ATTESTATION],
};

/** A kind whose verdict is decided by the digest it is asked about (signed digests admit). */
function digestKind(signed: Set<string>, asked: string[]): AnyRequirementKind {
  return {
    ...REQUIREMENT_KINDS.sigstoreSigned,
    verify: (_plans: readonly unknown[], image: ImageToVerify): Promise<KindOutcome> => {
      asked.push(image.digest);
      return Promise.resolve(
        signed.has(image.digest)
          ? { allowed: true, signers: [`signer-of-${image.digest.slice(-1)}`], validUntil: 100 }
          : {
            allowed: false,
            cause: "policy",
            reason: "A signature was required, but no signature exists",
          },
      );
    },
  };
}

interface FakeWork extends PlatformWork {
  shapes: number;
  running: number;
  most: number;
  slotsTaken: number;
  slotsReleased: number;
}

function fakeWork(
  shape: ImageManifestShape,
  options: { missing?: Set<string>; freeSlots?: number; services?: unknown } = {},
): FakeWork {
  const { services } = fakeServices();
  let free = options.freeSlots ?? 0;
  const work: FakeWork = {
    shapes: 0,
    running: 0,
    most: 0,
    slotsTaken: 0,
    slotsReleased: 0,
    shape() {
      work.shapes++;
      return Promise.resolve(shape);
    },
    async verifyPlatform(kind, plans, manifest) {
      work.running++;
      work.most = Math.max(work.most, work.running);
      try {
        await new Promise((r) => setTimeout(r, 1));
        if (options.missing?.has(manifest.digest)) {
          throw new RegistryError(`Cannot read manifest of r.example/app@${manifest.digest}: 404`, {
            status: 404,
            registry: "r.example",
          });
        }
        return await kind.verify(plans, { ...image, digest: manifest.digest }, services);
      } finally {
        work.running--;
      }
    },
    extraSlot(): Slot | undefined {
      if (free === 0) return undefined;
      free--;
      work.slotsTaken++;
      return {
        release: () => work.slotsReleased++,
        [Symbol.dispose]: () => work.slotsReleased++,
      };
    },
  };
  return work;
}

const image = { digest: INDEX, signal: new AbortController().signal } as ImageToVerify;

async function verifyUnder(
  rule: PlatformRule,
  signed: string[],
  work: FakeWork = fakeWork(INDEX_SHAPE),
): Promise<{ outcome: KindOutcome; asked: string[] }> {
  const { services } = fakeServices();
  const asked: string[] = [];
  const scope = new PlatformScope(work);
  const outcome = await scope.verify(digestKind(new Set(signed), asked), [], rule, image, services);
  return { outcome, asked };
}

Deno.test("platformRuleOf() and platformRuleKey(): index by default, its key empty", () => {
  assert.deepEqual(platformRuleOf({ type: "signedBy", keySecret: "k" }), { multiArch: "index" });
  assert.equal(platformRuleKey({ multiArch: "index" }), "");
  assert.equal(platformRuleKey({ multiArch: "everyPlatform" }), "everyPlatform[*]");
  assert.equal(
    platformRuleKey(platformRuleOf({
      type: "signedBy",
      multiArch: "either",
      platforms: ["linux/amd64", "linux/arm64"],
    })),
    "either[linux/amd64,linux/arm64]",
  );
});

Deno.test("countedPlatforms() leaves out attestations and platforms not listed, and says so", () => {
  const all = [AMD64, ARM64, S390X, ATTESTATION];
  assert.deepEqual(countedPlatforms(all, { multiArch: "everyPlatform" }), {
    counted: [AMD64, ARM64, S390X],
    ignored: ["1 attestation manifest"],
  });
  assert.deepEqual(
    countedPlatforms(all, { multiArch: "everyPlatform", platforms: ["linux/arm64"] }),
    {
      counted: [ARM64],
      ignored: ["linux/amd64, linux/s390x (not in platforms)", "1 attestation manifest"],
    },
  );
});

Deno.test("index: the index digest alone is verified, the manifest not even read", async () => {
  const work = fakeWork(INDEX_SHAPE);
  const { outcome, asked } = await verifyUnder({ multiArch: "index" }, [INDEX], work);
  assert.equal(outcome.allowed, true);
  assert.deepEqual(asked, [INDEX]);
  assert.equal(work.shapes, 0);
  const denied = await verifyUnder({ multiArch: "index" }, [AMD64.digest, ARM64.digest]);
  assert.equal(denied.outcome.allowed, false);
});

Deno.test("everyPlatform: every platform must verify; the index's signature does not count", async () => {
  const ok = await verifyUnder({ multiArch: "everyPlatform" }, [AMD64.digest, ARM64.digest]);
  assert.deepEqual(ok.outcome, {
    allowed: true,
    signers: ["signer-of-2", "signer-of-3"],
    validUntil: 100,
    notes: [
      `the image index ${INDEX} was admitted by the signatures of its platforms linux/amd64, linux/arm64 (multiArch: everyPlatform), not by its own; it is still pinned by its digest; ignored: 1 attestation manifest`,
    ],
  });
  assert.deepEqual(ok.asked.toSorted(), [AMD64.digest, ARM64.digest]);

  const onlyIndex = await verifyUnder({ multiArch: "everyPlatform" }, [INDEX]);
  assert.deepEqual(onlyIndex.outcome, {
    allowed: false,
    cause: "policy",
    reason:
      `every platform of the index ${INDEX} must be signed as required (multiArch: everyPlatform): platform linux/amd64 (${AMD64.digest}): A signature was required, but no signature exists`,
  });

  const oneUnsigned = await verifyUnder({ multiArch: "everyPlatform" }, [INDEX, AMD64.digest]);
  assert.equal(oneUnsigned.outcome.allowed, false);
  assert.match(
    (oneUnsigned.outcome as { reason: string }).reason,
    /: platform linux\/arm64 \(sha256:0+3\): A signature was required, but no signature exists$/,
  );
});

Deno.test("everyPlatform: a platform manifest the registry no longer has denies, named", async () => {
  const work = fakeWork(INDEX_SHAPE, { missing: new Set([ARM64.digest]) });
  const { outcome } = await verifyUnder(
    { multiArch: "everyPlatform" },
    [AMD64.digest, ARM64.digest],
    work,
  );
  assert.equal(outcome.allowed, false);
  assert.equal((outcome as { cause: string }).cause, "policy");
  assert.match(
    (outcome as { reason: string }).reason,
    /platform linux\/arm64 \(sha256:0+3\): the registry no longer has this platform's manifest \(Cannot read manifest/,
  );
});

Deno.test("everyPlatform with platforms: only those count, the others are ignored and named", async () => {
  const shape = { ...INDEX_SHAPE, manifests: [AMD64, ARM64, S390X] };
  const { outcome, asked } = await verifyUnder(
    { multiArch: "everyPlatform", platforms: ["linux/amd64", "linux/arm64"] },
    [AMD64.digest, ARM64.digest],
    fakeWork(shape),
  );
  assert.equal(outcome.allowed, true);
  assert.deepEqual(asked.toSorted(), [AMD64.digest, ARM64.digest]);
  assert.match(
    (outcome as { notes: readonly string[] }).notes[0]!,
    /; ignored: linux\/s390x \(not in platforms\)$/,
  );
  const none = await verifyUnder(
    { multiArch: "everyPlatform", platforms: ["windows/amd64"] },
    [INDEX],
    fakeWork(shape),
  );
  assert.deepEqual(none.outcome, {
    allowed: false,
    cause: "policy",
    reason:
      `every platform of the index ${INDEX} must be signed as required (multiArch: everyPlatform): the index lists none of the platforms that count (windows/amd64); it lists linux/amd64, linux/arm64, linux/s390x`,
  });
});

Deno.test("either: the index or every platform; the denial tells both", async () => {
  const byIndex = await verifyUnder({ multiArch: "either" }, [INDEX]);
  assert.deepEqual(byIndex.outcome, { allowed: true, signers: ["signer-of-1"], validUntil: 100 });
  assert.deepEqual(byIndex.asked, [INDEX], "the platforms are not read when the index admits");

  const byPlatforms = await verifyUnder({ multiArch: "either" }, [AMD64.digest, ARM64.digest]);
  assert.equal(byPlatforms.outcome.allowed, true);
  assert.match(
    (byPlatforms.outcome as { notes: readonly string[] }).notes[0]!,
    /multiArch: either/,
  );

  const neither = await verifyUnder({ multiArch: "either" }, [AMD64.digest]);
  assert.deepEqual(neither.outcome, {
    allowed: false,
    cause: "policy",
    reason:
      `neither the index nor every platform is signed as required (multiArch: either): the index ${INDEX}: A signature was required, but no signature exists; platform linux/arm64 (${ARM64.digest}): A signature was required, but no signature exists`,
  });
});

Deno.test("an image that is not an index is verified as ever, whatever the rule", async () => {
  const shape: ImageManifestShape = {
    index: false,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
  };
  for (const multiArch of ["everyPlatform", "either"] as const) {
    const { outcome, asked } = await verifyUnder({ multiArch }, [INDEX], fakeWork(shape));
    assert.deepEqual(outcome, { allowed: true, signers: ["signer-of-1"], validUntil: 100 });
    assert.deepEqual(asked, [INDEX]);
  }
});

Deno.test("platforms run one at a time without free slots, more with them, slots given back", async () => {
  const many = Array.from({ length: 8 }, (_, i) => platform(10 + i, `linux/arch${i}`));
  const shape = { ...INDEX_SHAPE, manifests: many };
  const signed = many.map((m) => m.digest);

  const alone = fakeWork(shape);
  assert.equal(
    (await verifyUnder({ multiArch: "everyPlatform" }, signed, alone)).outcome.allowed,
    true,
  );
  assert.equal(alone.most, 1);

  const free = fakeWork(shape, { freeSlots: 10 });
  assert.equal(
    (await verifyUnder({ multiArch: "everyPlatform" }, signed, free)).outcome.allowed,
    true,
  );
  assert.equal(free.most, MAX_PLATFORMS_AT_ONCE);
  assert.equal(free.slotsTaken, MAX_PLATFORMS_AT_ONCE - 1);
  assert.equal(free.slotsReleased, free.slotsTaken);
});

Deno.test("after a denial no further platform starts", async () => {
  const many = Array.from({ length: 8 }, (_, i) => platform(10 + i, `linux/arch${i}`));
  const work = fakeWork({ ...INDEX_SHAPE, manifests: many });
  const { outcome, asked } = await verifyUnder({ multiArch: "everyPlatform" }, [], work);
  assert.equal(outcome.allowed, false);
  assert.deepEqual(asked, [many[0]!.digest]);
});

Deno.test("verifyKinds() applies each group's rule through the scope, its manifest read once", async () => {
  const { services } = fakeServices();
  const requirements: Requirement[] = [
    { type: "signedBy", keySecret: "a", multiArch: "everyPlatform" },
    { type: "signedBy", keySecret: "b" },
    { type: "sigstoreSigned", keySecret: "c", multiArch: "either", platforms: ["linux/amd64"] },
  ];
  const groups = await planKinds(requirements, fakePlanContext(services));
  assert.deepEqual(groups.map((g) => [g.kind.type, g.plans.length, g.rule?.multiArch]), [
    ["sigstoreSigned", 1, "either"],
    ["signedBy", 1, "everyPlatform"],
    ["signedBy", 1, undefined],
  ]);
  assert.match(
    plansKey(groups),
    /^sigstoreSigned@either\[linux\/amd64\]:.*\|signedBy@everyPlatform\[\*\]:.*\|signedBy:/,
  );
  const asked: string[] = [];
  const kind = digestKind(new Set([INDEX, AMD64.digest, ARM64.digest]), asked);
  const work = fakeWork(INDEX_SHAPE);
  const outcome = await verifyKinds(
    groups.map((g) => ({ ...g, kind })),
    image,
    services,
    new PlatformScope(work),
  );
  assert.equal(outcome.allowed, true);
  assert.equal(work.shapes, 1);
  assert.deepEqual(
    (outcome as { notes: readonly string[] }).notes.length,
    1,
    "either admitted by the index",
  );
  const without = await verifyKinds(groups.map((g) => ({ ...g, kind })), image, services);
  assert.deepEqual(without, {
    allowed: false,
    cause: "error",
    reason: "multiArch: either needs the image's platform manifests, not read here",
  });
});

Deno.test("either: an index that admits is not read (its bounds do not matter then)", async () => {
  const work = fakeWork(INDEX_SHAPE);
  work.shape = () => Promise.reject(new Error("read"));
  const { outcome } = await verifyUnder({ multiArch: "either" }, [INDEX], work);
  assert.equal(outcome.allowed, true);
  const shape: ImageManifestShape = {
    index: false,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
  };
  const denied = await verifyUnder({ multiArch: "either" }, [], fakeWork(shape));
  assert.deepEqual(denied.outcome, {
    allowed: false,
    cause: "policy",
    reason: "A signature was required, but no signature exists",
  });
});

Deno.test("an index over the bounds is the policy's denial, named; under either after the index's", async () => {
  const work = fakeWork(INDEX_SHAPE);
  const bound = new ImageIndexBoundError(`r.example/app@${INDEX}`, "manifests", 64, 65);
  work.shape = () => Promise.reject(bound);
  const every = await verifyUnder({ multiArch: "everyPlatform" }, [], work);
  assert.deepEqual(every.outcome, { allowed: false, cause: "policy", reason: bound.message });
  const either = await verifyUnder({ multiArch: "either" }, [], work);
  assert.deepEqual(either.outcome, {
    allowed: false,
    cause: "policy",
    reason: `A signature was required, but no signature exists; ${bound.message}`,
  });
  const other = fakeWork(INDEX_SHAPE);
  other.shape = () => Promise.reject(new Error("registry down"));
  await assert.rejects(verifyUnder({ multiArch: "everyPlatform" }, [], other), /registry down/);
});
