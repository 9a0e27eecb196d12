/**
 * Runs the admission fuzz (test helper, not exported from `mod.ts`; used by `fuzz_test.ts` and
 * by `tests/bench/admission_fuzz.ts`): the real decision path in-process — the webhook's routes
 * behind its HTTP/1.1 connections (`Http1Connection` over `createRoutes`, as the webhook serves
 * them, minus TLS), {@linkcode createAdmissionEvaluator}, {@linkcode createImageVerifier} with real keys
 * and signatures, policies from a file policy source — driven by the generator's reviews and raw
 * bodies, every answer judged by the oracle.
 *
 * One evaluator and one verifier serve the whole run, and the policy world changes from review
 * to review, so the caches carry verdicts from one review (and one policy world) to the next:
 * a cache key that forgets something shows up as an admit.
 *
 * @module
 */
import { createRoutes } from "../../webhook/handler.ts";
import { serveRoutes } from "../fakes/webhook_loopback.ts";
import type { LogRecord } from "../../webhook/log.ts";
import { WebhookMetrics } from "../../webhook/metrics.ts";
import { type AdmissionEvaluator, createAdmissionEvaluator } from "../../lib/admission/evaluate.ts";
import { filePolicySource } from "../../lib/admission/file_source.ts";
import { DEFAULT_EXEMPT_LABEL, type PolicySource } from "../../lib/admission/source.ts";
import { createImageVerifier, type ImageVerifier } from "../../lib/admission/verifier.ts";
import {
  type ClassFilter,
  generateBody,
  type GeneratedReview,
  generateReview,
  reviewSeed,
  Rng,
} from "./_fuzz_generator.ts";
import {
  checkRawAnswer,
  checkReview,
  type HttpAnswer,
  imageSites,
  type OracleFailure,
  readReview,
} from "./_fuzz_oracle.ts";
import {
  CONTROLLER_NAMESPACE,
  type FuzzWorld,
  INSECURE_REGISTRIES,
  startFuzzWorld,
} from "./_fuzz_world.ts";

/** What to run. */
export interface FuzzOptions {
  /** The run's seed; every review's seed derives from it and its index. */
  readonly seed: number;
  /** How many reviews. */
  readonly reviews: number;
  /** How many raw bodies. */
  readonly bodies: number;
  /** Classes the generator may use (the others are known open defects). */
  readonly allowed: ClassFilter;
  /** The most items in one list of a huge pod spec. @default 200 */
  readonly maxItems?: number;
  /** The deepest nesting of a raw body. @default 2000 */
  readonly maxDepth?: number;
  /** Stop after this many failures. @default 20 */
  readonly maxFailures?: number;
  /** Replaces the evaluator (to check that the oracle catches a broken one). */
  readonly mutateEvaluator?: (evaluator: AdmissionEvaluator) => AdmissionEvaluator;
}

/** One failure, with what replays it. */
export interface FuzzFailure extends OracleFailure {
  /** The run's seed. */
  readonly seed: number;
  /** `review` or `body`, and its index in the run. */
  readonly source: "review" | "body";
  readonly index: number;
  /** The generator classes of the image (or review) at fault. */
  readonly classes: readonly string[];
  /** The smallest review that still shows it (or the original, cut), as JSON. */
  readonly minimal: string;
}

/** The figures of a run. */
export interface FuzzReport {
  readonly seed: number;
  readonly reviews: number;
  readonly bodies: number;
  readonly admitted: number;
  readonly denied: number;
  readonly patched: number;
  readonly images: number;
  readonly failures: readonly FuzzFailure[];
  readonly failuresByClass: ReadonlyMap<string, number>;
  readonly ms: number;
}

const HANDLER_LIMIT = 8 * 1024 * 1024;

function post(bytes: Uint8Array, contentType: string | undefined): Request {
  return new Request("https://webhook.fuzz/admit?timeout=10s", {
    method: "POST",
    headers: contentType === undefined ? {} : { "content-type": contentType },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
}

async function read(response: Response): Promise<HttpAnswer> {
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text: await response.text(),
  };
}

/** Keeps only the images at `pointers` in the review's object (other list items dropped). */
function minimise(
  body: Record<string, unknown>,
  pointers: ReadonlySet<string>,
): Record<string, unknown> {
  const copy = structuredClone(body);
  const request = readReview(copy);
  if (request === undefined) return copy;
  const keep = new Map<string, Set<number>>(); // list pointer → indexes kept
  for (const site of imageSites(request)) {
    const match = /^(.*\/(?:initContainers|containers|ephemeralContainers|volumes))\/(\d+)\//.exec(
      site.pointer,
    );
    if (!match) continue;
    const set = keep.get(match[1]!) ?? new Set<number>();
    if (pointers.has(site.pointer)) set.add(Number(match[2]));
    keep.set(match[1]!, set);
  }
  const object = (copy.request as Record<string, unknown>).object;
  for (const [list, indexes] of keep) {
    const segments = list.slice(1).split("/");
    let parent: unknown = object;
    for (const s of segments.slice(0, -1)) parent = (parent as Record<string, unknown>)[s];
    const key = segments.at(-1)!;
    const items = (parent as Record<string, unknown>)[key] as unknown[];
    const kept = items.filter((_, i) => indexes.has(i));
    if (kept.length === 0) delete (parent as Record<string, unknown>)[key];
    else (parent as Record<string, unknown>)[key] = kept;
  }
  delete (copy.request as Record<string, unknown>).oldObject;
  return copy;
}

function cut(text: string, max = 3000): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/**
 * The real decision path on the fuzz world: {@linkcode createImageVerifier} on its registries and
 * lookaside stores, and {@linkcode createAdmissionEvaluator} in enforce mode, denying what no
 * policy matches. `cacheTtlMs` sets the verdict and digest caches' lifetime (default 300 s and
 * 30 s); `wrap` wraps the verifier (an audit's, `lib/audit`'s `auditVerifier`).
 */
export function createFuzzEvaluator(
  world: FuzzWorld,
  source: PolicySource,
  cacheTtlMs?: number,
  wrap: (verifier: ImageVerifier) => ImageVerifier = (v) => v,
): AdmissionEvaluator {
  const verifier = wrap(createImageVerifier({
    source,
    clusterKeyNamespace: CONTROLLER_NAMESPACE,
    insecureRegistries: INSECURE_REGISTRIES,
    fetch: world.fetch,
    registriesD: world.registriesD,
    flightTimeoutMs: 8000,
    retry: { maxRetries: 0 },
    verdictCache: { ttlMs: cacheTtlMs ?? 300_000, maxEntries: 10_000 },
    digestCache: { ttlMs: cacheTtlMs ?? 30_000, maxEntries: 10_000 },
    clock: world.clock,
  }));
  return createAdmissionEvaluator({
    source,
    verifier,
    settings: {
      mode: "enforce",
      noMatch: "deny",
      controllerNamespace: CONTROLLER_NAMESPACE,
      budgetMs: 8000,
    },
  });
}

/** Runs the fuzz and returns its figures; failures are data, never thrown. */
export async function runAdmissionFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  await using world = await startFuzzWorld();
  const sources = world.worlds.map((w) =>
    filePolicySource(w.documents, { exemptLabel: DEFAULT_EXEMPT_LABEL })
  );
  let current = sources[0]!;
  // A new world is a new generation: the verifier's remembered verdicts are forgotten.
  let generation = 0;
  const enter = (next: PolicySource) => {
    if (next !== current) generation++;
    current = next as typeof current;
  };
  const source: PolicySource = {
    generation: () => generation,
    ready: () => current.ready(),
    policies: () => current.policies(),
    exemptNamespaces: () => current.exemptNamespaces(),
    secret: (namespace, name) => current.secret(namespace, name),
    configMap: (namespace, name) => current.configMap(namespace, name),
    serviceAccount: (namespace, name) => current.serviceAccount(namespace, name),
  };
  const real = createFuzzEvaluator(world, source);
  const evaluator = options.mutateEvaluator?.(real) ?? real;
  const logs: LogRecord[] = [];
  await using webhook = await serveRoutes(
    createRoutes({
      evaluator,
      ready: () => true,
      metrics: new WebhookMetrics(),
      log: { write: (r) => void logs.push(r), flush() {} },
      guardMs: 9000,
      maxBodyBytes: HANDLER_LIMIT,
    }),
    { maxBodyBytes: HANDLER_LIMIT },
  );
  const handler = (request: Request) => webhook.send(request);

  const failures: FuzzFailure[] = [];
  const failuresByClass = new Map<string, number>();
  const maxFailures = options.maxFailures ?? 20;
  let admitted = 0;
  let denied = 0;
  let patched = 0;
  let images = 0;
  const catalogue = { tags: world.tags, favoured: world.favoured };
  const bounds = { maxItems: options.maxItems ?? 200 };

  async function send(
    review: GeneratedReview,
  ): Promise<{ answer: HttpAnswer; found: OracleFailure[] }> {
    enter(sources[review.world]!);
    logs.length = 0;
    const bytes = new TextEncoder().encode(JSON.stringify(review.body));
    let answer: HttpAnswer;
    try {
      answer = await read(await handler(post(bytes, "application/json")));
    } catch (error) {
      return {
        answer: { status: 0, contentType: "", text: "" },
        found: [{ failure: "handler-threw", message: `the handler threw: ${error}` }],
      };
    }
    const found = checkReview({
      world,
      policies: world.worlds[review.world]!,
      body: review.body,
      answer,
      bodyBytes: bytes.byteLength,
      bodyLimit: HANDLER_LIMIT,
      logs,
    });
    return { answer, found };
  }

  function record(failure: FuzzFailure): void {
    failures.push(failure);
    for (const c of failure.classes) failuresByClass.set(c, (failuresByClass.get(c) ?? 0) + 1);
  }

  for (let index = 0; index < options.reviews && failures.length < maxFailures; index++) {
    const rng = new Rng(reviewSeed(options.seed, index));
    const review = generateReview(rng, catalogue, world.worlds, options.allowed, bounds);
    const { answer, found } = await send(review);
    if (index % 500 === 499) world.registry.requests.length = 0;
    try {
      const parsed = JSON.parse(answer.text);
      if (parsed?.response?.allowed === true) admitted++;
      else denied++;
      if (typeof parsed?.response?.patch === "string") patched++;
    } catch {
      denied++;
    }
    const request = readReview(review.body);
    images += request ? imageSites(request).length : 0;
    if (found.length === 0) continue;
    const pointers = new Set(found.flatMap((f) => f.pointer ? [f.pointer] : []));
    let minimal = review.body;
    if (pointers.size > 0) {
      const smaller = { ...review, body: minimise(review.body, pointers) };
      const again = await send(smaller);
      if (again.found.length > 0) minimal = smaller.body;
    }
    for (const f of found) {
      record({
        ...f,
        seed: options.seed,
        source: "review",
        index,
        classes: [
          ...new Set([
            ...(f.pointer ? review.imageClasses.get(f.pointer) ?? [] : []),
            ...review.classes,
          ]),
        ],
        message: `${f.message} [policy world "${world.worlds[review.world]!.name}"]`,
        minimal: cut(JSON.stringify(minimal)),
      });
    }
  }

  const depth = { maxDepth: options.maxDepth ?? 2000 };
  for (let index = 0; index < options.bodies && failures.length < maxFailures; index++) {
    const rng = new Rng(reviewSeed(options.seed ^ 0x5bd1e995, index));
    const review = generateReview(rng, catalogue, world.worlds, options.allowed, bounds);
    enter(sources[review.world]!);
    const body = generateBody(rng, review.body, depth);
    let found: OracleFailure[];
    try {
      const answer = await read(await handler(post(body.bytes, body.contentType)));
      found = checkRawAnswer(body.bytes, answer, HANDLER_LIMIT);
    } catch (error) {
      found = [{ failure: "handler-threw", message: `the handler threw: ${error}` }];
    }
    for (const f of found) {
      record({
        ...f,
        seed: options.seed,
        source: "body",
        index,
        classes: body.classes,
        minimal: cut(new TextDecoder().decode(body.bytes), 600),
      });
    }
  }

  return {
    seed: options.seed,
    reviews: options.reviews,
    bodies: options.bodies,
    admitted,
    denied,
    patched,
    images,
    failures,
    failuresByClass,
    ms: performance.now() - started,
  };
}

/** A failure as text: what failed, where, the classes, how to replay, and the minimal review. */
export function describeFailure(failure: FuzzFailure): string {
  return [
    `${failure.failure} (${failure.source} #${failure.index}, classes ${
      failure.classes.join(", ")
    })`,
    `  ${failure.message}`,
    `  replay: TOOLKIT_FUZZ_SEED=${failure.seed} tools/deno test -A tests/admission/fuzz_test.ts`,
    `  review: ${failure.minimal}`,
  ].join("\n");
}
