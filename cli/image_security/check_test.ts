/**
 * `image-security check` through the CLI runner, against the real distribution registry with
 * images signed by the real skopeo and gpg.
 */
import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { imageChecks } from "./check.ts";
import { e2eSkipReason, startGpg, startRegistry } from "../../tests/env/mod.ts";
import { commandContext } from "../context.ts";

Deno.test({
  name: "image-security check evaluates images offline and exits 0, 1 or 2",
  ignore: e2eSkipReason(["docker-registry", "gpg", "skopeo"]) !== undefined,
  fn: async (t) => {
    await using registry = await startRegistry();
    await using gpg = await startGpg();
    const key = await gpg.generateKey({ type: "ed25519" });
    const signed = `${registry.host}/team/app:1`;
    const digest = await gpg.pushImage(signed, { signBy: key.fingerprint });
    const unsigned = `${registry.host}/team/plain:1`;
    await gpg.pushImage(unsigned, { content: "plain" });
    const dir = await Deno.makeTempDir({ prefix: "check-test-" });
    try {
      const policies = `${dir}/policies.yaml`;
      await Deno.writeTextFile(
        policies,
        `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "${registry.host}/team/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
---
apiVersion: v1
kind: Secret
metadata: { name: signer }
stringData:
  key: |
${key.publicKeyArmored.trimEnd().split("\n").map((l) => `    ${l}`).join("\n")}
`,
      );
      const check = async (args: string[]) => {
        const io = bufferedIO({ cwd: dir });
        const code = await runCli([
          "image-security",
          "check",
          ...args,
          "-f",
          "policies.yaml",
          "--insecure-registry",
          registry.host,
          "--registries.d",
          gpg.registriesD,
        ], commandContext(io));
        return { code, out: io.out(), err: io.err() };
      };

      await t.step(
        "exits 0 when every image is allowed and prints the pinned reference",
        async () => {
          const r = await check([signed, "-o", "json"]);
          assert.equal(r.code, 0, r.err);
          const result = JSON.parse(r.out);
          assert.equal(result.allowed, true);
          assert.equal(result.namespace, "default");
          assert.deepEqual(result.images[0], {
            image: signed,
            allowed: true,
            decision: "allow",
            policy: `ClusterImagePolicy "default" (pattern "${registry.host}/team/*")`,
            digest,
            pinned: `${registry.host}/team/app@${digest}`,
          });
        },
      );

      await t.step("exits 1 when one image is denied, with the reason", async () => {
        const r = await check([signed, unsigned, "-n", "prod"]);
        assert.equal(r.code, 1);
        assert.match(r.out, /^ALLOWED {2}/m);
        assert.match(
          r.out,
          new RegExp(
            `^DENIED   ${unsigned}\\n +policy: .*\\n +digest: sha256:[0-9a-f]{64}\\n +policy denied the request: A signature was required, but no signature exists$`,
            "m",
          ),
        );
        assert.equal((await check(["quay.io/not/covered:1"])).code, 1);
      });

      await t.step(
        "reads --cert-dir as verify does (its CA files), and refuses a missing one",
        async () => {
          await Deno.mkdir(`${dir}/certs`);
          assert.equal((await check([signed, "--cert-dir", "certs"])).code, 0);
          const r = await check([signed, "--cert-dir", "no-such-dir"]);
          assert.equal(r.code, 2);
          assert.match(r.err, /Cannot read --cert-dir ".*no-such-dir"/);
        },
      );

      await t.step("exits 2 on a usage error or a policy that does not validate", async () => {
        await Deno.writeTextFile(
          `${dir}/bad.yaml`,
          "apiVersion: toolkit.dev/v1\nkind: ClusterImagePolicy\nmetadata: {name: bad}\nspec: {repositories: [{name: x, policy: {mode: loud}}]}\n",
        );
        const io = bufferedIO({ cwd: dir });
        const code = await runCli(
          ["image-security", "check", signed, "-f", "bad.yaml"],
          commandContext(io),
        );
        assert.equal(code, 2);
        assert.match(io.err(), /spec\.repositories\[0\]\.policy\.mode/);
        const missing = bufferedIO({ cwd: dir });
        assert.equal(
          await runCli(
            ["image-security", "check", signed, "-f", "nope.yaml"],
            commandContext(missing),
          ),
          2,
        );
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("imageChecks() does not allow an image the decision says nothing about", () => {
  const checks = imageChecks(["registry.example.com/team/app:1"], {
    allowed: true,
    outcome: "allow",
    kind: "Pod",
    reasons: [],
    warnings: [],
    patch: [],
    sites: [],
  });
  assert.equal(checks[0]?.allowed, false);
  assert.equal(checks[0]?.decision, "deny");
  assert.match(checks[0]?.reason ?? "", /not checked/);
});
