/**
 * `lib/kube` against a real kube-apiserver: both transports (Deno fetch and
 * `@kubernetes/client-node`), client certificates, bearer tokens, token files and an exec
 * credential plugin, discovery, idempotent writes, and the errors a user sees.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import {
  applyObject,
  CONFIG_MAPS,
  connectCluster,
  KubeApiError,
  KubeUnreachableError,
  NAMESPACES,
  NoClusterContextError,
} from "../../lib/kube/mod.ts";
import { apply, copyKubeconfig, kubectl, tempDir, toolkit } from "./helpers.ts";
import { parse, stringify } from "yaml";

const ignore = e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined;

Deno.test({
  name: "lib/kube against a real API server",
  ignore,
  fn: async (t) => {
    await using cluster = await startCluster();
    await using dir = await tempDir();
    const kubeconfig = await copyKubeconfig(cluster, dir.path);
    const env = { KUBECONFIG: kubeconfig };
    await apply(cluster, { apiVersion: "v1", kind: "Namespace", metadata: { name: "k" } });

    for (const transport of ["fetch", "client-node"] as const) {
      await t.step(`${transport}: reads, discovers and writes idempotently`, async () => {
        using client = await connectCluster({ env, transport });
        assert.equal(client.transport.kind, transport);
        assert.equal(client.namespace, "default");
        assert.ok(await client.read(NAMESPACES, undefined, "k"));
        assert.equal(await client.read(CONFIG_MAPS, "k", "absent"), undefined);
        assert.equal(await client.isOpenShift(), false);
        const desired = {
          metadata: { name: `cm-${transport}`, namespace: "k", labels: { a: "1" } },
          data: { x: "1" },
        };
        assert.equal((await applyObject(client, CONFIG_MAPS, desired)).outcome, "created");
        assert.equal((await applyObject(client, CONFIG_MAPS, desired)).outcome, "unchanged");
        assert.equal(
          (await applyObject(client, CONFIG_MAPS, desired, { ifExists: "skip" })).outcome,
          "skipped",
        );
        const changed = { ...desired, data: { x: "2" } };
        assert.equal((await applyObject(client, CONFIG_MAPS, changed)).outcome, "updated");
        await assert.rejects(
          client.create(CONFIG_MAPS, { metadata: { name: "x", namespace: "no-such-ns" } }),
          (e: unknown) =>
            e instanceof KubeApiError && e.status === 404 &&
            e.message ===
              'Cannot create ConfigMap "no-such-ns/x": namespaces "no-such-ns" not found',
        );
      });
    }

    await t.step(
      "two concurrent writes of a new object: one creates, the other finds it",
      async () => {
        using client = await connectCluster({ env });
        const desired = { metadata: { name: "race", namespace: "k" }, data: { a: "1" } };
        const outcomes = (await Promise.all([
          applyObject(client, CONFIG_MAPS, desired, { existing: null }),
          applyObject(client, CONFIG_MAPS, desired, { existing: null }),
        ])).map((r) => r.outcome).sort();
        assert.deepEqual(outcomes, ["created", "unchanged"]);
      },
    );

    await t.step("bearer tokens, token files and exec plugins authenticate", async () => {
      await kubectl(cluster, ["create", "serviceaccount", "reader", "-n", "k"]);
      await kubectl(cluster, [
        "create",
        "role",
        "reader",
        "-n",
        "k",
        "--verb=get,list",
        "--resource=configmaps",
      ]);
      await kubectl(cluster, [
        "create",
        "rolebinding",
        "reader",
        "-n",
        "k",
        "--role=reader",
        "--serviceaccount=k:reader",
      ]);
      const token = (await kubectl(cluster, ["create", "token", "reader", "-n", "k"])).trim();
      const base = parse(await Deno.readTextFile(kubeconfig));
      const withUser = async (name: string, user: Record<string, unknown>) => {
        const path = `${dir.path}/kubeconfig-${name}`;
        await Deno.writeTextFile(
          path,
          stringify({ ...base, users: [{ name: "toolkit-admin", user }] }),
        );
        return path;
      };
      await Deno.writeTextFile(`${dir.path}/token`, `${token}\n`);
      const plugin = `${dir.path}/plugin.sh`;
      await Deno.writeTextFile(
        plugin,
        `#!/bin/sh\nprintf '%s' '${
          JSON.stringify({
            apiVersion: "client.authentication.k8s.io/v1",
            kind: "ExecCredential",
            status: { token },
          })
        }'\n`,
      );
      await Deno.chmod(plugin, 0o755);
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ["token", { token }, "fetch"],
        ["token-file", { tokenFile: "token" }, "fetch"],
        ["exec", {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1",
            command: plugin,
            interactiveMode: "Never",
          },
        }, "fetch"],
      ];
      for (const [name, user, kind] of cases) {
        using client = await connectCluster({ kubeconfig: await withUser(name, user), env: {} });
        assert.equal(client.transport.kind, kind, name);
        assert.deepEqual(
          await client.list(CONFIG_MAPS, "k", { labelSelector: "a=1" }).then((l) => l.length),
          2,
        );
        await assert.rejects(
          client.create(CONFIG_MAPS, { metadata: { name: "denied", namespace: "k" } }),
          (e: unknown) =>
            e instanceof KubeApiError && e.status === 403 && /forbidden/.test(e.message),
        );
      }
      using bad = await connectCluster({
        kubeconfig: await withUser("bad", { token: "nope" }),
        env: {},
      });
      await assert.rejects(
        bad.list(CONFIG_MAPS, "k"),
        (e: unknown) => e instanceof NoClusterContextError && /401 Unauthorized/.test(e.message),
      );
    });

    await t.step("commands run through @kubernetes/client-node when asked to", async () => {
      const r = await toolkit(["credentials", "-n", "k"], {
        ...env,
        TOOLKIT_KUBE_CLIENT: "client-node",
      });
      assert.equal(r.status, 0, r.err);
      assert.deepEqual(JSON.parse(r.out), {});
    });

    await t.step(
      "an API server that cannot be reached is reported as unreachable (a NoClusterContextError)",
      async () => {
        const gone = await startCluster();
        const path = await copyKubeconfig(gone, dir.path, "gone");
        await gone.stop();
        for (const transport of ["fetch", "client-node"] as const) {
          using client = await connectCluster({ kubeconfig: path, env: {}, transport });
          await assert.rejects(
            client.apiGroups(),
            (e: unknown) =>
              e instanceof NoClusterContextError && e instanceof KubeUnreachableError &&
              e.message.startsWith(`Cannot reach the API server ${gone.server} of context`),
          );
        }
        const r = await toolkit(["credentials", "--kubeconfig", path], {});
        assert.equal(r.status, 1);
        assert.match(r.err, /Cannot reach the API server .* check that it runs/);
        assert.doesNotMatch(r.err, /No usable kubeconfig context/);
      },
    );
  },
});
