import assert from "node:assert/strict";
import { connectKube, readJson } from "./kube_connection.ts";
import { PolicySourceError } from "./errors.ts";
import { Reflector } from "./kube_reflector.ts";
import { assertNoCanary, canary, rejection } from "../_canary_testing.ts";

function secretList(secret: string): string {
  return JSON.stringify({
    kind: "SecretList",
    metadata: { resourceVersion: "7" },
    items: [{ metadata: { name: "store", namespace: "team" }, data: { password: secret } }],
  });
}

Deno.test("readJson() does not quote a Secret list that is cut short", async () => {
  const secret = canary();
  const text = secretList(secret);
  for (const cut of [text.indexOf(secret) + 5, text.length - 2]) {
    const error = await rejection(readJson(new Response(text.slice(0, cut)), "list Secrets"));
    assert.ok(error instanceof PolicySourceError);
    assert.match(error.message, /^Cannot list Secrets: invalid JSON/);
    assertNoCanary(error, secret);
  }
  assert.deepEqual(await readJson(new Response('{"a":1}'), "x"), { a: 1 });
});

Deno.test("readJson() quotes an error Status scrubbed of secrets", async () => {
  const secret = canary();
  const status = { kind: "Status", message: `denied: {"token": "${secret}"}`, code: 403 };
  const error = await rejection(
    readJson(new Response(JSON.stringify(status), { status: 403 }), "list Secrets"),
  );
  assert.match((error as Error).message, /^Cannot list Secrets: HTTP 403: denied/);
  assertNoCanary(error, secret);
});

Deno.test("a Reflector reports a broken watch line of Secrets without quoting it", async () => {
  const secret = canary();
  const errors: string[] = [];
  let reported!: () => void;
  const done = new Promise<void>((resolve) => (reported = resolve));
  const event = JSON.stringify({
    type: "ADDED",
    object: { metadata: { name: "s", namespace: "n", resourceVersion: "8" }, data: { p: secret } },
  });
  const connection = {
    server: "https://api.test",
    fetch: (path: string) =>
      Promise.resolve(
        new Response(
          path.includes("watch=")
            ? `${event.replace(`"${secret}"`, secret)}\n`
            : secretList(secret),
        ),
      ),
    close() {},
    [Symbol.dispose]() {},
  };
  const reflector = new Reflector(connection, {
    name: "Secrets",
    path: "/api/v1/secrets",
    apiVersion: "v1",
    kind: "Secret",
    onError: (message) => {
      errors.push(message);
      reported();
    },
  });
  reflector.start();
  await done;
  await reflector.stop();
  assert.match(errors[0]!, /^invalid JSON: unexpected character/);
  for (const message of errors) assertNoCanary(message, secret);
});

async function kubeconfigWith(cluster: string[]): Promise<string> {
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
      "    token: not-a-real-token",
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
