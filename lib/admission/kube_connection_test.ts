import assert from "node:assert/strict";
import { connectKube } from "./kube_connection.ts";
import { PolicySourceError } from "./errors.ts";

async function kubeconfigWith(
  cluster: string[],
  user = ["token: not-a-real-token"],
): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".kubeconfig" });
  await Deno.writeTextFile(
    file,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: prod",
      "  cluster:",
      "    server: https://127.0.0.1:6443",
      ...cluster.map((line) => `    ${line}`),
      "users:",
      "- name: admin",
      "  user:",
      ...user.map((line) => `    ${line}`),
      "contexts:",
      "- name: prod",
      "  context:",
      "    cluster: prod",
      "    user: admin",
      "current-context: prod",
      "",
    ].join("\n"),
  );
  return file;
}

Deno.test("a cluster with insecure-skip-tls-verify is refused with the field and the fix", async () => {
  const kubeconfig = await kubeconfigWith(["insecure-skip-tls-verify: true"]);
  try {
    await assert.rejects(
      () => connectKube({ kubeconfig, env: {} }),
      (error: unknown) => {
        assert.ok(error instanceof PolicySourceError);
        assert.equal(
          error.message,
          `Cannot use context "prod": its cluster "prod" sets insecure-skip-tls-verify, and the webhook always verifies the API server's certificate; remove insecure-skip-tls-verify and put the API server's CA in certificate-authority-data (or certificate-authority)`,
        );
        return true;
      },
    );
  } finally {
    await Deno.remove(kubeconfig);
  }
});

Deno.test("a cluster with insecure-skip-tls-verify: false connects (no request is sent yet)", async () => {
  const kubeconfig = await kubeconfigWith(["insecure-skip-tls-verify: false"]);
  try {
    using connection = await connectKube({ kubeconfig, env: {} });
    assert.equal(connection.server, "https://127.0.0.1:6443");
  } finally {
    await Deno.remove(kubeconfig);
  }
});

Deno.test("a user with an exec credential plugin connects: lib/kube runs the plugin per request", async () => {
  const kubeconfig = await kubeconfigWith([], [
    "exec:",
    "  apiVersion: client.authentication.k8s.io/v1",
    "  command: get-token",
    "  interactiveMode: Never",
  ]);
  try {
    using connection = await connectKube({ kubeconfig, env: {} });
    assert.equal(connection.server, "https://127.0.0.1:6443");
  } finally {
    await Deno.remove(kubeconfig);
  }
});
