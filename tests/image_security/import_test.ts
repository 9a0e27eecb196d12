/**
 * `toolkit image-security import --apply` against the real API server with toolkit's CRDs, for each
 * source's published policies (tests/fixtures/import: policy-controller's examples and test
 * policies, kyverno/policies' samples and Kyverno's conformance policies, Connaisseur's chart values
 * and docs examples) imported at once (`--allow-partial`): the converted ones accepted by the CRDs'
 * schema and CEL rules and created with their key Secrets and trust roots, the refused ones (and
 * those whose names clash) absent; a second run changes nothing.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";
import { e2eSkipReason, startCluster } from "../env/mod.ts";

const FIXTURES = new URL("../fixtures/import/", import.meta.url).pathname;

async function yamlFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) files.push(...await yamlFiles(`${path}/`));
    else if (path.endsWith(".yaml")) files.push(path);
  }
  return files.sort();
}

/** `Kind ns/name` or `Kind name`, as the report names an object. */
function parseMade(made: string): { kind: string; namespace?: string; name: string } {
  const [kind, ref] = made.split(" ") as [string, string];
  const slash = ref.indexOf("/");
  return slash < 0
    ? { kind, name: ref }
    : { kind, namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

const RESOURCES: Record<string, string> = {
  ClusterImagePolicy: "clusterimagepolicies.toolkit.dev",
  ImagePolicy: "imagepolicies.toolkit.dev",
  Secret: "secrets",
  ConfigMap: "configmaps",
};

for (
  const [source, minimum] of [["policy-controller", 10], ["kyverno", 10], [
    "connaisseur",
    5,
  ]] as const
) {
  Deno.test({
    name: `image-security import --apply installs the converted ${source} policies`,
    ignore: e2eSkipReason(["kube-apiserver", "etcd"]) !== undefined,
    fn: async () => {
      await using cluster = await startCluster({ crds: ["toolkit"] });
      await cluster.kubectl(["create", "namespace", "toolkit-system"]);
      const dir = await Deno.makeTempDir({ prefix: "toolkit-import-" });
      const files = await yamlFiles(`${FIXTURES}${source}/`);
      const toolkit = async (args: string[]) => {
        const io = bufferedIO({ cwd: dir, env: { KUBECONFIG: cluster.kubeconfigPath } });
        const status = await runCli(["image-security", ...args], commandContext(io));
        return { status, out: io.out(), err: io.err() };
      };
      const args = ["import", ...files, "--allow-partial", "--report", "report.json"];
      // What it would make, first: the namespaces of namespaced policies must exist to apply them.
      const planned = await toolkit([...args, "-o", "json"]);
      assert.equal(planned.status, 0, planned.err);
      const report = JSON.parse(await Deno.readTextFile(`${dir}/report.json`));
      const converted = report.rules.filter((r: { status: string }) => r.status === "converted");
      assert.ok(converted.length >= minimum, `${converted.length} converted`);
      assert.ok(report.refused > 0);
      // Rules may make the same object (a trust root or key Secret they both name): made once.
      const made: string[] = [
        ...new Set<string>(converted.flatMap((r: { objects: string[] }) => r.objects)),
      ];
      const namespaces = new Set(
        made.map(parseMade).flatMap((m) =>
          m.namespace && m.namespace !== "toolkit-system" ? [m.namespace] : []
        ),
      );
      for (const namespace of namespaces) await cluster.kubectl(["create", "namespace", namespace]);

      const first = await toolkit([...args, "--apply", "-o", "json"]);
      assert.equal(first.status, 0, first.err.slice(-2000));
      const results = JSON.parse(first.out).results as { kind: string; outcome: string }[];
      assert.equal(results.length, made.length);
      assert.deepEqual(results.filter((r) => r.outcome !== "created"), []);
      for (const kind of Object.keys(RESOURCES)) {
        const listed = JSON.parse(
          (await cluster.kubectl(["get", RESOURCES[kind]!, "-A", "-o", "json"])).stdout,
        ).items.map((o: { metadata: { name: string; namespace?: string } }) =>
          `${kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`
        ).filter((name: string) =>
          kind === "ClusterImagePolicy" || kind === "ImagePolicy" ||
          made.includes(name) || name.includes(" toolkit-system/")
        );
        const expected = made.filter((m) => m.startsWith(`${kind} `)).sort();
        if (kind === "ConfigMap") {
          // The API server adds kube-root-ca.crt to every namespace: only ours are compared.
          assert.deepEqual(listed.filter((n: string) => made.includes(n)).sort(), expected);
        } else {
          assert.deepEqual(listed.sort(), expected, kind);
        }
      }

      const again = await toolkit([...args, "--apply", "-o", "json"]);
      assert.equal(again.status, 0, again.err);
      const outcomes = JSON.parse(again.out).results.map((r: { outcome: string }) => r.outcome);
      assert.ok(outcomes.every((o: string) => o === "unchanged"), again.err);
      await Deno.remove(dir, { recursive: true });
    },
  });
}
