import assert from "node:assert/strict";
import { kubeconfigPaths, loadContext, loadKubeconfig, resolveContext } from "./kubeconfig.ts";
import { NoClusterContextError } from "./errors.ts";
import { chooseTransport } from "./client.ts";
import { describeError } from "../errors.ts";
import { assertNoCanary, canary, rejection } from "../../tests/fakes/secret_canary.ts";
import { fetchUnsupportedReason } from "./transport.ts";

function config(opts: {
  cluster?: string;
  user?: string;
  context?: string;
  current?: string;
  namespace?: string;
  server?: string;
  userBody?: string;
}): string {
  const c = opts.cluster ?? "c1";
  const u = opts.user ?? "u1";
  const x = opts.context ?? "ctx1";
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${c}`,
    "  cluster:",
    `    server: ${opts.server ?? "https://127.0.0.1:6443/"}`,
    "    certificate-authority: pki/ca.crt",
    "users:",
    `- name: ${u}`,
    "  user:",
    opts.userBody ?? "    client-certificate: pki/admin.crt\n    client-key: /abs/admin.key",
    "contexts:",
    `- name: ${x}`,
    "  context:",
    `    cluster: ${c}`,
    `    user: ${u}`,
    ...(opts.namespace ? [`    namespace: ${opts.namespace}`] : []),
    ...(opts.current !== undefined ? [`current-context: ${opts.current}`] : []),
    "",
  ].join("\n");
}

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-kubeconfig-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("kubeconfigPaths() prefers --kubeconfig, then $KUBECONFIG, then ~/.kube/config", () => {
  const env = { KUBECONFIG: "/a:rel/b::/a", HOME: "/home/me" };
  assert.deepEqual(kubeconfigPaths({ kubeconfig: "x", env, cwd: "/work" }), ["/work/x"]);
  assert.deepEqual(kubeconfigPaths({ env, cwd: "/work" }), ["/a", "/work/rel/b"]);
  assert.deepEqual(kubeconfigPaths({ env: { HOME: "/home/me" } }), ["/home/me/.kube/config"]);
  assert.deepEqual(kubeconfigPaths({ env: {} }), []);
});

Deno.test("loadContext() resolves the current context with paths relative to its file", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/config`, config({ current: "ctx1", namespace: "dev" }));
    const ctx = await loadContext({ env: { KUBECONFIG: `${dir}/config` } });
    assert.equal(ctx.name, "ctx1");
    assert.equal(ctx.namespace, "dev");
    assert.equal(ctx.cluster.server, "https://127.0.0.1:6443");
    assert.equal(ctx.cluster.certificateAuthority, `${dir}/pki/ca.crt`);
    assert.equal(ctx.user.clientCertificate, `${dir}/pki/admin.crt`);
    assert.equal(ctx.user.clientKey, "/abs/admin.key");
    assert.equal(ctx.file, `${dir}/config`);
    const standalone = JSON.parse(ctx.standalone);
    assert.equal(standalone.clusters[0].cluster["certificate-authority"], `${dir}/pki/ca.crt`);
    assert.equal(standalone["current-context"], "ctx1");
  });
});

Deno.test("loadKubeconfig() merges KUBECONFIG files first-wins and skips missing ones", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a`, config({ context: "shared", namespace: "from-a" }));
    await Deno.writeTextFile(
      `${dir}/b`,
      config({ context: "shared", namespace: "from-b", current: "other" }) +
        "",
    );
    await Deno.writeTextFile(
      `${dir}/c`,
      config({ context: "other", cluster: "c2", user: "u2", namespace: "from-c" }),
    );
    const merged = await loadKubeconfig({
      env: { KUBECONFIG: `${dir}/missing:${dir}/a:${dir}/b:${dir}/c` },
    });
    assert.deepEqual(merged.files, [`${dir}/a`, `${dir}/b`, `${dir}/c`]);
    assert.equal(merged.currentContext, "other");
    assert.equal(resolveContext(merged, "shared").namespace, "from-a");
    const other = resolveContext(merged);
    assert.equal(other.namespace, "from-c");
    assert.equal(other.file, `${dir}/c`);
  });
});

Deno.test("loadContext() says clearly why there is no usable context", async () => {
  await withDir(async (dir) => {
    await assert.rejects(
      loadContext({ env: { HOME: dir } }),
      (e: unknown) =>
        e instanceof NoClusterContextError &&
        e.message ===
          `No usable kubeconfig context: no kubeconfig at ${dir}/.kube/config; log in to a cluster or pass --kubeconfig/--context`,
    );
    await assert.rejects(
      loadContext({ kubeconfig: `${dir}/nope`, env: {} }),
      /kubeconfig .*nope does not exist/,
    );
    await Deno.writeTextFile(`${dir}/config`, config({}));
    await assert.rejects(
      loadContext({ env: { KUBECONFIG: `${dir}/config` } }),
      /no current-context in/,
    );
    await assert.rejects(
      loadContext({ env: { KUBECONFIG: `${dir}/config` }, context: "elsewhere" }),
      /context "elsewhere" is not in/,
    );
    await Deno.writeTextFile(`${dir}/bad`, "clusters: [\n");
    await assert.rejects(
      loadContext({ env: { KUBECONFIG: `${dir}/bad` } }),
      (e: unknown) => e instanceof NoClusterContextError && /cannot parse/.test(e.message),
    );
  });
});

Deno.test("chooseTransport() uses fetch unless the user needs an auth provider fetch lacks", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/plain`, config({ current: "ctx1" }));
    await Deno.writeTextFile(
      `${dir}/exec`,
      config({
        current: "ctx1",
        userBody: "    auth-provider:\n      name: gcp\n      config: {}",
      }),
    );
    await Deno.writeTextFile(
      `${dir}/plugin`,
      config({
        current: "ctx1",
        userBody: "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x",
      }),
    );
    const plain = await loadContext({ env: { KUBECONFIG: `${dir}/plain` } });
    const exec = await loadContext({ env: { KUBECONFIG: `${dir}/exec` } });
    const plugin = await loadContext({ env: { KUBECONFIG: `${dir}/plugin` } });
    assert.equal(fetchUnsupportedReason(plain), undefined);
    assert.equal(fetchUnsupportedReason(plugin), undefined);
    assert.match(fetchUnsupportedReason(exec) ?? "", /auth provider "gcp"/);
    assert.equal(chooseTransport(plain, "auto", {}), "fetch");
    assert.equal(chooseTransport(exec, "auto", {}), "client-node");
    assert.equal(
      chooseTransport(plain, undefined, { TOOLKIT_KUBE_CLIENT: "client-node" }),
      "client-node",
    );
    assert.throws(() => chooseTransport(exec, "fetch", {}), NoClusterContextError);
  });
});

Deno.test("loadContext() does not quote a token or key on a line with a YAML error", async () => {
  const secret = canary();
  const dir = await Deno.makeTempDir();
  try {
    for (
      const body of [
        `users:\n- name: u\n  user:\n    token: ${secret}: x\n`,
        `users:\n- name: u\n  user:\n    client-key-data: "${btoa(secret)}\n`,
        `users:\n- name: u\n  user:\n    password: [${secret}\n`,
      ]
    ) {
      await Deno.writeTextFile(`${dir}/bad`, body);
      const error = await rejection(loadContext({ env: { KUBECONFIG: `${dir}/bad` } }));
      assert.ok(error instanceof NoClusterContextError);
      assert.match(
        describeError(error),
        /cannot parse .*bad.*: invalid YAML at line \d+, column \d+/,
      );
      assertNoCanary(error, secret);
      assertNoCanary(error, btoa(secret));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
