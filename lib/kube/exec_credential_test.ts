import assert from "node:assert/strict";
import { assertNoCanary, canary } from "../../tests/fakes/secret_canary.ts";
import { ExecPluginError } from "./auth_errors.ts";
import { type CommandRun, type CommandRunner, ExecCredentialPlugin } from "./exec_credential.ts";
import type { ResolvedContext } from "./kubeconfig.ts";

function contextWith(exec: Record<string, unknown>): ResolvedContext {
  return {
    name: "ctx",
    cluster: { name: "c", server: "https://127.0.0.1:6443", proxyUrl: "http://proxy:3128" },
    user: { name: "u", exec: { apiVersion: "client.authentication.k8s.io/v1", ...exec } },
    file: "/tmp/k",
    files: ["/tmp/k"],
    standalone: "{}",
  };
}

function credential(
  status: Record<string, unknown>,
  apiVersion = "client.authentication.k8s.io/v1",
) {
  return JSON.stringify({ apiVersion, kind: "ExecCredential", status });
}

function recorder(outputs: Array<string | Error>): { runner: CommandRunner; runs: CommandRun[] } {
  const runs: CommandRun[] = [];
  return {
    runs,
    runner: (run) => {
      runs.push(run);
      const next = outputs[Math.min(runs.length - 1, outputs.length - 1)]!;
      if (next instanceof Error) return Promise.reject(next);
      return Promise.resolve({ code: 0, stdout: next });
    },
  };
}

Deno.test("ExecCredentialPlugin caches the token until its expirationTimestamp", async () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const { runner, runs } = recorder([
    credential({ token: "one", expirationTimestamp: "2026-01-01T00:05:00Z" }),
    credential({ token: "two" }),
  ]);
  const plugin = new ExecCredentialPlugin(
    contextWith({
      command: "get-token",
      args: ["--x"],
      env: [{ name: "A", value: "b" }],
      interactiveMode: "Never",
    }),
    { runner, now: () => now, isTerminal: () => true },
  );
  assert.equal((await plugin.credential()).token, "one");
  assert.equal((await plugin.credential()).token, "one");
  assert.equal(runs.length, 1);
  now += 5 * 60_000;
  assert.equal((await plugin.credential()).token, "two");
  assert.equal(runs.length, 2);
  assert.equal((await plugin.credential()).token, "two");
  plugin.invalidate();
  await plugin.credential();
  assert.equal(runs.length, 3);
  assert.deepEqual(runs[0]!.args, ["--x"]);
  assert.equal(runs[0]!.env.A, "b");
  assert.equal(runs[0]!.stdin, "null");
  assert.deepEqual(JSON.parse(runs[0]!.env.KUBERNETES_EXEC_INFO!), {
    apiVersion: "client.authentication.k8s.io/v1",
    kind: "ExecCredential",
    spec: { interactive: false },
  });
});

Deno.test("ExecCredentialPlugin shares one run between concurrent requests", async () => {
  const { runner, runs } = recorder([credential({ token: "t" })]);
  const plugin = new ExecCredentialPlugin(contextWith({ command: "c", interactiveMode: "Never" }), {
    runner,
    now: Date.now,
    isTerminal: () => false,
  });
  await Promise.all([plugin.credential(), plugin.credential(), plugin.credential()]);
  assert.equal(runs.length, 1);
});

Deno.test("ExecCredentialPlugin describes the cluster and interactivity in KUBERNETES_EXEC_INFO", async () => {
  const { runner, runs } = recorder([
    credential(
      { clientCertificateData: "CERT", clientKeyData: "KEY" },
      "client.authentication.k8s.io/v1beta1",
    ),
  ]);
  const plugin = new ExecCredentialPlugin(
    {
      ...contextWith({ command: "c", provideClusterInfo: true }),
      user: {
        name: "u",
        exec: {
          apiVersion: "client.authentication.k8s.io/v1beta1",
          command: "c",
          provideClusterInfo: true,
        },
      },
    },
    { runner, now: Date.now, isTerminal: () => true, clusterCa: () => Promise.resolve("PEM") },
  );
  const got = await plugin.credential();
  assert.deepEqual(got, { clientCertificateData: "CERT", clientKeyData: "KEY" });
  assert.equal(runs[0]!.stdin, "inherit");
  assert.deepEqual(JSON.parse(runs[0]!.env.KUBERNETES_EXEC_INFO!).spec, {
    interactive: true,
    cluster: {
      server: "https://127.0.0.1:6443",
      "certificate-authority-data": btoa("PEM"),
      "proxy-url": "http://proxy:3128",
    },
  });
});

Deno.test("ExecCredentialPlugin needs a terminal for interactiveMode Always, and v1 needs the mode", async () => {
  const { runner } = recorder([credential({ token: "t" })]);
  const always = new ExecCredentialPlugin(
    contextWith({ command: "c", interactiveMode: "Always" }),
    {
      runner,
      now: Date.now,
      isTerminal: () => false,
    },
  );
  await assert.rejects(
    always.credential(),
    (e: unknown) => e instanceof ExecPluginError && /needs a terminal/.test(e.message),
  );
  assert.throws(
    () =>
      new ExecCredentialPlugin(contextWith({ command: "c" }), {
        runner,
        now: Date.now,
        isTerminal: () => false,
      }),
    (e: unknown) => e instanceof ExecPluginError && /interactiveMode must be set/.test(e.message),
  );
});

Deno.test("ExecCredentialPlugin names a missing command and shows its installHint", async () => {
  const { runner } = recorder([new Deno.errors.NotFound("No such file")]);
  const plugin = new ExecCredentialPlugin(
    contextWith({
      command: "kubelogin",
      interactiveMode: "Never",
      installHint: "Install kubelogin: brew install kubelogin",
    }),
    { runner, now: Date.now, isTerminal: () => false },
  );
  const error = await plugin.credential().catch((e) => e);
  assert.ok(error instanceof ExecPluginError);
  assert.equal(error.command, "kubelogin");
  assert.match(error.message, /"kubelogin" is not installed/);
  assert.match(error.message, /brew install kubelogin/);
  assert.match(
    error.message,
    /^Cannot authenticate to the API server https:\/\/127.0.0.1:6443 as user "u"/,
  );
});

Deno.test("ExecCredentialPlugin never quotes the output of a plugin that prints something wrong", async () => {
  const secret = canary();
  for (
    const output of [
      `{"kind":"ExecCredential","status":{"token":"${secret}"`,
      `token=${secret}`,
      credential({ token: secret }, "client.authentication.k8s.io/v1beta1"),
      credential({ clientCertificateData: secret }),
      JSON.stringify({ kind: "Other", status: { token: secret } }),
      credential({ token: secret, expirationTimestamp: `soon-${secret}` }),
    ]
  ) {
    const { runner } = recorder([output]);
    const plugin = new ExecCredentialPlugin(
      contextWith({ command: "c", interactiveMode: "Never" }),
      {
        runner,
        now: Date.now,
        isTerminal: () => false,
      },
    );
    const error = await plugin.credential().catch((e) => e);
    assert.ok(error instanceof ExecPluginError, String(error));
    assertNoCanary(error, secret);
  }
});

Deno.test("ExecCredentialPlugin reports a non-zero exit status", async () => {
  const plugin = new ExecCredentialPlugin(contextWith({ command: "c", interactiveMode: "Never" }), {
    runner: () => Promise.resolve({ code: 3, stdout: "" }),
    now: Date.now,
    isTerminal: () => false,
  });
  await assert.rejects(plugin.credential(), /"c" exited with status 3/);
});
