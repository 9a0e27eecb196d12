/**
 * `toolkit image-security import --apply` against the real API server with toolkit's CRDs: every
 * policy-controller example and test policy imported at once (`--allow-partial`), the converted
 * ones accepted by the CRDs' schema and CEL rules and created with their key Secrets, the refused
 * ones (and those whose names clash) absent; a second run changes nothing.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";
import { e2eSkipReason, startCluster } from "../env/mod.ts";

const ROOT = new URL("../fixtures/import/policy-controller/", import.meta.url).pathname;

async function yamlFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) files.push(...await yamlFiles(`${path}/`));
    else if (path.endsWith(".yaml")) files.push(path);
  }
  return files.sort();
}

Deno.test({
  name: "image-security import --apply installs the converted policy-controller policies",
  ignore: e2eSkipReason(["kube-apiserver", "etcd"]) !== undefined,
  fn: async () => {
    await using cluster = await startCluster({ crds: ["toolkit"] });
    await cluster.kubectl(["create", "namespace", "toolkit-system"]);
    const dir = await Deno.makeTempDir({ prefix: "toolkit-import-" });
    const files = await yamlFiles(ROOT);
    const toolkit = async (args: string[]) => {
      const io = bufferedIO({ cwd: dir, env: { KUBECONFIG: cluster.kubeconfigPath } });
      const status = await runCli(["image-security", ...args], commandContext(io));
      return { status, out: io.out(), err: io.err() };
    };
    const args = ["import", ...files, "--apply", "--allow-partial", "--report", "report.json"];
    const first = await toolkit([...args, "-o", "json"]);
    assert.equal(first.status, 0, first.err);
    const report = JSON.parse(await Deno.readTextFile(`${dir}/report.json`));
    const converted = report.rules.filter((r: { status: string }) => r.status === "converted");
    assert.ok(converted.length >= 10, `${converted.length} converted`);
    assert.ok(report.refused > 0);
    const made: string[] = converted.flatMap((r: { objects: string[] }) => r.objects);
    const results = JSON.parse(first.out).results as { kind: string; outcome: string }[];
    assert.equal(results.length, made.length);
    assert.ok(results.every((r) => r.outcome === "created"), first.err);

    const policies = JSON.parse(
      (await cluster.kubectl(["get", "clusterimagepolicies.toolkit.dev", "-o", "json"])).stdout,
    ).items.map((p: { metadata: { name: string } }) => `ClusterImagePolicy ${p.metadata.name}`);
    assert.deepEqual(
      policies.sort(),
      made.filter((m) => m.startsWith("ClusterImagePolicy")).sort(),
    );
    const secrets = JSON.parse(
      (await cluster.kubectl(["get", "secrets", "-n", "toolkit-system", "-o", "json"])).stdout,
    ).items.map((s: { metadata: { name: string } }) => `Secret toolkit-system/${s.metadata.name}`);
    assert.deepEqual(secrets.sort(), made.filter((m) => m.startsWith("Secret")).sort());

    const again = await toolkit([...args, "-o", "json"]);
    assert.equal(again.status, 0, again.err);
    const outcomes = JSON.parse(again.out).results.map((r: { outcome: string }) => r.outcome);
    assert.ok(outcomes.every((o: string) => o === "unchanged"), again.err);
    await Deno.remove(dir, { recursive: true });
  },
});
