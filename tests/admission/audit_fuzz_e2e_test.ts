/**
 * The audit on the admission fuzz's policy worlds: workloads whose images the fuzz generator
 * spells (host case, trailing dots, ports, Docker Hub aliases, tags and digests, look-alikes,
 * garbage) stored in the real kube-apiserver (kube-controller-manager makes the Deployments'
 * ReplicaSets and Pods), audited under each policy world of `_fuzz_world.ts`. For every image
 * site, the audit's verdict and message are the admission decision's for the object as stored
 * (a fresh evaluator, no audit memo), and no image the fuzz oracle denies is reported as passing.
 *
 * Flags by environment: `TOOLKIT_AUDIT_FUZZ_SEED` (default: random, printed on failure),
 * `TOOLKIT_AUDIT_FUZZ_WORKLOADS` (default 60).
 */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import { startFuzzWorld } from "./_fuzz_world.ts";
import { createFuzzEvaluator } from "./_fuzz_harness.ts";
import { generateImage, Rng } from "./_fuzz_generator.ts";
import { siteVerdict } from "./_fuzz_oracle.ts";
import { filePolicySource } from "../../lib/admission/file_source.ts";
import { DEFAULT_EXEMPT_LABEL } from "../../lib/admission/source.ts";
import {
  connectCluster,
  DEPLOYMENTS,
  type KubeObject,
  NAMESPACES,
  PODS,
  type ResourceType,
} from "../../lib/kube/mod.ts";
import {
  AUDITED_TYPES,
  type AuditedImage,
  auditVerifier,
  auditWorkloads,
  createRequest,
  siteName,
} from "../../lib/audit/mod.ts";

const NAMESPACES_USED = ["dev", "strict", "sandbox", "toolkit-system"] as const;

Deno.test({
  name: "audit gives every image the admission decision's verdict, on the fuzz's policy worlds",
  ignore: e2eSkipReason(["kube-apiserver", "etcd"]) !== undefined,
  fn: async () => {
    const seed = Number(
      Deno.env.get("TOOLKIT_AUDIT_FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31),
    );
    const count = Number(Deno.env.get("TOOLKIT_AUDIT_FUZZ_WORKLOADS") ?? 60);
    const context = `seed ${seed} (TOOLKIT_AUDIT_FUZZ_SEED=${seed})`;
    await using cluster = await startCluster();
    await using world = await startFuzzWorld();
    using kube = await connectCluster({ env: { KUBECONFIG: cluster.kubeconfigPath } });
    for (const name of NAMESPACES_USED) {
      await kube.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    }

    // Workloads of generated images, as many as the API server accepts.
    const rng = new Rng(seed);
    const catalogue = { tags: world.tags, favoured: world.favoured };
    const image = () => generateImage(rng, catalogue, () => true, rng.next() * 0.5).image;
    let stored = 0;
    for (let i = 0; i < count; i++) {
      const namespace = rng.pick(NAMESPACES_USED.slice(0, 3));
      const spec = {
        ...(rng.chance(0.3) ? { serviceAccountName: "builder" } : {}),
        ...(rng.chance(0.3) ? { initContainers: [{ name: "init", image: image() }] } : {}),
        containers: Array.from({ length: 1 + rng.int(3) }, (_, c) => ({
          name: `c${c}`,
          image: image(),
        })),
      };
      const deployment = rng.chance(0.4);
      const object: KubeObject = deployment
        ? {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: `w${i}`, namespace },
          spec: {
            selector: { matchLabels: { app: `w${i}` } },
            template: { metadata: { labels: { app: `w${i}` } }, spec },
          },
        }
        : { apiVersion: "v1", kind: "Pod", metadata: { name: `w${i}`, namespace }, spec };
      try {
        await kube.create(deployment ? DEPLOYMENTS : PODS, object);
        stored++;
      } catch {
        // An image the API server refuses (whitespace, control characters) cannot be running.
      }
    }
    assert.ok(stored >= count / 2, `${stored} of ${count} workloads stored (${context})`);

    const typeOf = (kind: string): ResourceType => AUDITED_TYPES.find((t) => t.kind === kind)!;
    let sites = 0;
    let denied = 0;
    for (const policies of world.worlds) {
      const where = `world "${policies.name}", ${context}`;
      const source = () =>
        filePolicySource(policies.documents, { exemptLabel: DEFAULT_EXEMPT_LABEL });
      const audited = await auditWorkloads({
        kube,
        evaluator: createFuzzEvaluator(world, source(), undefined, auditVerifier),
      });
      // The admission decision of each audited object, as it is stored now, by a fresh evaluator.
      const admission = createFuzzEvaluator(world, source());
      const byWorkload = new Map<string, AuditedImage[]>();
      for (const a of audited) {
        const key = `${a.workload.kind}/${a.namespace}/${a.workload.name}`;
        byWorkload.set(key, [...byWorkload.get(key) ?? [], a]);
      }
      for (const rows of byWorkload.values()) {
        const first = rows[0]!;
        const type = typeOf(first.workload.kind);
        const object = await kube.read(type, first.namespace, first.workload.name);
        if (object === undefined) continue; // gone meanwhile (a ReplicaSet replaced)
        const decision = await admission.evaluate(createRequest(type, object));
        const what = `${first.workload.kind} ${first.namespace}/${first.workload.name}, ${where}`;
        if (decision.sites.length === 0) {
          // Decided whole: exempt namespaces admit every image, nothing else is expected here.
          assert.equal(decision.outcome, "exempt", what);
          for (const row of rows) assert.equal(row.verdict, "pass", what);
          continue;
        }
        assert.equal(rows.length, decision.sites.length, what);
        rows.forEach((row, i) => {
          const site = decision.sites[i]!;
          sites++;
          assert.equal(row.container, siteName(site.site), what);
          assert.equal(row.image, site.site.image, what);
          const expected = site.outcome === "allow"
            ? "pass"
            : site.outcome === "warn"
            ? "warn"
            : site.cause === "error"
            ? "error"
            : "fail";
          assert.equal(row.verdict, expected, `${row.image} in ${what}`);
          if (site.outcome !== "allow") assert.equal(row.message, site.detail, what);
          if (expected === "fail" || expected === "error") denied++;
          // The oracle: what needs a signature that does not exist is never reported passing.
          const oracle = siteVerdict(world, policies, row.namespace, row.image);
          if (oracle.kind === "deny" || oracle.kind === "unreadable") {
            assert.notEqual(
              row.verdict,
              "pass",
              `${row.image} in ${what}: ${JSON.stringify(oracle)}`,
            );
          }
        });
      }
    }
    assert.ok(
      sites > 0 && denied > 0 && denied < sites,
      `${denied} of ${sites} denied (${context})`,
    );
  },
});
