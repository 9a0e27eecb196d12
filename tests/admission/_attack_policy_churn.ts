/**
 * Attack 7 of issue #33 on the real webhook process: a namespace's owner rewrites an ImagePolicy
 * of 512 repositories as fast as the real kube-apiserver takes it, for a while, so that the
 * webhook (watching policies through the API server) has to compile them again and again.
 * Meanwhile another namespace's signed image is reviewed 20 times, spread over the churn: it must
 * keep being admitted. At the end the policy's last version must be the one in effect.
 *
 * @module
 */
import { connectCluster } from "../../lib/kube/mod.ts";
import { type AttackFigures, eventLoopStalls, measureAttack } from "./_attack.ts";
import { type AdmitAnswer, podReviewBody, postReview, processMemory } from "./_hostile.ts";
import { eventually, RELEASE_RUNTIME_FLAGS } from "./_webhook.ts";
import { startWorld } from "./_world.ts";

/** The namespace whose ImagePolicy churns. */
const CHURN = "churn";
/** The other namespace (`podReviewBody` reviews Pods there). */
const OTHER = "dev";
const REPOSITORIES = 512;
const OTHER_REVIEWS = 20;
/** PATCHes of the ImagePolicy in flight at once (more only make the API server retry conflicts). */
const WRITERS = 2;

/** What the attack reports besides the figures. */
export interface PolicyChurnAttack {
  readonly figures: AttackFigures;
  /** How many versions of the ImagePolicy the API server took. */
  readonly versions: number;
  /** The other namespace's answers. */
  readonly other: readonly AdmitAnswer[];
  /** Whether the policy's last version was in effect at the end (and the one before not). */
  readonly lastVersionInEffect: boolean;
}

/** The spec of version `version`: 512 repositories, each naming the version. */
function spec(registry: string, version: number) {
  return {
    repositories: Array.from({ length: REPOSITORIES }, (_, i) => ({
      name: `${registry}/churn/app-${i}-v${version}`,
      policy: { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } },
    })),
  };
}

/**
 * Runs the attack for `durationMs` of churn on a cluster and webhook of its own and returns what
 * it measured; everything is stopped, even when it fails.
 */
export async function policyChurnAttack(
  options: { durationMs?: number } = {},
): Promise<PolicyChurnAttack> {
  const durationMs = options.durationMs ?? 10_000;
  await using world = await startWorld();
  const { cluster, registry, gpg } = world;
  const signer = await world.signer();
  const image = `${registry.host}/calm/app:1`;
  await gpg.pushImage(image, { signBy: signer.fingerprint });

  await world.namespaces(OTHER, CHURN);
  await world.keySecret("signer", signer.publicKeyArmored);
  await world.keySecret("signer", signer.publicKeyArmored, CHURN);
  await world.clusterPolicy([{
    name: `${registry.host}/*`,
    policy: { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } },
  }]);
  using client = await connectCluster({ kubeconfig: cluster.kubeconfigPath, env: {} });
  const path = `/apis/toolkit.dev/v1/namespaces/${CHURN}/imagepolicies`;
  await client.request("POST", path, {
    body: {
      apiVersion: "toolkit.dev/v1",
      kind: "ImagePolicy",
      metadata: { name: "churn", namespace: CHURN },
      spec: spec(registry.host, 0),
    },
  });

  // Not registered with the API server: reviews are posted to it directly.
  const webhook = await world.startWebhook({ runtimeFlags: RELEASE_RUNTIME_FLAGS });
  const http = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  const review = (namespace: string, images: string[], uid: string) =>
    postReview(webhook, http, podReviewBody(uid, images).replaceAll(`"dev"`, `"${namespace}"`));
  try {
    // Warm: the other namespace's image is admitted before the churn starts.
    const warm = await review(OTHER, [image], "warm");
    if (warm.allowed !== true) throw new Error(`the signed image is not admitted: ${warm.message}`);

    const stallBefore = (await eventLoopStalls(webhook)).maxMs;
    const rssBefore = processMemory(webhook.process.pid).rss;
    const cpuBefore = cpuSeconds(webhook.process.pid);
    const startedAt = performance.now();
    // Several writers at once: one alone is held to the API server's round trip.
    let versions = 0;
    const end = performance.now() + durationMs;
    const churn = Promise.all(Array.from({ length: WRITERS }, async () => {
      while (performance.now() < end) {
        const version = ++versions;
        await client.request("PATCH", `${path}/churn`, {
          contentType: "application/merge-patch+json",
          body: { spec: spec(registry.host, version) },
        });
      }
    }));
    const other = (async () => {
      const answers: AdmitAnswer[] = [];
      for (let i = 0; i < OTHER_REVIEWS; i++) {
        answers.push(await review(OTHER, [image], `other-${i}`));
        await new Promise((resolve) => setTimeout(resolve, durationMs / OTHER_REVIEWS));
      }
      return answers;
    })();
    const { result, figures } = await measureAttack(
      `a ${REPOSITORIES}-repository ImagePolicy rewritten for ${
        durationMs / 1000
      }s (${WRITERS} writers)`,
      webhook,
      Promise.all([churn, other]),
    );
    const answers = result[1];
    const core = (cpuSeconds(webhook.process.pid) - cpuBefore) /
      ((performance.now() - startedAt) / 1000);

    // The last version is in effect: its images are governed (verified: here, not found), the
    // version before's are not any more. Writers race: the last is the one the API server kept.
    const stored = await client.request<{ spec: { repositories: { name: string }[] } }>(
      "GET",
      `${path}/churn`,
    );
    const kept = Number(/-v(\d+)$/.exec(stored.spec.repositories[0]!.name)?.[1]);
    const last = `${registry.host}/churn/app-0-v${kept}:1`;
    const before = `${registry.host}/churn/app-0-v${kept - 1}:1`;
    let lastVersionInEffect = false;
    await eventually("the last version of the ImagePolicy to be in effect", async () => {
      const [now, old] = await Promise.all([
        review(CHURN, [last], "last"),
        review(CHURN, [before], "before"),
      ]);
      lastVersionInEffect = !/no ImagePolicy .* matches/.test(now.message ?? "") &&
        /no ImagePolicy .* matches/.test(old.message ?? "");
      return lastVersionInEffect;
    }, 60_000).catch(() => {});
    const admitted = answers.filter((a) => a.allowed === true).length;
    return {
      figures: {
        ...figures,
        otherNamespaceAdmitted: `${admitted}/${answers.length}`,
        note: `${versions} versions sent to the API server; the webhook at ${
          Math.round(core * 100)
        } % of a core meanwhile; RSS before the churn ${
          Math.round(rssBefore / (1024 * 1024))
        } MiB; event-loop stall before the churn ${
          stallBefore === undefined ? "?" : Math.round(stallBefore)
        } ms`,
      },
      versions,
      other: answers,
      lastVersionInEffect,
    };
  } finally {
    http.close();
  }
}

/** The CPU time process `pid` used so far (user and system), in seconds (Linux). */
function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // The fields after the command name (which may hold spaces) in parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks
}
