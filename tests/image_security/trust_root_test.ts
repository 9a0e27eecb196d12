/**
 * `toolkit image-security trust-root` and `key-secret` with PEM keys against the real API
 * server: the trust root ConfigMap and the cosign key Secret a `sigstoreSigned` policy names.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import { testKeyPair } from "../fakes/sigstore_instance.ts";

const PUBLIC_GOOD = new URL("../fixtures/sigstore/public_good_trusted_root.json", import.meta.url);

Deno.test({
  name: "image-security trust-root stores a checked trusted_root.json; key-secret takes PEM keys",
  ignore: e2eSkipReason(["kube-apiserver", "etcd"]) !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-trust-root-" });
    await Deno.copyFile(PUBLIC_GOOD, `${dir}/trusted_root.json`);
    await Deno.writeTextFile(`${dir}/broken.json`, '{"mediaType":"x"}');
    const key = testKeyPair();
    await Deno.writeTextFile(`${dir}/cosign.pub`, key.publicPem);
    await Deno.writeTextFile(
      `${dir}/cosign.key`,
      key.privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    );
    const toolkit = async (args: string[]) => {
      const io = bufferedIO({ cwd: dir, env: { KUBECONFIG: cluster.kubeconfigPath } });
      const status = await runCli(["image-security", ...args], commandContext(io));
      return { status, out: io.out(), err: io.err() };
    };
    await t.step("--dry-run prints the ConfigMap", async () => {
      const r = await toolkit([
        "trust-root",
        "sigstore-public-good",
        "-f",
        "trusted_root.json",
        "--dry-run",
        "-o",
        "json",
        "-n",
        "toolkit-system",
      ]);
      assert.equal(r.status, 0, r.err);
      const configMap = JSON.parse(r.out);
      assert.equal(configMap.kind, "ConfigMap");
      assert.equal(configMap.metadata.namespace, "toolkit-system");
      assert.equal(
        configMap.data["trusted_root.json"],
        await Deno.readTextFile(`${dir}/trusted_root.json`),
      );
    });
    await t.step("it creates the ConfigMap, then finds it unchanged", async () => {
      const first = await toolkit([
        "trust-root",
        "sigstore-public-good",
        "-f",
        "trusted_root.json",
      ]);
      assert.equal(first.status, 0, first.err);
      assert.match(
        first.err,
        /ConfigMap "default\/sigstore-public-good" created with trust root sha256:\w+: 2 certificate authorities, 2 transparency logs, 2 CT logs, 1 timestamp authorities \(https:\/\/rekor\.sigstore\.dev/,
      );
      const again = await toolkit([
        "trust-root",
        "sigstore-public-good",
        "-f",
        "trusted_root.json",
        "-o",
        "json",
      ]);
      assert.equal(again.status, 0, again.err);
      assert.match(again.err, /unchanged/);
      const stored = JSON.parse(
        (await cluster.kubectl(["get", "configmap", "sigstore-public-good", "-o", "json"])).stdout,
      );
      assert.ok(stored.data["trusted_root.json"].includes("rekor.sigstore.dev"));
    });
    await t.step(
      "a file that is no trust root is a usage error, and nothing is written",
      async () => {
        const r = await toolkit(["trust-root", "bad", "-f", "broken.json"]);
        assert.equal(r.status, 2);
        assert.match(
          r.err,
          /Cannot use trust root --file "broken.json": its mediaType "x" is not a sigstore trusted root/,
        );
        const get = await cluster.kubectl(["get", "configmap", "bad"]);
        assert.notEqual(get.code, 0);
      },
    );
    await t.step("key-secret stores PEM public keys and refuses a private key", async () => {
      const r = await toolkit(["key-secret", "cosign-pub", "--key", "cosign.pub"]);
      assert.equal(r.status, 0, r.err);
      assert.match(r.err, /Secret "default\/cosign-pub" created with 1 key: sha256:[0-9a-f]{64}/);
      const stored = JSON.parse(
        (await cluster.kubectl(["get", "secret", "cosign-pub", "-o", "json"])).stdout,
      );
      assert.match(atob(stored.data.key), /^-----BEGIN PUBLIC KEY-----\n/);
      const refused = await toolkit(["key-secret", "leak", "--key", "cosign.key"]);
      assert.equal(refused.status, 2);
      assert.match(refused.err, /it is a PRIVATE KEY, not a PUBLIC KEY/);
    });
    await Deno.remove(dir, { recursive: true });
  },
});
