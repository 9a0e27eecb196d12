/**
 * A namespace administrator's ImagePolicy against the real API server and webhook:
 *
 * - the CRD schema refuses a pattern that could never match an image name, with its field path;
 * - the pattern that froze the webhook when each `*` was a backtracking `.*`
 *   (`evil.io/*a*a*a*a*a*a*a*a*b` against `evil.io/` + 200 × `a`) is decided at once, and so are
 *   512 such patterns in one namespace;
 * - while that namespace's Pods are reviewed, Pods of another namespace are admitted as usual and
 *   `/healthz` answers throughout.
 *
 * The only time bound asserted is the webhook's own budget; the stall figures are printed (and
 * measured by `tests/bench/hostile_load.ts`).
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { dryRunPod, eventually, kubectlOk } from "./_webhook.ts";
import { probeHealthWhile } from "./_hostile.ts";

const BUDGET_MS = 4000;
// deno-lint-ignore no-console
const report = (line: string) => console.log(line);

function imagePolicy(
  namespace: string,
  name: string,
  patterns: readonly string[],
  policy: unknown = { simple: { requirements: [{ type: "reject" }] } },
): string {
  return JSON.stringify({
    apiVersion: "toolkit.dev/v1",
    kind: "ImagePolicy",
    metadata: { name, namespace },
    spec: {
      repositories: patterns.map((pattern) => ({ name: pattern, policy })),
    },
  });
}

Deno.test({
  name: "a namespace's ImagePolicy cannot freeze the webhook for other namespaces",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld({ images: false });
    const { cluster } = world;
    await world.namespaces("dev", "evil", "evil2");
    // dev: everything is admitted without checks (no registry needed).
    await kubectlOk(cluster, ["apply", "-f", "-"], imagePolicy("dev", "open", ["*"], {}));

    await t.step("the CRD refuses patterns that can never match, naming the field", async () => {
      const cases: [string, RegExp][] = [
        ["x".repeat(600), /spec\.repositories\[0\]\.name: Too long/],
        ["evil.io/app name", /spec\.repositories\[0\]\.name: Invalid value/],
        [`evil.io/app@sha256:${"a".repeat(64)}`, /spec\.repositories\[0\]\.name: Invalid value/],
      ];
      for (const [pattern, message] of cases) {
        const r = await cluster.kubectl(["apply", "-f", "-"], {
          stdin: imagePolicy("evil", "bad", [pattern]),
        });
        assert.notEqual(r.code, 0, pattern);
        assert.match(r.stderr, message);
      }
    });

    await kubectlOk(
      cluster,
      ["apply", "-f", "-"],
      imagePolicy("evil", "freeze", ["evil.io/*a*a*a*a*a*a*a*a*b"]),
    );
    await kubectlOk(
      cluster,
      ["apply", "-f", "-"],
      imagePolicy(
        "evil2",
        "many",
        Array.from({ length: 512 }, (_, i) => `*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*${i}b`),
      ),
    );
    const webhook = await world.startWebhook({
      args: ["--budget", `${BUDGET_MS}ms`],
      probe: { namespace: "evil", image: "evil.io/probe:1" },
    });

    await t.step("the freezing pattern is decided at once, other namespaces go on", async () => {
      const long = `evil.io/${"a".repeat(200)}:1`;
      const attack = Promise.all(
        Array.from({ length: 8 }, (_, i) => dryRunPod(cluster, `evil-${i}`, "evil", long)),
      ).then(async (evil) => [
        ...evil,
        ...await Promise.all(
          Array.from(
            { length: 8 },
            (_, i) => dryRunPod(cluster, `evil2-${i}`, "evil2", `docker.io/${"a".repeat(200)}:1`),
          ),
        ),
      ]);
      const healthy = Promise.all(
        Array.from({ length: 8 }, (_, i) => dryRunPod(cluster, `ok-${i}`, "dev", "nginx:1")),
      );
      const both = Promise.all([attack, healthy]);
      const probes = await probeHealthWhile(webhook, both);
      const [evil, ok] = await both;
      for (const r of evil) {
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /policy denied the request: no ImagePolicy in namespace "evil2?"/);
      }
      for (const r of ok) assert.equal(r.code, 0, r.stderr);
      assert.ok(probes.length > 0 && probes.every((p) => p.ok));
      const slowest = Math.max(...probes.map((p) => p.answered - p.sent));
      assert.ok(slowest < BUDGET_MS, `/healthz answered within the budget (${slowest} ms)`);
      report(`slowest /healthz ${slowest.toFixed(1)} ms over ${probes.length} probes`);
    });

    await t.step("513 patterns in one namespace deny its images, not others'", async () => {
      await kubectlOk(
        cluster,
        ["apply", "-f", "-"],
        imagePolicy("evil2", "one-more", ["evil.io/more"]),
      );
      await eventually("the webhook to see the 513th pattern", async () => {
        const r = await dryRunPod(cluster, "many", "evil2", "evil.io/more");
        return r.code !== 0 && /more than 512 repository patterns/.test(r.stderr);
      });
      const r = await dryRunPod(cluster, "fine", "dev", "nginx:1");
      assert.equal(r.code, 0, r.stderr);
    });
  },
});
