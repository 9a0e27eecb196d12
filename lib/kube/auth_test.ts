import assert from "node:assert/strict";
import { decodeBase64Text, encodeBase64 } from "../base64.ts";
import { kubeAuth } from "./auth.ts";
import type { ResolvedContext, UserConfig } from "./kubeconfig.ts";
import { NoClusterContextError } from "./errors.ts";

function contextFor(user: Omit<UserConfig, "name">): ResolvedContext {
  return {
    name: "ctx",
    cluster: {
      name: "c",
      server: "https://127.0.0.1:6443",
      certificateAuthorityData: encodeBase64("CA"),
    },
    user: { name: "u", ...user },
    file: "/tmp/k",
    files: ["/tmp/k"],
    standalone: "{}",
  };
}

Deno.test("kubeAuth() reads a token file again when it changes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/token`;
    await Deno.writeTextFile(path, "first\n");
    const auth = kubeAuth(contextFor({ tokenFile: path, token: "static" }));
    assert.equal(await auth.authorization(), "Bearer first");
    await Deno.writeTextFile(`${path}.new`, "second-and-longer");
    await Deno.rename(`${path}.new`, path);
    assert.equal(await auth.authorization(), "Bearer second-and-longer");
    assert.equal(auth.invalidate(), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubeAuth() sends Basic auth with a non-Latin-1 password as UTF-8", async () => {
  const auth = kubeAuth(contextFor({ username: "ann", password: "密码-pässwörd" }));
  const value = await auth.authorization();
  assert.equal(decodeBase64Text(value!.slice("Basic ".length)), "ann:密码-pässwörd");
});

Deno.test("kubeAuth() keeps the same TLS identity object until it changes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/crt`, "CERT1");
    await Deno.writeTextFile(`${dir}/key`, "KEY1");
    const auth = kubeAuth(contextFor({ clientCertificate: `${dir}/crt`, clientKey: `${dir}/key` }));
    const first = await auth.tlsIdentity();
    assert.deepEqual(first, { ca: "CA", cert: "CERT1", key: "KEY1" });
    assert.equal(await auth.tlsIdentity(), first);
    await Deno.writeTextFile(`${dir}/crt`, "CERT2-renewed");
    const second = await auth.tlsIdentity();
    assert.notEqual(second, first);
    assert.equal(second.cert, "CERT2-renewed");
    assert.equal(await auth.authorization(), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubeAuth() takes the exec plugin's certificate as the TLS identity and re-runs it after a 401", async () => {
  let runs = 0;
  const auth = kubeAuth(
    contextFor({
      exec: {
        apiVersion: "client.authentication.k8s.io/v1",
        command: "p",
        interactiveMode: "Never",
      },
    }),
    {
      runner: () => {
        runs++;
        return Promise.resolve({
          code: 0,
          stdout: JSON.stringify({
            apiVersion: "client.authentication.k8s.io/v1",
            kind: "ExecCredential",
            status: { clientCertificateData: `CERT${runs}`, clientKeyData: "KEY" },
          }),
        });
      },
      isTerminal: () => false,
    },
  );
  assert.equal(await auth.authorization(), undefined);
  assert.equal((await auth.tlsIdentity()).cert, "CERT1");
  assert.equal(auth.invalidate(), true);
  assert.equal((await auth.tlsIdentity()).cert, "CERT2");
  assert.equal(runs, 2);
});

Deno.test("kubeAuth() refuses an auth provider other than oidc", () => {
  assert.throws(
    () => kubeAuth(contextFor({ authProvider: { name: "azure", config: {} } })),
    (e: unknown) => e instanceof NoClusterContextError && /auth provider "azure"/.test(e.message),
  );
});
