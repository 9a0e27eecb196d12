/**
 * The referrers attacks of issue #33 on the real webhook process (`webhook/main.ts` at the
 * release's runtime flags and its default budget), shared by
 * `tests/admission/junk_referrers_attack_e2e_test.ts` and `deno task bench`:
 *
 * - {@linkcode hugeReferrersAttack} (attack 4): a registry on 127.0.0.1 answers the referrers call
 *   of every image with 999,887 bytes holding 333,260 empty objects and never answers the
 *   fallback tag `sha256-<hex>`; one review names 16 (or 128) such images under a policy that
 *   requires a cosign signature. Before the fix: 441 MiB for 16 images, 1.19 GB and "internal
 *   error" for 128.
 * - {@linkcode junkReferrersAttack} (attack 8): images signed by the real cosign (a legacy `.sig`
 *   one, a bundle one), each given junk referrers (artifacts of other types, and of the bundle's
 *   type holding garbage) on go-containerregistry's registry with the referrers API, and an image
 *   on the distribution registry whose fallback index still lists a referrer since deleted beside
 *   its valid one. Before the fix: the first denied ("it has 65 referrers that may be
 *   signatures, more than 64") and the last denied with `MANIFEST_UNKNOWN`.
 *
 * @module
 */
import { pushTestImage, startCosign, type TestCosign } from "../env/mod.ts";
import { junkReferrers, pushLayout } from "../fakes/cosign_registry.ts";
import { serve, type TestServer } from "../fakes/loopback_server.ts";
import { referrersFallbackTag } from "../../lib/signature/cosign_media_types.ts";
import { type AttackFigures, measureAttack } from "./_attack.ts";
import { type AdmitAnswer, podReviewBody, postReview, signerSecretDocument } from "./_hostile.ts";
import { RELEASE_RUNTIME_FLAGS, type TestWebhook } from "./_webhook.ts";
import { startWorld } from "./_world.ts";

/** A `--policies` file: images of each host must carry a cosign signature by `publicKeyPem`. */
export function cosignPolicyFile(hosts: readonly string[], publicKeyPem: string): string {
  const repositories = hosts.map((host) =>
    `    - name: "${host}/*"
      policy:
        simple: { requirements: [{ type: sigstoreSigned, keySecret: signer }] }`
  ).join("\n");
  return `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
${repositories}
${signerSecretDocument(publicKeyPem)}`;
}

/** A PEM `PUBLIC KEY` (ECDSA P-256) no signature of the attack is made with. */
async function throwawayPublicKeyPem(): Promise<string> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const base64 = btoa(String.fromCharCode(...spki)).replace(/.{1,64}/g, "$&\n");
  return `-----BEGIN PUBLIC KEY-----\n${base64}-----END PUBLIC KEY-----\n`;
}

/** The hostile registry of attack 4. */
interface HugeReferrersServer extends AsyncDisposable {
  readonly host: string;
  /** Referrers answers sent. */
  readonly referrersAnswers: number;
  /** Fallback-tag requests left unanswered. */
  readonly fallbackWaits: number;
}

/**
 * A referrers answer of `count` empty objects: attack 4's is 333,260 of them in 999,887 bytes;
 * 43,000 fit in 129,090 bytes, under the webhook's bound on a referrers answer's bytes.
 */
export function hugeReferrersBody(count = 333_260): Uint8Array {
  const head =
    '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[';
  const tail = "]}";
  const text = head + "{},".repeat(count - 1) + "{}" + tail;
  return new TextEncoder().encode(text);
}

/**
 * A registry on a free loopback port: every manifest by digest exists (a HEAD says so), the
 * `.sig` tag and every blob do not, the referrers API answers {@linkcode hugeReferrersBody}, and
 * the fallback tag is never answered (the request waits until the client gives up).
 */
function startHugeReferrersServer(objects: number): HugeReferrersServer {
  const body = hugeReferrersBody(objects);
  let referrersAnswers = 0;
  let fallbackWaits = 0;
  const unknown = (code: string) =>
    new Response(JSON.stringify({ errors: [{ code, message: "unknown" }] }), {
      status: 404,
      headers: { "content-type": "application/json" },
    });
  const server: TestServer = serve((request) => {
    const url = new URL(request.url);
    if (url.pathname === "/v2/") return Response.json({});
    const referrers = /^\/v2\/.+\/referrers\/(sha256:[0-9a-f]{64})$/.exec(url.pathname);
    if (referrers) {
      referrersAnswers++;
      // Streamed without a length: the client has to read it to know its size.
      let offset = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= body.byteLength) return controller.close();
          controller.enqueue(body.slice(offset, offset + 64 * 1024));
          offset += 64 * 1024;
        },
      });
      return new Response(stream, {
        headers: { "content-type": "application/vnd.oci.image.index.v1+json" },
      });
    }
    const manifest = /^\/v2\/.+\/manifests\/(.+)$/.exec(url.pathname);
    if (manifest) {
      const reference = decodeURIComponent(manifest[1]!);
      if (/^sha256:[0-9a-f]{64}$/.test(reference)) {
        return new Response(request.method === "HEAD" ? null : "{}", {
          headers: {
            "content-type": "application/vnd.oci.image.manifest.v1+json",
            "docker-content-digest": reference,
          },
        });
      }
      if (/^sha256-[0-9a-f]{64}$/.test(reference)) {
        // The fallback tag: no answer, ever (until the client goes away).
        fallbackWaits++;
        return new Promise<Response>((resolve) => {
          const end = () => resolve(new Response(null, { status: 504 }));
          request.signal.addEventListener("abort", end, { once: true });
          server.stopping.addEventListener("abort", end, { once: true });
        });
      }
      return unknown("MANIFEST_UNKNOWN");
    }
    return unknown("BLOB_UNKNOWN");
  });
  return {
    host: server.host,
    get referrersAnswers() {
      return referrersAnswers;
    },
    get fallbackWaits() {
      return fallbackWaits;
    },
    [Symbol.asyncDispose]: () => server.stop(),
  };
}

/** Image `i` of the hostile registry, by a digest of its own (no two share work). */
function hugeReferrersImage(host: string, i: number): string {
  return `${host}/huge/app@sha256:${i.toString(16).padStart(8, "0").padEnd(64, "e")}`;
}

/** What {@linkcode hugeReferrersAttack} returns: the figures and the review's answer. */
export interface HugeReferrersResult {
  readonly figures: AttackFigures;
  readonly answer: AdmitAnswer;
  /** Referrers answers the hostile registry sent. */
  readonly referrersAnswers: number;
}

/**
 * Attack 4: one review of `images` images whose referrers answers are `objects` empty objects
 * (by default a million bytes of `{}`) and whose fallback tags never answer, on a webhook of its
 * own.
 */
export async function hugeReferrersAttack(
  images = 16,
  objects = 333_260,
): Promise<AttackFigures> {
  return (await runHugeReferrersAttack(images, objects)).figures;
}

/** {@linkcode hugeReferrersAttack} with the review's answer, for the test's assertions. */
export async function runHugeReferrersAttack(
  images = 16,
  objects = 333_260,
): Promise<HugeReferrersResult> {
  await using world = await startWorld({ cluster: false, images: false });
  const server = world.use(startHugeReferrersServer(objects));
  const policies = await world.file(
    "policies.yaml",
    cosignPolicyFile([server.host], await throwawayPublicKeyPem()),
  );
  const webhook = await world.startWebhook({
    policies,
    insecureRegistries: [server.host],
    runtimeFlags: RELEASE_RUNTIME_FLAGS,
  });
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  try {
    const body = podReviewBody(
      `huge-${images}`,
      Array.from({ length: images }, (_, i) => hugeReferrersImage(server.host, i)),
    );
    const { result: answer, figures } = await measureAttack(
      `${images} images, referrers answers of ${
        objects.toLocaleString("en-US")
      } {} each, fallback tag never answered`,
      webhook,
      postReview(webhook, client, body),
    );
    return {
      figures: { ...figures, note: `denied with: ${excerpt(answer.message)}` },
      answer,
      referrersAnswers: server.referrersAnswers,
    };
  } finally {
    client.close();
  }
}

/** One image of {@linkcode junkReferrersAttack} and how the webhook answered it. */
export interface JunkReferrersCase {
  readonly name: string;
  readonly image: string;
  readonly answer: AdmitAnswer;
}

/** What {@linkcode junkReferrersAttack} returns. */
export interface JunkReferrersResult {
  readonly figures: AttackFigures;
  readonly cases: readonly JunkReferrersCase[];
  /** Manifests by digest the referrers registry served (junk costs one each when read). */
  readonly junkPushed: number;
}

/** How many junk referrers of each kind an image gets. */
export interface JunkCounts {
  readonly otherType: number;
  readonly garbageBundle: number;
  readonly notABundle: number;
}

/** Signs `image` with the real cosign in `format`. */
async function cosignSign(
  cosign: TestCosign,
  key: { privateKeyFile: string; password: string },
  image: string,
  format: "legacy" | "bundle",
) {
  await cosign.sign(image, { key: key.privateKeyFile, password: key.password, format });
}

/**
 * Attack 8 against the real cosign's signatures, on a webhook of its own: a legacy-signed and a
 * bundle-signed image on go-containerregistry's registry (referrers API) each given `junk`
 * referrers, and a bundle-signed image on the distribution registry whose fallback index lists
 * a referrer since deleted (pushed before the valid one, so the index keeps it).
 */
export async function junkReferrersAttack(junk?: JunkCounts): Promise<AttackFigures> {
  return (await runJunkReferrersAttack(junk)).figures;
}

/** {@linkcode junkReferrersAttack} with each image's answer, for the test's assertions. */
export async function runJunkReferrersAttack(
  junk: JunkCounts = { otherType: 40, garbageBundle: 30, notABundle: 10 },
): Promise<JunkReferrersResult> {
  await using world = await startWorld({
    cluster: false,
    images: false,
    registries: { referrers: { kind: "referrers" }, distribution: {} },
  });
  const referrers = world.registries.referrers!;
  const distribution = world.registries.distribution!;
  const cosign = world.use(await startCosign());
  const dir = await Deno.makeTempDir({ prefix: "toolkit-junk-referrers-" });
  try {
    const key = await cosign.generateKeyPair(dir);
    const images: { name: string; image: string }[] = [];
    let junkPushed = 0;

    for (const format of ["legacy", "bundle"] as const) {
      const repository = `junk/${format}`;
      const image = `${referrers.host}/${repository}:1`;
      const digest = await pushTestImage(image, { content: `junk referrers ${format}` });
      await cosignSign(cosign, key, image, format);
      // The junk comes after the signature, so it is the newest.
      const kinds = [
        ["other-type", junk.otherType],
        ["garbage-bundle", junk.garbageBundle],
        ["not-a-bundle", junk.notABundle],
      ] as const;
      for (const [kind, count] of kinds) {
        if (count === 0) continue;
        await pushLayout(referrers.host, repository, await junkReferrers(digest, count, kind));
        junkPushed += count;
      }
      images.push({ name: `${format} signature + ${junkPushed} junk referrers`, image });
      junkPushed = 0;
    }

    // The distribution registry has no referrers API: cosign keeps the fallback index. A first
    // signature (by the same key) whose referrer manifest is then deleted stays listed in it.
    {
      const repository = "junk/deleted";
      const image = `${distribution.host}/${repository}:1`;
      const digest = await pushTestImage(image, { content: "deleted referrer" });
      await cosignSign(cosign, key, image, "bundle");
      const index = await (await fetch(
        `http://${distribution.host}/v2/${repository}/manifests/${referrersFallbackTag(digest)}`,
        { headers: { accept: "application/vnd.oci.image.index.v1+json" } },
      )).json() as { manifests: { digest: string }[] };
      const first = index.manifests[0]!.digest;
      await cosignSign(cosign, key, image, "bundle");
      const deleted = await fetch(
        `http://${distribution.host}/v2/${repository}/manifests/${first}`,
        {
          method: "DELETE",
        },
      );
      await deleted.body?.cancel();
      if (deleted.status !== 202) throw new Error(`DELETE ${first}: HTTP ${deleted.status}`);
      images.push({ name: "fallback index listing a deleted referrer beside a valid one", image });
    }

    const policies = `${dir}/policies.yaml`;
    await Deno.writeTextFile(
      policies,
      cosignPolicyFile(
        [referrers.host, distribution.host],
        await Deno.readTextFile(key.publicKeyFile),
      ),
    );
    // The world's registries are its `--insecure-registry` flags, in order.
    await using webhook = await world.startWebhook({
      policies,
      runtimeFlags: RELEASE_RUNTIME_FLAGS,
    });
    return await reviewEach(webhook, images, junk);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function reviewEach(
  webhook: TestWebhook,
  images: readonly { name: string; image: string }[],
  junk: JunkCounts,
): Promise<JunkReferrersResult> {
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  try {
    const reviews = Promise.all(
      images.map(async ({ name, image }, i) => ({
        name,
        image,
        answer: await postReview(webhook, client, podReviewBody(`junk-${i}`, [image])),
      })),
    );
    const total = junk.otherType + junk.garbageBundle + junk.notABundle;
    const { result: cases, figures } = await measureAttack(
      `signed images with ${total} junk referrers each, a fallback index listing a deleted one`,
      webhook,
      reviews,
    );
    const admitted = cases.filter((c) => c.answer.allowed === true).length;
    return {
      figures: { ...figures, note: `${admitted}/${cases.length} signed images admitted` },
      cases,
      junkPushed: total * 2,
    };
  } finally {
    client.close();
  }
}

/** The first 160 characters of a denial, for a figure's note. */
function excerpt(message: string | undefined): string {
  const text = message ?? "(no message)";
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
