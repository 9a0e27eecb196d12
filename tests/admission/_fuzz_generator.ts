/**
 * The generator of the admission fuzz test (test helper, not exported from `mod.ts`): a seeded
 * PRNG and the AdmissionReviews and raw HTTP bodies it makes.
 *
 * Every choice the generator makes that could be the cause of a failure is a named class
 * (`host-case`, `image-volume`, `tag-digest`, …), recorded on the image or the review it made.
 * A class listed in {@linkcode KNOWN_OPEN_CLASSES} is never generated: that is how a known
 * defect that another change fixes is kept out of a green suite without weakening the oracle.
 *
 * @module
 */
import { OBJECT_SECRET, REGISTRIES, type Registry } from "./_fuzz_world.ts";

/**
 * Generator classes that find known defects not fixed yet. They are not generated unless
 * `TOOLKIT_FUZZ_ALL_CLASSES=1`, so the suite stays green while the oracle stays strict; a class
 * is removed here once its fix is merged. Empty: every class the fuzz knows is generated.
 */
export const KNOWN_OPEN_CLASSES: readonly string[] = [];

/** A small, fast, seeded PRNG (mulberry32). */
export class Rng {
  #state: number;

  /** Starts the sequence of `seed`. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** The seed of review `index` of a run: each review replays from the run's seed and its index. */
export function reviewSeed(runSeed: number, index: number): number {
  let h = (runSeed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  return (h ^ (h >>> 13)) >>> 0;
}

/** Whether a class may be generated. */
export type ClassFilter = (name: string) => boolean;

/** What the generator knows of the world: the images the registries serve. */
export interface Catalogue {
  /** `registry/repository:tag` → digest. */
  readonly tags: ReadonlyMap<string, string>;
  /** Entries of `tags` a policy admits (signed, open): drawn often, so that admits are common. */
  readonly favoured: readonly string[];
}

/** An image string and the classes of the choices that made it. */
export interface GeneratedImage {
  readonly image: string;
  readonly classes: readonly string[];
}

const HEX = "0123456789abcdef";

function hex(rng: Rng, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += HEX[rng.int(16)];
  return s;
}

function flipCase(rng: Rng, s: string): string {
  let out = "";
  let changed = false;
  for (const c of s) {
    const up = rng.chance(0.4);
    out += up ? c.toUpperCase() : c;
    changed ||= up && c.toUpperCase() !== c;
  }
  return changed ? out : s.toUpperCase();
}

/**
 * A spelling of a registry host that dials the same registry (or, for the look-alikes and
 * userinfo-like strings, one that only looks like it); `undefined` host means "no host written"
 * (a Docker Hub short name).
 */
function hostSpelling(
  rng: Rng,
  registry: Registry,
  allowed: ClassFilter,
  favour: number,
): { host: string | undefined; classes: string[] } {
  const [name, port] = registry.split(":") as [string, string | undefined];
  const options: { cls: string; make: () => string | undefined }[] = [
    { cls: "canonical-host", make: () => registry },
    { cls: "host-case", make: () => `${flipCase(rng, name)}${port ? `:${port}` : ""}` },
    { cls: "trailing-dot", make: () => `${name}.${port ? `:${port}` : ""}` },
    {
      cls: "lookalike-host",
      make: () => {
        const swaps: [string, string][] = [
          ["e", "\u0435"],
          ["o", "\u043e"],
          ["a", "\u0430"],
          [
            "l",
            "1",
          ],
          ["r", "\uff52"],
          ["c", "\u0441"],
        ];
        const [from, to] = rng.pick(swaps);
        return `${name.replace(from, to)}${port ? `:${port}` : ""}`;
      },
    },
    {
      cls: "userinfo-host",
      make: () =>
        rng.pick([
          `fuzz:secret@${registry}`,
          `${registry}@attacker.example`,
          `${registry}%40attacker.example`,
          `${registry}#attacker.example`,
        ]),
    },
  ];
  if (port) {
    options.push({
      cls: "port-leading-zero",
      make: () => `${name}:${"0".repeat(1 + rng.int(3))}${port}`,
    });
  } else {
    options.push({ cls: "port-443", make: () => `${name}:${rng.pick(["443", "0443"])}` });
  }
  if (registry === "127.0.0.1:5001") {
    options.push({
      cls: "ipv4-variant",
      make: () => `${rng.pick(["127.1", "127.000.000.001", "2130706433", "0x7f.0.0.1"])}:${port}`,
    });
  }
  if (registry === "docker.io") {
    options.push({ cls: "docker-legacy-alias", make: () => "index.docker.io" });
    options.push({
      cls: "docker-registry-1",
      make: () => rng.pick(["registry-1.docker.io", "Registry-1.Docker.IO"]),
    });
    options.push({ cls: "docker-short", make: () => undefined });
  }
  const usable = options.filter((o) => allowed(o.cls));
  const choice = rng.chance(0.35 + favour / 2) ? usable[0]! : rng.pick(usable);
  return { host: choice.make(), classes: [choice.cls] };
}

/** An image string. */
export function generateImage(
  rng: Rng,
  catalogue: Catalogue,
  allowed: ClassFilter,
  favour = 0,
): GeneratedImage {
  const roll = rng.next() + favour;
  const allTags = [...catalogue.tags.keys()];
  const allDigests = [...catalogue.tags.values()];
  if (roll < 0.06 && allowed("garbage-image")) {
    const alphabet = "aA0:/@._-+=~ \t\n\u0000\u200b\u0130\u212a\ufeffé€𝕒/:@";
    let s = "";
    const length = 1 + rng.int(40);
    for (let i = 0; i < length; i++) s += rng.pick([...alphabet]);
    return { image: s, classes: ["garbage-image"] };
  }
  if (roll < 0.1 && allowed("overlong")) {
    const n = rng.pick([129, 256, 300, 5000, 70_000]);
    const image = rng.pick([
      `registry.example.com/signed/${"a".repeat(n)}:1`,
      `registry.example.com/signed/app:${"v".repeat(n)}`,
      `${"a".repeat(n)}.example.com/signed/app:1`,
      `registry.example.com/${"signed/".repeat(Math.ceil(n / 7))}app:1`,
    ]);
    return { image, classes: ["overlong"] };
  }
  if (roll < 0.14 && allowed("other-registry")) {
    const image = rng.pick([
      "quay.io/team/app:1",
      "attacker.example/registry.example.com/signed/app:1",
      "attacker.example/signed/unsigned:1",
      "registry.example.com.attacker.example/signed/unsigned:1",
      "localhost:5002/signed/unsigned:1",
      "localhost/signed/unsigned:1",
      "nginx:1.27",
    ]);
    return { image, classes: ["other-registry"] };
  }

  const entry = rng.chance(favour) ? rng.pick(catalogue.favoured) : rng.pick(allTags); // registry/repository:tag
  const colon = entry.lastIndexOf(":");
  const registryRepo = entry.slice(0, colon);
  const tag = entry.slice(colon + 1);
  const registry = REGISTRIES.find((r) => registryRepo.startsWith(`${r}/`))!;
  let repository = registryRepo.slice(registry.length + 1);
  const classes: string[] = [];
  const { host, classes: hostClasses } = hostSpelling(rng, registry, allowed, favour);
  classes.push(...hostClasses);
  if (host === undefined && repository.startsWith("library/") && rng.chance(0.5)) {
    repository = repository.slice("library/".length); // `signedbox:2`
  }
  const name = host === undefined ? repository : `${host}/${repository}`;
  const own = catalogue.tags.get(entry)!;
  const forms: { cls: string; make: () => string }[] = [
    { cls: "tag", make: () => `${name}:${tag}` },
    { cls: "no-tag", make: () => name },
    { cls: "digest", make: () => `${name}@${own}` },
    { cls: "digest-of-other-image", make: () => `${name}@${rng.pick(allDigests)}` },
    {
      cls: "tag-digest",
      make: () =>
        `${name}:${rng.pick([tag, "v1", "1", "latest"])}@${
          rng.chance(0.5) ? own : rng.pick(allDigests)
        }`,
    },
    { cls: "unknown-digest", make: () => `${name}@sha256:${hex(rng, 64)}` },
    {
      cls: "digest-algorithm",
      make: () =>
        rng.pick([
          `${name}@sha512:${hex(rng, 128)}`,
          `${name}@sha384:${hex(rng, 96)}`,
          `${name}@md5:${hex(rng, 32)}`,
          `${name}@sha256:${hex(rng, 64).toUpperCase()}`,
          `${name}@sha256:${hex(rng, 63)}`,
          `${name}@${own.replace("sha256", "SHA256")}`,
          `${name}@${own}@${own}`,
        ]),
    },
    { cls: "unknown-tag", make: () => `${name}:${rng.pick(["v9", "nope", "V1", "latest2"])}` },
  ];
  const v1 = catalogue.tags.get(`${registry}/tagonly/app:v1`);
  if (repository === "tagonly/app" && v1 !== undefined) {
    // The digest of the (unsigned) tag v1 of a tag-scoped pattern, with another tag or none.
    forms.push({
      cls: "tag-scope-by-digest",
      make: () => `${name}${rng.pick(["", ":1", ":x", ":v1"])}@${v1}`,
    });
  }
  const usable = forms.filter((f) => allowed(f.cls));
  const form = rng.chance(0.4 + favour / 2) ? usable[0]! : rng.pick(usable);
  classes.push(form.cls);
  const image = form.make();
  if (repository === "tagonly/app" && image.includes("@")) {
    if (!allowed("tag-scope-by-digest")) {
      return { image: `${name}:${tag}`, classes: [...hostClasses, "tag"] };
    }
    // A tag-scoped pattern (`tagonly/app:v*`) and a reference that carries a digest.
    classes.push("tag-scope-by-digest");
  }
  return { image, classes };
}

/** One workload kind: its resource and where its pod spec is. */
interface WorkloadKind {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly path: readonly string[];
}

const TEMPLATE = ["spec", "template", "spec"];

const KINDS: readonly WorkloadKind[] = [
  { group: "", version: "v1", resource: "pods", kind: "Pod", path: ["spec"] },
  {
    group: "",
    version: "v1",
    resource: "replicationcontrollers",
    kind: "ReplicationController",
    path: TEMPLATE,
  },
  { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", path: TEMPLATE },
  { group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", path: TEMPLATE },
  { group: "apps", version: "v1", resource: "statefulsets", kind: "StatefulSet", path: TEMPLATE },
  { group: "apps", version: "v1", resource: "daemonsets", kind: "DaemonSet", path: TEMPLATE },
  { group: "batch", version: "v1", resource: "jobs", kind: "Job", path: TEMPLATE },
  {
    group: "batch",
    version: "v1",
    resource: "cronjobs",
    kind: "CronJob",
    path: ["spec", "jobTemplate", "spec", "template", "spec"],
  },
  {
    group: "apps.openshift.io",
    version: "v1",
    resource: "deploymentconfigs",
    kind: "DeploymentConfig",
    path: TEMPLATE,
  },
  {
    group: "extensions",
    version: "v1beta1",
    resource: "deployments",
    kind: "Deployment",
    path: TEMPLATE,
  },
  { group: "example.io", version: "v1", resource: "widgets", kind: "Widget", path: TEMPLATE },
];

const NAMESPACES = ["dev", "dev", "dev", "strict", "strict", "sandbox", "toolkit-system", ""];

/** A generated review: the body, the policy world to decide it under, and its classes. */
export interface GeneratedReview {
  /** The AdmissionReview (usually valid, sometimes malformed). */
  readonly body: Record<string, unknown>;
  /** Index of the policy world. */
  readonly world: number;
  /** Classes of the review as a whole. */
  readonly classes: readonly string[];
  /** Classes of each image, by the JSON pointer it was written at (before any index shift). */
  readonly imageClasses: ReadonlyMap<string, readonly string[]>;
}

/** Bounds of the generator. */
export interface GeneratorBounds {
  /** The most items in one list of a pod spec. */
  readonly maxItems: number;
}

function weirdValue(rng: Rng): unknown {
  return rng.pick<unknown>([
    null,
    42,
    1e308,
    -0,
    true,
    "",
    " ",
    [],
    {},
    ["registry.example.com/signed/unsigned:1"],
    { image: "registry.example.com/signed/unsigned:1" },
  ]);
}

/** One AdmissionReview. */
export function generateReview(
  rng: Rng,
  catalogue: Catalogue,
  worlds: readonly { readonly classes: readonly string[] }[],
  allowed: ClassFilter,
  bounds: GeneratorBounds,
): GeneratedReview {
  const classes: string[] = [];
  const imageClasses = new Map<string, readonly string[]>();
  const usableWorlds = worlds.map((w, i) => ({ w, i })).filter(({ w }) => w.classes.every(allowed));
  const { w: world, i: worldIndex } = rng.pick(usableWorlds);
  classes.push(...world.classes);
  const kind = rng.pick(KINDS);
  classes.push(`kind-${kind.kind}`);
  const namespace = rng.pick(NAMESPACES);
  let subResource = "";
  if (kind.resource === "pods" && rng.chance(0.15) && allowed("ephemeral-subresource")) {
    subResource = "ephemeralcontainers";
    classes.push("ephemeral-subresource");
  } else if (rng.chance(0.03)) {
    subResource = rng.pick(["status", "scale"]);
    classes.push("other-subresource");
  }
  const legacyEphemeral = subResource === "ephemeralcontainers" && rng.chance(0.3);
  const path = legacyEphemeral ? [] : kind.path;
  const pointerBase = path.map((s) => `/${s}`).join("");

  const spec: Record<string, unknown> = {};
  // Half the reviews mostly name images a policy admits, so that admits (and patches) are common.
  const favour = rng.chance(0.5) ? 0.9 : 0;
  const huge = rng.chance(0.02) && allowed("huge-array");
  if (huge) classes.push("huge-array");
  const lists = ["initContainers", "containers", "ephemeralContainers"] as const;
  for (const list of lists) {
    if (list !== "containers" && !rng.chance(favour > 0 ? 0.15 : 0.3)) continue;
    if (list === "ephemeralContainers" && !allowed("ephemeral-containers")) continue;
    const count = huge ? 1 + rng.int(bounds.maxItems) : 1 + rng.int(favour > 0 ? 2 : 3);
    const items: unknown[] = [];
    let repeat: GeneratedImage | undefined;
    for (let i = 0; i < count; i++) {
      if (rng.chance(0.05) && allowed("shape")) {
        items.push(rng.chance(0.5) ? weirdValue(rng) : { name: `c${i}`, image: weirdValue(rng) });
        classes.push("shape");
        continue;
      }
      // Huge lists repeat a few images (distinct images are bounded by other means).
      const generated: GeneratedImage = huge && repeat && rng.chance(0.9)
        ? repeat
        : generateImage(rng, catalogue, allowed, favour);
      repeat ??= generated;
      items.push({
        name: rng.chance(0.05) ? 7 : `${list.slice(0, 4)}${i}`,
        image: generated.image,
        // A value from the object that must never be logged (the webhook logs no whole objects).
        ...(rng.chance(0.2) ? { env: [{ name: "TOKEN", value: OBJECT_SECRET }] } : {}),
      });
      imageClasses.set(`${pointerBase}/${list}/${i}/image`, [...generated.classes, list]);
    }
    spec[list] = items;
  }
  if (rng.chance(0.25) && allowed("image-volume")) {
    const volumes: unknown[] = [];
    const count = 1 + rng.int(2);
    for (let i = 0; i < count; i++) {
      if (rng.chance(0.3)) {
        volumes.push({ name: `v${i}`, emptyDir: {} });
        continue;
      }
      const generated = generateImage(rng, catalogue, allowed, favour);
      volumes.push({
        name: `v${i}`,
        image: { reference: generated.image, pullPolicy: rng.pick(["Always", "IfNotPresent"]) },
      });
      imageClasses.set(`${pointerBase}/volumes/${i}/image/reference`, [
        ...generated.classes,
        "image-volume",
      ]);
    }
    spec.volumes = volumes;
    classes.push("image-volume");
  }
  if (rng.chance(0.1)) spec.serviceAccountName = rng.pick(["builder", "missing", ""]);
  if (rng.chance(0.1)) {
    spec.imagePullSecrets = rng.pick<unknown>([[{ name: "regcred" }], [{}], "x"]);
  }

  let object: Record<string, unknown> = legacyEphemeral
    ? { kind: "EphemeralContainers", ...spec }
    : nest(path, spec);
  object = {
    apiVersion: kind.group ? `${kind.group}/${kind.version}` : kind.version,
    kind: kind.kind,
    metadata: { name: "fuzz", ...(namespace ? { namespace } : {}) },
    ...object,
  };
  if (legacyEphemeral) object.kind = "EphemeralContainers";
  if (rng.chance(0.04) && allowed("shape")) {
    // A pod spec of the wrong type somewhere on the path.
    const broken = nest(path.slice(0, Math.max(1, rng.int(path.length + 1))), weirdValue(rng));
    object = { ...object, ...broken };
    classes.push("shape");
  }

  const operation = rng.pick([
    "CREATE",
    "CREATE",
    "CREATE",
    "UPDATE",
    "UPDATE",
    "DELETE",
    "CONNECT",
  ]);
  let oldObject: unknown = undefined;
  if (operation === "UPDATE") {
    oldObject = structuredClone(object);
    if (rng.chance(0.3) && allowed("update-deleting")) {
      classes.push("update-deleting");
      (object.metadata as Record<string, unknown>).deletionTimestamp = "2026-01-01T00:00:00Z";
      if (rng.chance(0.5)) {
        // The old object had other (signed) images: the update changes them.
        const old = structuredClone(object);
        replaceImages(old, "registry.example.com/signed/app:1");
        oldObject = old;
      }
    }
  }
  const request: Record<string, unknown> = {
    uid: rng.chance(0.05)
      ? `ü-${hex(rng, 8)}-\u2028-"quoted"`
      : `${hex(rng, 8)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 12)}`,
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: kind.group, version: kind.version, resource: kind.resource },
    ...(subResource ? { subResource } : {}),
    name: "fuzz",
    namespace,
    operation,
    object,
    ...(oldObject !== undefined ? { oldObject } : {}),
    dryRun: rng.chance(0.1),
  };
  if (rng.chance(0.03) && allowed("malformed-review")) {
    classes.push("malformed-review");
    const field = rng.pick(["uid", "kind", "resource", "operation", "object"]);
    if (rng.chance(0.5)) delete request[field];
    else request[field] = weirdValue(rng);
  }
  const body: Record<string, unknown> = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request,
  };
  return { body, world: worldIndex, classes, imageClasses };
}

function nest(path: readonly string[], leaf: unknown): Record<string, unknown> {
  let value: unknown = leaf;
  for (const segment of [...path].reverse()) value = { [segment]: value };
  return value as Record<string, unknown>;
}

function replaceImages(value: unknown, image: string): void {
  if (Array.isArray(value)) {
    value.forEach((v) => replaceImages(v, image));
  } else if (typeof value === "object" && value !== null) {
    const o = value as Record<string, unknown>;
    if (typeof o.image === "string") o.image = image;
    if (typeof o.reference === "string") o.reference = image;
    Object.values(o).forEach((v) => replaceImages(v, image));
  }
}

/** A raw HTTP body for the handler and the content type it is sent with. */
export interface GeneratedBody {
  readonly bytes: Uint8Array;
  readonly contentType: string | undefined;
  readonly classes: readonly string[];
}

const encoder = new TextEncoder();

/** A raw body, mostly a damaged form of a valid review. */
export function generateBody(
  rng: Rng,
  review: Record<string, unknown>,
  bounds: { readonly maxDepth: number },
): GeneratedBody {
  const text = JSON.stringify(review);
  const contentType = rng.chance(0.8) ? "application/json" : rng.pick([
    undefined,
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json; charset=utf-16",
    "application/yaml",
  ]);
  const kind = rng.pick([
    "truncated",
    "truncated",
    "huge-number",
    "deep-nesting",
    "wrong-top-level",
    "garbage-bytes",
    "bom",
    "duplicate-keys",
    "uid-types",
    "valid",
  ]);
  let body: string | Uint8Array;
  switch (kind) {
    case "truncated":
      body = text.slice(0, rng.int(text.length));
      break;
    case "huge-number": {
      const number = rng.pick([
        "1e400",
        "-1e400",
        "123456789012345678901234567890",
        "-0",
        "0.0000000000000000000001e-400",
      ]);
      const at = rng.pick(['"uid":', '"operation":', '"image":', '"kind":', '"object":']);
      body = text.replace(
        new RegExp(`${at}("(?:[^"\\\\]|\\\\.)*"|\\{)`),
        `${at}${number}${at === '"object":' ? ',"x":{' : ""}`,
      );
      break;
    }
    case "deep-nesting": {
      const depth = 1 + rng.int(bounds.maxDepth);
      const open = rng.chance(0.5) ? "[" : '{"a":';
      const close = open === "[" ? "]" : "}";
      const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
      body = text.replace('"metadata":{', `"metadata":{"deep":${nested},`);
      if (rng.chance(0.3)) body = nested;
      break;
    }
    case "wrong-top-level":
      body = rng.pick([
        "[]",
        "null",
        '"AdmissionReview"',
        "42",
        "{}",
        `[${text}]`,
        `{"request":${text}}`,
      ]);
      break;
    case "garbage-bytes":
      body = Uint8Array.from({ length: rng.int(200) }, () => rng.int(256));
      break;
    case "bom":
      body = `\ufeff${text}`;
      break;
    case "duplicate-keys":
      body = text.replace('"uid":', `"uid":"dup-first","uid":`);
      break;
    case "uid-types": {
      const uid = rng.pick([
        '""',
        "null",
        "7",
        "[]",
        '{"a":1}',
        `"${"u".repeat(10_000)}"`,
        '"\\ud800"',
      ]);
      body = text.replace(/"uid":"(?:[^"\\]|\\.)*"/, `"uid":${uid}`);
      break;
    }
    default:
      body = text;
  }
  return {
    bytes: typeof body === "string" ? encoder.encode(body) : body,
    contentType,
    classes: [`body-${kind}`],
  };
}
