/**
 * Attack 3 of issue #33, one namespace takes every verification slot: the real webhook process
 * under a `ClusterImagePolicy` that requires signatures for `*`; the namespace "flood" sends,
 * every second, a review of 256 distinct images on a registry that accepts connections and never
 * answers, while the namespace "victim" has its correctly signed images (pushed and signed by
 * the real skopeo and gpg into the real registry) reviewed 20 times with fresh verdicts (cold),
 * then 20 times again (warm). Reviews go straight to the webhook over HTTPS, as the API server
 * would send them.
 *
 * Shared by `fair_share_attack_e2e_test.ts` (which asserts the victim's admissions and the
 * memory bound) and the bench (which prints the figures).
 *
 * @module
 */
import { silentServer } from "../fakes/silent_server.ts";
import { type AttackFigures, measureAttack } from "./_attack.ts";
import { postReview, signerSecretDocument } from "./_hostile.ts";
import { startWorld } from "./_world.ts";

/** How the flood is run. */
export interface FloodOptions {
  /** The webhook's `--budget`, in ms. @default 3000 */
  readonly budgetMs?: number;
  /** The victim's reviews in each round (cold, then warm). @default 20 */
  readonly victimReviews?: number;
  /** Images in each flood review. @default 256 */
  readonly floodImages?: number;
  /** The time between two flood reviews, in ms. @default 1000 */
  readonly floodEveryMs?: number;
  /**
   * Silent registries the flood's images are spread over: with one, the host cap keeps slots free
   * for other registries; with several, only the share between namespaces does. @default 1
   */
  readonly silentHosts?: number;
}

/** The figures of the flood, with the victim's admissions of each round. */
export interface FloodFigures extends AttackFigures {
  /** Victim reviews admitted with fresh verdicts, of {@linkcode reviews}. */
  readonly coldAdmitted: number;
  /** Victim reviews admitted again (cached verdicts), of {@linkcode reviews}. */
  readonly warmAdmitted: number;
  /** Victim reviews in each round. */
  readonly reviews: number;
  /** Flood reviews sent, how many of them were denied, and admitted (none should be). */
  readonly floodSent: number;
  readonly floodDenied: number;
  readonly floodAdmitted: number;
}

/** A `--policies` file: every image (`*`) must be signed with `armoredKey`. */
export function everyImageSignedPolicy(armoredKey: string): string {
  return `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
${signerSecretDocument(armoredKey)}`;
}

/** The body of an AdmissionReview creating, in `namespace`, a Pod of one container per image. */
export function namespacedPodReview(
  uid: string,
  namespace: string,
  images: readonly string[],
): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      name: uid,
      namespace,
      operation: "CREATE",
      userInfo: { username: `system:serviceaccount:${namespace}:default` },
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: uid, namespace },
        spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
      },
      dryRun: false,
    },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the flood against a fresh webhook and returns its figures. */
export async function floodAttack(options: FloodOptions = {}): Promise<FloodFigures> {
  const budgetMs = options.budgetMs ?? 3000;
  const reviews = options.victimReviews ?? 20;
  const floodImages = options.floodImages ?? 256;
  const floodEveryMs = options.floodEveryMs ?? 1000;
  const silentHosts = Math.max(1, options.silentHosts ?? 1);

  await using world = await startWorld({ cluster: false });
  const { registry, gpg } = world;
  // Stopped with the world, after the webhook.
  const hosts = Array.from({ length: silentHosts }, () => world.use(silentServer()).host);
  const key = await world.signer();
  // One image per cold review, each pushed and signed: every cold verdict is a fresh one.
  const victimImages = Array.from(
    { length: reviews },
    (_, i) => `${registry.host}/victim/app:${i}`,
  );
  for (let i = 0; i < victimImages.length; i += 4) {
    await Promise.all(
      victimImages.slice(i, i + 4).map((image) =>
        gpg.pushImage(image, { signBy: key.fingerprint })
      ),
    );
  }
  const webhook = await world.startWebhook({
    policies: await world.file("policies.yaml", everyImageSignedPolicy(key.publicKeyArmored)),
    insecureRegistries: [registry.host, ...hosts],
    args: ["--budget", `${budgetMs}ms`],
  });
  const floodClient = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  const victimClient = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  try {
    let flooding = true;
    const floodAnswers: Promise<boolean | undefined>[] = [];
    const flood = (async () => {
      for (let round = 0; flooding; round++) {
        const images = Array.from(
          { length: floodImages },
          (_, i) => `${hosts[i % hosts.length]}/flood/app:r${round}-${i}`,
        );
        floodAnswers.push(
          postReview(webhook, floodClient, namespacedPodReview(`flood-${round}`, "flood", images))
            .then((a) => a.allowed, () => undefined),
        );
        await sleep(floodEveryMs);
      }
    })();
    const attack = (async () => {
      // The flood holds its slots first.
      await sleep(Math.min(2 * floodEveryMs, budgetMs));
      const round = async (name: string) => {
        let admitted = 0;
        for (let i = 0; i < reviews; i++) {
          const answer = await postReview(
            webhook,
            victimClient,
            namespacedPodReview(`victim-${name}-${i}`, "victim", [victimImages[i]!]),
          ).catch(() => undefined);
          if (answer?.allowed === true) admitted++;
          await sleep(floodEveryMs / 4);
        }
        return admitted;
      };
      const cold = await round("cold");
      const warm = await round("warm");
      flooding = false;
      await flood;
      const answers = await Promise.all(floodAnswers);
      return {
        cold,
        warm,
        floodSent: answers.length,
        floodDenied: answers.filter((a) => a === false).length,
        floodAdmitted: answers.filter((a) => a === true).length,
      };
    })();
    const { result, figures } = await measureAttack(
      `one namespace floods ${
        silentHosts === 1 ? "a silent registry" : `${silentHosts} silent registries`
      } (${floodImages} images every ${floodEveryMs / 1000} s)`,
      webhook,
      attack,
    );
    return {
      ...figures,
      otherNamespaceAdmitted: `${result.cold}/${reviews} cold, ${result.warm}/${reviews} warm`,
      coldAdmitted: result.cold,
      warmAdmitted: result.warm,
      reviews,
      floodSent: result.floodSent,
      floodDenied: result.floodDenied,
      floodAdmitted: result.floodAdmitted,
      note:
        `${result.floodDenied} of ${result.floodSent} flood reviews denied; budget ${budgetMs} ms`,
    };
  } finally {
    floodClient.close();
    victimClient.close();
  }
}
