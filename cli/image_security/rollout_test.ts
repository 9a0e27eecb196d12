/**
 * `image-security rollout` in-process: the in-memory API server of `tests/fakes/kube_api.ts`,
 * the images in the real distribution registry, signed by the real skopeo and gpg.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../../tests/env/mod.ts";
import { startSignedCluster } from "../../tests/fakes/signed_cluster.ts";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { NAMESPACES, PODS } from "../../lib/kube/mod.ts";

Deno.test({
  name: "image-security rollout enforces a namespace only when the audit finds nothing denied",
  ignore: e2eSkipReason(["docker-registry", "gpg", "skopeo"]) !== undefined,
  fn: async () => {
    await using fixture = await startSignedCluster({
      namespaces: [
        { name: "toolkit-system" },
        { name: "team", labels: { "toolkit.dev/enforcement": "warn", app: "x" } },
      ],
    });
    const { cli, signed, unsigned, flags, clock } = fixture;
    const kube = cli.kube;
    kube.seed(PODS, {
      metadata: { name: "ok", namespace: "team" },
      spec: { containers: [{ name: "main", image: signed }] },
    });
    kube.seed(PODS, {
      metadata: { name: "old", namespace: "team" },
      spec: { containers: [{ name: "main", image: unsigned }] },
    });

    const rollout = (args: string[]) =>
      cli.run(["image-security", "rollout", "-n", "team", ...args, ...flags], {
        context: { clock },
      });
    const label = () => kube.get(NAMESPACES, undefined, "team")!.metadata.labels;

    // Usage errors.
    assert.equal((await rollout([])).status, 2);
    assert.equal((await rollout(["--enforce", "--warn"])).status, 2);
    assert.equal((await rollout(["--warn", "--force"])).status, 2);

    // Refused while an unsigned image runs there (the namespace is labelled warn: the audit
    // judges it as it would be enforced), and nothing written.
    const writes = kube.writes().length;
    const refused = await rollout(["--enforce"]);
    assert.equal(refused.status, 1, refused.err);
    assert.match(refused.err, /Pod\/old\s+main\s+\S+plain:1\s+fail\s+A signature was required/);
    assert.match(refused.err, /Not enforcing namespace "team": 1 running image would be denied/);
    assert.doesNotMatch(refused.err, /Pod\/ok/);
    assert.equal(kube.writes().length, writes);
    assert.equal(label()?.["toolkit.dev/enforcement"], "warn");

    // --dry-run with --force: tells, changes nothing.
    const dry = await rollout(["--enforce", "--force", "--dry-run", "-o", "json"]);
    assert.equal(dry.status, 0, dry.err);
    const dryData = JSON.parse(dry.out);
    assert.equal(dryData.results[0].outcome, "would update");
    assert.equal(dryData.wouldDeny, 1);
    assert.equal(kube.writes().length, writes);

    // Fixed (the old Pod now runs the signed image): enforced, its other labels kept.
    const live = kube.get(PODS, "team", "old")!;
    kube.seed(PODS, { ...live, spec: { containers: [{ name: "main", image: signed }] } });
    const enforced = await rollout(["--enforce", "-o", "yaml"]);
    assert.equal(enforced.status, 0, enforced.err);
    assert.match(enforced.err, /labelled toolkit\.dev\/enforcement=enforce \(was warn\)/);
    assert.match(enforced.out, /outcome: updated/);
    assert.deepEqual(label(), { "toolkit.dev/enforcement": "enforce", app: "x" });
    assert.equal((await rollout(["--enforce"])).err.includes("already in enforce mode"), true);

    // Back to warn, no audit needed.
    const back = await rollout(["--warn"]);
    assert.equal(back.status, 0, back.err);
    assert.equal(label()?.["toolkit.dev/enforcement"], "warn");

    // A namespace that does not exist.
    const missing = await cli.run(["image-security", "rollout", "-n", "nope", "--warn"]);
    assert.equal(missing.status, 1);
    assert.match(missing.err, /Namespace "nope" does not exist/);
  },
});

Deno.test("image-security rollout has no --mode: the namespace it audits has its mode assumed", async () => {
  await using cli = await fakeCli();
  const refused = await cli.run([
    "image-security",
    "rollout",
    "-n",
    "team",
    "--warn",
    "--mode",
    "warn",
  ]);
  assert.equal(refused.status, 2, refused.err);
  assert.match(refused.err, /Unknown flag --mode of "image-security rollout"/);
  assert.equal(cli.kube.writes().length, 0);
  const help = await cli.run(["image-security", "rollout", "--help"]);
  assert.equal(help.status, 0, help.err);
  assert.doesNotMatch(help.out, /--mode/);
  assert.match(help.out, /--no-match/);
  const auditHelp = await cli.run(["image-security", "audit", "--help"]);
  assert.match(auditHelp.out, /--mode/);
});
