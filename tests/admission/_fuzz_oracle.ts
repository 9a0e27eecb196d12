/**
 * The oracle of the admission fuzz test (test helper, not exported from `mod.ts`): from first
 * principles, without the code under test's parser, workload table or policy matcher, it says
 * which images of a review could run and whether each is allowed, and checks the webhook's
 * answer against that:
 *
 * - every review that can be read gets a 200 AdmissionReview answer with its uid; one that
 *   cannot gets a 4xx (what the handler does today), never a 5xx and never an exception;
 * - no admit of an image the policy protects unless a signature by one of the policy's valid
 *   keys was made for exactly the digest that would run, for that repository; for an
 *   `attestation` requirement, unless an attestation of its predicate type by one of its valid
 *   keys, for that digest, has the builder its one condition asks for; for an index, the digest
 *   that must be signed or attested is the index's (`multiArch: index`), every counted platform's
 *   (`everyPlatform`: those of `platforms`, never BuildKit's attestation manifests, at least one),
 *   or either (docs/admission.md, "Multi-platform images");
 * - no admit of an image string the oracle cannot read (a runtime could not pull it either,
 *   so the webhook reading it differently is a spelling the two disagree on);
 * - the patch is a JSON Patch of `replace` operations that apply to the object, only on image
 *   fields, each value `<same repository>@<the digest that was verified>`; a protected image
 *   given by tag in a pinning policy is pinned;
 * - no answer says "internal error", and no answer or log line holds a secret.
 *
 * The oracle is deliberately simple and conservative: where the policy semantics are subtle
 * (the most specific pattern wins) it accepts a signature by any key of any rule that covers the
 * image, so it never calls a correct admit a failure.
 *
 * @module
 */
import {
  canonicalRegistry,
  EXEMPT_NAMESPACES,
  FUZZ_PREDICATE_TYPE,
  type FuzzWorld,
  GOOD_BUILDER,
  type PolicyWorld,
  type ScopeRule,
  VALID_KEYS,
} from "./_fuzz_world.ts";
import { checkJsonShape } from "../../lib/json_shape.ts";
import { bodyShapeLimits } from "../../webhook/body_pool.ts";

/** An image reference as the oracle reads it: canonical registry and repository. */
export interface OracleReference {
  readonly registry: string;
  readonly repository: string;
  readonly tag?: string | undefined;
  readonly digest?: string | undefined;
}

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^(?:sha256:[0-9a-f]{64}|sha384:[0-9a-f]{96}|sha512:[0-9a-f]{128})$/;

/**
 * Reads an image reference the way a container runtime would pull it: `[host/]path[:tag][@digest]`,
 * the host recognised by a `.` or `:` or being `localhost` or having upper case, the host
 * canonicalised as it is dialled, Docker Hub names completed. Undefined when nothing could pull it.
 */
export function oracleParse(image: string): OracleReference | undefined {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return undefined;
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return undefined;
  }
  const parts = rest.split("/");
  let host = "docker.io";
  const first = parts[0]!;
  if (
    parts.length > 1 &&
    (/[.:]/.test(first) || first.toLowerCase() === "localhost" || first !== first.toLowerCase())
  ) {
    host = parts.shift()!;
  }
  const registry = canonicalRegistry(host);
  if (registry === undefined || !parts.every((c) => PATH_COMPONENT.test(c))) return undefined;
  const repository = registry === "docker.io" && parts.length === 1
    ? `library/${parts[0]}`
    : parts.join("/");
  return { registry, repository, tag, digest };
}

/** One place in the object where an image that could run is named. */
export interface ImageSite {
  /** JSON pointer of the string. */
  readonly pointer: string;
  /** The image as written. */
  readonly image: string;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Where the pod spec is, by `group/resource` (what Kubernetes runs from each workload). */
const POD_SPECS: Readonly<Record<string, readonly string[]>> = {
  "/pods": ["spec"],
  "/replicationcontrollers": ["spec", "template", "spec"],
  "apps/deployments": ["spec", "template", "spec"],
  "apps/replicasets": ["spec", "template", "spec"],
  "apps/statefulsets": ["spec", "template", "spec"],
  "apps/daemonsets": ["spec", "template", "spec"],
  "extensions/deployments": ["spec", "template", "spec"],
  "extensions/replicasets": ["spec", "template", "spec"],
  "extensions/daemonsets": ["spec", "template", "spec"],
  "batch/jobs": ["spec", "template", "spec"],
  "batch/cronjobs": ["spec", "jobTemplate", "spec", "template", "spec"],
  "apps.openshift.io/deploymentconfigs": ["spec", "template", "spec"],
  "/deploymentconfigs": ["spec", "template", "spec"],
};

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

function containerSites(
  spec: unknown,
  base: readonly string[],
  lists: readonly string[],
  volumes: boolean,
): ImageSite[] {
  const sites: ImageSite[] = [];
  if (!isObject(spec)) return sites;
  const prefix = base.map((s) => `/${escapePointer(s)}`).join("");
  for (const list of lists) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      if (isObject(item) && typeof item.image === "string" && item.image.trim() !== "") {
        sites.push({ pointer: `${prefix}/${list}/${i}/image`, image: item.image });
      }
    });
  }
  if (volumes && Array.isArray(spec.volumes)) {
    spec.volumes.forEach((volume, i) => {
      const image = isObject(volume) && isObject(volume.image) ? volume.image.reference : undefined;
      if (typeof image === "string" && image.trim() !== "") {
        sites.push({ pointer: `${prefix}/volumes/${i}/image/reference`, image });
      }
    });
  }
  return sites;
}

/** The parts of a review request the oracle reads. */
export interface OracleRequest {
  readonly uid: string;
  readonly operation: string;
  readonly namespace: string;
  readonly group: string;
  readonly resource: string;
  readonly subResource: string;
  readonly object: unknown;
  readonly oldObject: unknown;
}

/** Reads a review body as the AdmissionReview contract defines it; undefined when it is not one. */
export function readReview(body: unknown): OracleRequest | undefined {
  if (!isObject(body) || body.apiVersion !== "admission.k8s.io/v1") return undefined;
  if (body.kind !== "AdmissionReview" || !isObject(body.request)) return undefined;
  const r = body.request;
  if (typeof r.uid !== "string" || r.uid === "") return undefined;
  if (!isObject(r.kind) || !isObject(r.resource)) return undefined;
  if (!["CREATE", "UPDATE", "DELETE", "CONNECT"].includes(r.operation as string)) return undefined;
  const text = (v: unknown) => typeof v === "string" ? v : "";
  return {
    uid: r.uid,
    operation: r.operation as string,
    namespace: text(r.namespace),
    group: text(r.resource.group),
    resource: text(r.resource.resource),
    subResource: text(r.subResource),
    object: r.object,
    oldObject: r.oldObject,
  };
}

/** The images of the object that could run after the request. */
export function imageSites(request: OracleRequest, object: unknown = request.object): ImageSite[] {
  const path = POD_SPECS[`${request.group}/${request.resource}`];
  if (path === undefined) return []; // nothing Kubernetes runs
  if (request.subResource !== "") {
    if (request.resource !== "pods" || request.subResource !== "ephemeralcontainers") return [];
    // Only the ephemeral containers can change through this subresource.
    if (isObject(object) && object.kind === "EphemeralContainers") {
      return containerSites(object, [], ["ephemeralContainers"], false);
    }
    return containerSites(dig(object, path), path, ["ephemeralContainers"], false);
  }
  const lists = ["initContainers", "containers", "ephemeralContainers"];
  return containerSites(dig(object, path), path, lists, true);
}

function dig(object: unknown, path: readonly string[]): unknown {
  let at = object;
  for (const segment of path) at = isObject(at) ? at[segment] : undefined;
  return at;
}

/** What the oracle says of one image. */
export type SiteVerdict =
  | { readonly kind: "unreadable" }
  /** No rule that needs a signature covers it (open, insecureAcceptAnything, catch-all). */
  | {
    readonly kind: "free";
    readonly ref: OracleReference;
    readonly digest?: string | undefined;
    readonly rules: readonly ScopeRule[];
  }
  /** A signature is needed and one exists. */
  | {
    readonly kind: "signed";
    readonly ref: OracleReference;
    readonly digest: string;
    readonly rules: readonly ScopeRule[];
  }
  /** A signature is needed and none exists. */
  | {
    readonly kind: "deny";
    readonly ref: OracleReference;
    readonly digest?: string | undefined;
    readonly why: string;
  };

/**
 * Whether a rule covers an image. A tag-scoped rule covers the references whose written tag
 * matches it, as docs/admission.md says ("a pattern with a tag matches tags only"); one that also
 * carries a digest is then held to both (the tag must resolve to that digest, checked by the
 * webhook and by `siteVerdict`'s signature lookup of the digest). A reference without a matching
 * tag is not covered, whatever content its digest names: the rule does not apply to it (issue #10
 * item 4), and a repository is guarded for every digest only by a pattern without a tag.
 */
function covers(rule: ScopeRule, ref: OracleReference): boolean {
  if (rule.registry !== ref.registry) return false;
  if (rule.repositoryPrefix !== undefined && !ref.repository.startsWith(rule.repositoryPrefix)) {
    return false;
  }
  if (rule.repository !== undefined && rule.repository !== ref.repository) return false;
  const prefix = rule.tagPrefix;
  if (prefix === undefined) return true;
  return ref.tag !== undefined && ref.tag.startsWith(prefix);
}

/** Decides one image under a policy world in a namespace. */
export function siteVerdict(
  world: FuzzWorld,
  policies: PolicyWorld,
  namespace: string,
  image: string,
): SiteVerdict {
  const ref = oracleParse(image);
  if (ref === undefined) return { kind: "unreadable" };
  const rules = (policies.namespaced.get(namespace) ?? policies.cluster).filter((r) =>
    covers(r, ref)
  );
  // What runs: the digest when one is written (runtimes pull by digest), else the tag's.
  const digest = ref.digest ??
    world.tags.get(`${ref.registry}/${ref.repository}:${ref.tag ?? "latest"}`);
  const signed = rules.filter((r) => r.rule === "signed" || r.rule === "attested");
  if (signed.length === 0) return { kind: "free", ref, digest, rules };
  if (digest === undefined) {
    return { kind: "deny", ref, why: "a signature is required and the image does not exist" };
  }
  const ok = signed.some((rule) => ruleHolds(world, rule, ref, digest));
  const keys = new Set(signed.flatMap((r) => r.keys).filter((k) => VALID_KEYS.has(k)));
  const what = signed.map((r) => `${r.rule} (multiArch ${r.multiArch ?? "index"})`).join(", ");
  return ok ? { kind: "signed", ref, digest, rules: signed } : {
    kind: "deny",
    ref,
    digest,
    why: `no ${what} by a valid policy key (${[...keys].join(", ") || "none"}) for ${digest}`,
  };
}

/** Whether `digest` itself is signed (or attested) as `rule` asks, by one of its valid keys. */
function digestHolds(
  world: FuzzWorld,
  rule: ScopeRule,
  ref: OracleReference,
  digest: string,
): boolean {
  const valid = (key: string) =>
    VALID_KEYS.has(key as never) && (rule.keys as readonly string[]).includes(key);
  const here = (s: { registry: string; repository: string; digest: string }) =>
    s.registry === ref.registry && s.repository === ref.repository && s.digest === digest;
  if (rule.rule === "attested") {
    return world.attestations.some((a) =>
      here(a) && valid(a.key) && a.predicateType === FUZZ_PREDICATE_TYPE &&
      a.builder === GOOD_BUILDER
    );
  }
  return world.signatures.some((s) => here(s) && valid(s.key));
}

/** Whether the image of `digest` meets `rule`, an index by its `multiArch` rule. */
function ruleHolds(
  world: FuzzWorld,
  rule: ScopeRule,
  ref: OracleReference,
  digest: string,
): boolean {
  const listed = world.indexes.get(digest);
  const multiArch = rule.multiArch ?? "index";
  if (listed === undefined || multiArch === "index") return digestHolds(world, rule, ref, digest);
  const counted = listed.filter((m) =>
    !m.buildkit && (rule.platforms === undefined || rule.platforms.includes(m.platform))
  );
  const every = counted.length > 0 &&
    counted.every((m) => digestHolds(world, rule, ref, m.digest));
  if (multiArch === "everyPlatform") return every;
  return digestHolds(world, rule, ref, digest) || every;
}

/** A disagreement between the webhook and the oracle. */
export interface OracleFailure {
  /** What kind of failure: `unsigned-admitted`, `bad-patch`, `no-uid`, … */
  readonly failure: string;
  /** The JSON pointer of the image concerned, when one is. */
  readonly pointer?: string;
  /** A human explanation. */
  readonly message: string;
}

/** The webhook's HTTP answer, read. */
export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

function decodeBase64Utf8(text: string): string {
  const binary = atob(text);
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(binary, (c) => c.charCodeAt(0)),
  );
}

function unescapePointer(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Applies a `replace` to `object`; returns why it cannot. */
function applyReplace(object: unknown, pointer: string, value: unknown): string | undefined {
  if (!pointer.startsWith("/")) return `path "${pointer}" is not a JSON pointer`;
  const segments = pointer.slice(1).split("/").map(unescapePointer);
  let parent: unknown = object;
  for (const segment of segments.slice(0, -1)) {
    if (Array.isArray(parent)) {
      if (!/^(?:0|[1-9][0-9]*)$/.test(segment)) return `"${segment}" is not an array index`;
      parent = parent[Number(segment)];
    } else if (isObject(parent) && Object.hasOwn(parent, segment)) {
      parent = parent[segment];
    } else {
      return `"${pointer}" does not exist in the object`;
    }
  }
  const last = segments.at(-1)!;
  if (!isObject(parent) || !Object.hasOwn(parent, last)) {
    return `"${pointer}" does not exist in the object (replace needs an existing value)`;
  }
  parent[last] = value;
  return undefined;
}

/** The context of one checked review. */
export interface ReviewCheck {
  readonly world: FuzzWorld;
  readonly policies: PolicyWorld;
  /** The body as sent (parsed). */
  readonly body: unknown;
  /** The answer. */
  readonly answer: HttpAnswer;
  /** The size of the body in bytes, and the most the handler reads (it answers 413 beyond). */
  readonly bodyBytes: number;
  readonly bodyLimit: number;
  /** The log records the review wrote. */
  readonly logs: readonly unknown[];
}

/** Checks the answer to one review; returns every failure. */
export function checkReview(check: ReviewCheck): OracleFailure[] {
  const failures: OracleFailure[] = [];
  const { world, policies, answer } = check;
  const fail = (failure: string, message: string, pointer?: string) =>
    failures.push({ failure, message, ...(pointer ? { pointer } : {}) });

  for (const secret of world.secrets) {
    if (answer.text.includes(secret)) fail("secret-in-answer", "the answer holds a secret");
    if (check.logs.some((r) => JSON.stringify(r).includes(secret))) {
      fail("secret-in-log", "a log line holds a secret");
    }
  }
  const request = readReview(check.body);
  if (request === undefined) {
    if (answer.status < 400 || answer.status >= 500) {
      fail("bad-status", `a body that is no AdmissionReview got HTTP ${answer.status}, not a 4xx`);
    }
    return failures;
  }
  if (answer.status === 413 && check.bodyBytes > check.bodyLimit) return failures;
  if (answer.status !== 200) {
    fail("no-answer", `a readable review got HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
    return failures;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    fail("no-answer", "the answer is not JSON");
    return failures;
  }
  const response = isObject(parsed) && parsed.apiVersion === "admission.k8s.io/v1" &&
      parsed.kind === "AdmissionReview" && isObject(parsed.response)
    ? parsed.response
    : undefined;
  if (response === undefined) {
    fail("no-answer", "the answer is not an admission.k8s.io/v1 AdmissionReview with a response");
    return failures;
  }
  if (response.uid !== request.uid) {
    fail("no-uid", `the answer's uid ${JSON.stringify(response.uid)} is not the request's`);
  }
  const status = isObject(response.status) ? response.status : {};
  if (typeof status.message === "string" && /internal error/.test(status.message)) {
    fail("internal-error", `the review crashed the decision: ${status.message.slice(0, 300)}`);
  }
  if (response.allowed !== true) return failures;

  // Admitted: was it allowed to be?
  if (request.namespace !== "" && EXEMPT_NAMESPACES.has(request.namespace)) return failures;
  if (request.operation !== "CREATE" && request.operation !== "UPDATE") return failures;
  const sites = imageSites(request);
  if (request.operation === "UPDATE" && isDeleting(request.object)) {
    const old = imageSites(request, request.oldObject).map((s) => `${s.pointer}=${s.image}`);
    const now = sites.map((s) => `${s.pointer}=${s.image}`);
    if (old.join("\n") === now.join("\n")) return failures; // finalizers can always be removed
  }
  const verdicts = new Map<string, SiteVerdict>();
  for (const site of sites) {
    const verdict = siteVerdict(world, policies, request.namespace, site.image);
    verdicts.set(site.pointer, verdict);
    if (verdict.kind === "unreadable") {
      fail(
        "unreadable-admitted",
        `admitted ${JSON.stringify(site.image)}, which no runtime could pull as written`,
        site.pointer,
      );
    } else if (verdict.kind === "deny") {
      fail(
        "unsigned-admitted",
        `admitted ${
          JSON.stringify(site.image)
        } (${verdict.ref.registry}/${verdict.ref.repository}): ${verdict.why}`,
        site.pointer,
      );
    }
  }
  checkPatch(request, response, verdicts, fail);
  return failures;
}

function isDeleting(object: unknown): boolean {
  return isObject(object) && isObject(object.metadata) &&
    typeof object.metadata.deletionTimestamp === "string";
}

/**
 * A Pod's volumes cannot change after it is created (the API server refuses such an UPDATE), so
 * an image volume of a Pod UPDATE is checked but never pinned.
 */
function podVolumeImmutable(request: OracleRequest, pointer: string): boolean {
  return request.operation === "UPDATE" && request.group === "" && request.resource === "pods" &&
    pointer.startsWith("/spec/volumes/");
}

function checkPatch(
  request: OracleRequest,
  response: Obj,
  verdicts: ReadonlyMap<string, SiteVerdict>,
  fail: (failure: string, message: string, pointer?: string) => void,
): void {
  const patched = new Set<string>();
  if (response.patch !== undefined) {
    if (response.patchType !== "JSONPatch" || typeof response.patch !== "string") {
      fail("bad-patch", `patchType ${JSON.stringify(response.patchType)} with a patch`);
      return;
    }
    let ops: unknown;
    try {
      ops = JSON.parse(decodeBase64Utf8(response.patch));
    } catch {
      fail("bad-patch", "the patch is not base64 of UTF-8 JSON");
      return;
    }
    if (!Array.isArray(ops)) {
      fail("bad-patch", "the patch is not a JSON array");
      return;
    }
    const object = structuredClone(request.object);
    for (const op of ops) {
      if (
        !isObject(op) || op.op !== "replace" || typeof op.path !== "string" ||
        typeof op.value !== "string" || Object.keys(op).length !== 3
      ) {
        fail("bad-patch", `operation ${JSON.stringify(op).slice(0, 200)} is not an image replace`);
        continue;
      }
      const verdict = verdicts.get(op.path);
      if (verdict === undefined) {
        fail("bad-patch", `the patch replaces ${op.path}, which is no image field`, op.path);
        continue;
      }
      if (podVolumeImmutable(request, op.path)) {
        fail("bad-patch", `${op.path} is a Pod's volume, which an UPDATE cannot change`, op.path);
      }
      if (patched.has(op.path)) fail("bad-patch", `${op.path} is replaced twice`, op.path);
      patched.add(op.path);
      const problem = applyReplace(object, op.path, op.value);
      if (problem !== undefined) fail("bad-patch", `the patch does not apply: ${problem}`, op.path);
      const pinned = oracleParse(op.value);
      if (verdict.kind === "unreadable" || verdict.kind === "deny") continue; // reported already
      if (
        pinned === undefined || pinned.digest === undefined || pinned.tag !== undefined ||
        pinned.registry !== verdict.ref.registry || pinned.repository !== verdict.ref.repository
      ) {
        fail(
          "bad-pin",
          `${op.path} is pinned to ${
            JSON.stringify(op.value)
          }, not ${verdict.ref.registry}/${verdict.ref.repository}@<digest>`,
          op.path,
        );
      } else if (pinned.digest !== verdict.digest) {
        fail(
          "bad-pin",
          `${op.path} is pinned to ${pinned.digest}, not to the digest that runs and was verified (${verdict.digest})`,
          op.path,
        );
      }
    }
  }
  for (const [pointer, verdict] of verdicts) {
    if (
      verdict.kind === "signed" && verdict.ref.digest === undefined &&
      verdict.rules.every((r) => r.mutate) && !patched.has(pointer) &&
      !podVolumeImmutable(request, pointer)
    ) {
      fail("not-pinned", `the verified tag at ${pointer} is not pinned to its digest`, pointer);
    }
  }
}

/** Whether a body is within the shape the webhook reads (`webhook/body_pool.ts`). */
function withinBodyShape(bytes: Uint8Array): boolean {
  try {
    checkJsonShape(bytes, bodyShapeLimits(bytes.byteLength), "the body");
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks the answer to a raw HTTP body: always an answer, 200 with the uid when readable (within
 * the size and the shape the webhook reads: 413 beyond).
 */
export function checkRawAnswer(
  bytes: Uint8Array,
  answer: HttpAnswer,
  limit: number,
): OracleFailure[] {
  const failures: OracleFailure[] = [];
  if (answer.status >= 500) {
    failures.push({ failure: "server-error", message: `HTTP ${answer.status}` });
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    body = undefined;
  }
  const request = bytes.byteLength > limit || !withinBodyShape(bytes)
    ? undefined
    : readReview(body);
  if (request === undefined) {
    if (answer.status !== 400 && answer.status !== 413) {
      failures.push({
        failure: "bad-status",
        message: `a body that is no AdmissionReview got HTTP ${answer.status}, not 400 or 413`,
      });
    }
    return failures;
  }
  let uid: unknown;
  try {
    const parsed = JSON.parse(answer.text);
    uid = parsed?.kind === "AdmissionReview" ? parsed.response?.uid : undefined;
  } catch {
    uid = undefined;
  }
  if (answer.status !== 200 || uid !== request.uid) {
    failures.push({
      failure: "no-uid",
      message: `a readable review (uid ${
        JSON.stringify(request.uid).slice(0, 80)
      }) got HTTP ${answer.status} without its uid`,
    });
  }
  return failures;
}
