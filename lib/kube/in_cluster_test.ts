import assert from "node:assert/strict";
import { inClusterContext, SERVICE_ACCOUNT_DIR } from "./in_cluster.ts";
import { kubeAuth } from "./auth.ts";

Deno.test("inClusterContext() is undefined outside a Pod", () => {
  assert.equal(inClusterContext({ env: {} }), undefined);
});

Deno.test("inClusterContext() uses the service host, port, CA and token of the mount", () => {
  const context = inClusterContext({
    env: { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "6443" },
  })!;
  assert.equal(context.cluster.server, "https://10.96.0.1:6443");
  assert.equal(context.cluster.certificateAuthority, `${SERVICE_ACCOUNT_DIR}/ca.crt`);
  assert.equal(context.user.tokenFile, `${SERVICE_ACCOUNT_DIR}/token`);
  const v6 = inClusterContext({
    env: { KUBERNETES_SERVICE_HOST: "fd00::1" },
    serviceAccountDir: "/sa",
  })!;
  assert.equal(v6.cluster.server, "https://[fd00::1]:443");
  assert.equal(v6.user.tokenFile, "/sa/token");
});

Deno.test("the credentials of the in-cluster context read a rotated token file again", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/token`, "first\n");
    await Deno.writeTextFile(`${dir}/ca.crt`, "CA PEM");
    const context = inClusterContext({
      env: { KUBERNETES_SERVICE_HOST: "127.0.0.1" },
      serviceAccountDir: dir,
    })!;
    const auth = kubeAuth(context);
    assert.equal((await auth.credentials()).authorization, "Bearer first");
    await Deno.writeTextFile(`${dir}/token`, "second, rotated\n");
    assert.equal((await auth.credentials()).authorization, "Bearer second, rotated");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
