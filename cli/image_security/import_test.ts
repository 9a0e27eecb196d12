/**
 * `toolkit image-security import` in-process: policy-controller policies from files and stdin
 * converted to toolkit's objects (YAML, a JSON List), the report on stderr and as JSON, refused
 * rules (exit 1, or 0 with `--allow-partial`), `--apply` on the fake API server (Secrets before
 * policies, idempotent, an object the import did not make replaced only with `--replace`), and
 * usage errors. Against a real API server: tests/image_security/import_test.ts.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { parseYamlDocuments } from "../../lib/yaml.ts";
import { clusterImagePolicies, imagePolicies, NAMESPACES, SECRETS } from "../../lib/kube/mod.ts";

const PEM = "-----BEGIN PUBLIC KEY-----\n" +
  "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEIcbqK2RAVZOfPzo+kbOhNYq8DK9f\n" +
  "B2BGbU7jAXEvYthJ3vRcYq8l7g9UAXXiz9P2awFuTa4COcZU2IdEDVU0uA==\n" +
  "-----END PUBLIC KEY-----";

const KEYED = `apiVersion: policy.sigstore.dev/v1beta1
kind: ClusterImagePolicy
metadata:
  name: keyed
spec:
  images:
    - glob: "registry.example.com/team/**"
  authorities:
    - key:
        data: |
${PEM.split("\n").map((l) => `          ${l}`).join("\n")}
`;

const KMS = `apiVersion: policy.sigstore.dev/v1alpha1
kind: ClusterImagePolicy
metadata:
  name: kms
spec:
  images: [{ glob: "**" }]
  authorities: [{ key: { kms: "awskms:///arn:aws:kms:eu-west-1:1:key/x" } }]
`;

const TYPES = [clusterImagePolicies("toolkit.dev"), imagePolicies("toolkit.dev")];

Deno.test("import prints the converted objects as YAML and the report on stderr", async () => {
  await using cli = await fakeCli();
  await Deno.writeTextFile(
    `${cli.dir}/cip.yaml`,
    `${KEYED}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n`,
  );
  const run = await cli.run(["image-security", "import", "cip.yaml"]);
  assert.equal(run.status, 0, run.err);
  const objects = parseYamlDocuments(run.out) as { kind: string; metadata: { name: string } }[];
  assert.deepEqual(objects.map((o) => `${o.kind} ${o.metadata.name}`), [
    "Secret keyed-key",
    "ClusterImagePolicy keyed",
  ]);
  assert.match(
    run.err,
    /document 0: policy\.sigstore\.dev\/v1beta1 ClusterImagePolicy keyed: converted: ClusterImagePolicy keyed, Secret toolkit-system\/keyed-key/,
  );
  assert.match(
    run.err,
    /stronger metadata: policy-controller checks only namespaces labelled policy\.sigstore\.dev\/include=true/,
  );
  assert.match(run.err, /document 1: not a policy any importer reads \(skipped\)/);
  assert.match(run.err, /1 converted, 0 refused, 1 documents skipped/);
  assert.deepEqual(cli.kube.writes(), [], "printing writes nothing");
});

Deno.test("import - reads stdin, -o json prints a List, --report writes the JSON report", async () => {
  await using cli = await fakeCli();
  const run = await cli.run(
    [
      "image-security",
      "import",
      "-",
      "-o",
      "json",
      "--report",
      "report.json",
      "--controller-namespace",
      "sec",
    ],
    { stdin: KEYED },
  );
  assert.equal(run.status, 0, run.err);
  const list = JSON.parse(run.out);
  assert.equal(list.kind, "List");
  assert.equal(list.items[0].metadata.namespace, "sec");
  const report = JSON.parse(await Deno.readTextFile(`${cli.dir}/report.json`));
  assert.equal(report.converted, 1);
  assert.equal(report.rules[0].status, "converted");
  assert.deepEqual(report.rules[0].objects, ["ClusterImagePolicy keyed", "Secret sec/keyed-key"]);
  assert.ok(report.rules[0].findings.length > 0);
});

Deno.test("import exits 1 when a rule is refused, 0 with --allow-partial, the others still converted", async () => {
  await using cli = await fakeCli();
  await Deno.writeTextFile(`${cli.dir}/both.yaml`, `${KEYED}---\n${KMS}`);
  const strict = await cli.run(["image-security", "import", "both.yaml"]);
  assert.equal(strict.status, 1);
  assert.match(
    strict.err,
    /document 1: policy\.sigstore\.dev\/v1alpha1 ClusterImagePolicy kms: refused/,
  );
  assert.match(strict.err, /refused spec\.authorities\[0\]\.key\.kms: a KMS key \(awskms:\/\/…\)/);
  assert.match(strict.out, /name: keyed/, "the others are still printed");
  const partial = await cli.run(["image-security", "import", "both.yaml", "--allow-partial"]);
  assert.equal(partial.status, 0, partial.err);
  assert.equal(partial.out, strict.out);
});

Deno.test("import --apply writes the Secret before the policy, again unchanged, refuses to overwrite another's object", async () => {
  await using cli = await fakeCli({ types: TYPES });
  cli.kube.seed(NAMESPACES, { metadata: { name: "toolkit-system" } });
  await Deno.writeTextFile(`${cli.dir}/cip.yaml`, KEYED);
  const first = await cli.run(["image-security", "import", "cip.yaml", "--apply"]);
  assert.equal(first.status, 0, first.err);
  assert.match(
    first.err,
    /Secret "toolkit-system\/keyed-key" created\nClusterImagePolicy "keyed" created\n/,
  );
  const secret = cli.kube.get(SECRETS, "toolkit-system", "keyed-key")!;
  assert.equal(atob((secret.data as { key: string }).key), `${PEM}\n`);
  assert.ok(cli.kube.get(clusterImagePolicies("toolkit.dev"), undefined, "keyed"));

  const again = await cli.run(["image-security", "import", "cip.yaml", "--apply", "-o", "json"]);
  assert.equal(again.status, 0, again.err);
  const result = JSON.parse(again.out);
  assert.deepEqual(result.results.map((r: { outcome: string }) => r.outcome), [
    "unchanged",
    "unchanged",
  ]);
  assert.equal(result.converted, 1);

  cli.kube.seed(clusterImagePolicies("toolkit.dev"), {
    apiVersion: "toolkit.dev/v1",
    kind: "ClusterImagePolicy",
    metadata: { name: "keyed" },
    spec: { repositories: [] },
  });
  const clash = await cli.run(["image-security", "import", "cip.yaml", "--apply"]);
  assert.equal(clash.status, 2);
  assert.match(
    clash.err,
    /ClusterImagePolicy "keyed" already exists and was not made by an import; pass --replace/,
  );
  const replaced = await cli.run(["image-security", "import", "cip.yaml", "--apply", "--replace"]);
  assert.equal(replaced.status, 0, replaced.err);
  assert.match(replaced.err, /ClusterImagePolicy "keyed" updated/);
});

Deno.test("import --apply applies nothing when a rule is refused, the rest with --allow-partial; --dry-run only prints", async () => {
  await using cli = await fakeCli({ types: TYPES });
  cli.kube.seed(NAMESPACES, { metadata: { name: "toolkit-system" } });
  await Deno.writeTextFile(`${cli.dir}/both.yaml`, `${KEYED}---\n${KMS}`);
  const dry = await cli.run([
    "image-security",
    "import",
    "both.yaml",
    "--apply",
    "--dry-run",
    "--allow-partial",
  ]);
  assert.equal(dry.status, 0, dry.err);
  assert.match(dry.out, /kind: ClusterImagePolicy/);
  const refused = await cli.run(["image-security", "import", "both.yaml", "--apply"]);
  assert.equal(refused.status, 1);
  assert.match(
    refused.err,
    /1 rule was refused: nothing applied \(--allow-partial applies the rest\)/,
  );
  assert.deepEqual(cli.kube.writes(), []);
  const partial = await cli.run([
    "image-security",
    "import",
    "both.yaml",
    "--apply",
    "--allow-partial",
  ]);
  assert.equal(partial.status, 0, partial.err);
  assert.ok(cli.kube.get(clusterImagePolicies("toolkit.dev"), undefined, "keyed"));
  assert.equal(cli.kube.get(clusterImagePolicies("toolkit.dev"), undefined, "kms"), undefined);
});

Deno.test("import: a missing file and stdin twice are usage errors, input without policies fails", async () => {
  await using cli = await fakeCli();
  const missing = await cli.run(["image-security", "import", "nope.yaml"]);
  assert.equal(missing.status, 2);
  assert.match(missing.err, /Cannot read file "nope\.yaml": no such file/);
  const twice = await cli.run(["image-security", "import", "-", "-"], { stdin: KEYED });
  assert.equal(twice.status, 2);
  assert.match(twice.err, /Standard input \(-\) can be read only once/);
  const none = await cli.run(["image-security", "import", "-"], { stdin: "kind: Deployment\n" });
  assert.equal(none.status, 1);
  assert.match(none.err, /No document is a policy that toolkit imports/);
  const usage = await cli.run(["image-security", "import"]);
  assert.equal(usage.status, 2);
});
