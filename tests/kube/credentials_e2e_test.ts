/**
 * The credentials real kubeconfigs use, against a real kube-apiserver through the fetch
 * transport (`lib/kube/auth.ts`): exec plugins (a token, with expiry and a re-run after a 401;
 * a client certificate signed by the cluster's CA), the OIDC auth provider with a refresh
 * through a test issuer, token file rotation, client certificate files,
 * `insecure-skip-tls-verify`, `tls-server-name` and `proxy-url` through a CONNECT proxy.
 * Each request asks the server who it is (SelfSubjectReview), so the test sees which credential
 * was used.
 */
import assert from "node:assert/strict";
import { encodeBase64 } from "../../lib/base64.ts";
import {
  ExecPluginError,
  fetchTransport,
  KubeAuthenticationError,
  type KubeAuthOptions,
  KubeClient,
  loadContext,
  NoClusterContextError,
} from "../../lib/kube/mod.ts";
import { e2eSkipReason, issueCert, kubectlOk, startCluster, waitFor } from "../env/mod.ts";
import { startTestOidcIssuer } from "./_test_oidc_issuer.ts";
import { startTestConnectProxy } from "./_test_connect_proxy.ts";

const ignore = e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined;

async function connect(path: string, options: KubeAuthOptions = {}): Promise<KubeClient> {
  const context = await loadContext({ kubeconfig: path, env: {} });
  return new KubeClient(context, await fetchTransport(context, options));
}

async function whoAmI(client: KubeClient): Promise<string> {
  const review = await client.request<{ status?: { userInfo?: { username?: string } } }>(
    "POST",
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    { body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } },
  );
  return review.status?.userInfo?.username ?? "";
}

Deno.test({
  name: "credentials of real kubeconfigs against a real API server",
  ignore,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "toolkit-credentials-" });
    try {
      await using issuer = await startTestOidcIssuer(dir);
      await using cluster = await startCluster({
        apiServerFlags: [
          `--oidc-issuer-url=${issuer.url}`,
          `--oidc-client-id=${issuer.clientId}`,
          `--oidc-ca-file=${issuer.ca.certFile}`,
          "--oidc-username-claim=sub",
          "--oidc-username-prefix=oidc:",
        ],
      });
      const caData = encodeBase64(cluster.caCertPem);
      let n = 0;
      const kubeconfig = async (
        user: Record<string, unknown>,
        clusterFields: Record<string, unknown> = { "certificate-authority-data": caData },
      ) => {
        const path = `${dir}/kubeconfig-${++n}`;
        await Deno.writeTextFile(
          path,
          JSON.stringify({
            apiVersion: "v1",
            kind: "Config",
            clusters: [{ name: "c", cluster: { server: cluster.server, ...clusterFields } }],
            users: [{ name: "u", user }],
            contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
            "current-context": "ctx",
          }),
        );
        return path;
      };
      const serviceAccountToken = async (name: string) => {
        await kubectlOk(cluster, ["create", "serviceaccount", name, "-n", "default"]);
        return (await kubectlOk(cluster, ["create", "token", name, "-n", "default"])).trim();
      };
      const fileUser = await issueCert(dir, cluster.ca, {
        name: "file-user",
        cn: "file-user",
        client: true,
      });
      const certData = {
        "client-certificate-data": encodeBase64(fileUser.certPem),
        "client-key-data": encodeBase64(fileUser.keyPem),
      };

      await t.step(
        "an exec plugin's token is cached until its expiry, run again after it and after a 401",
        async () => {
          await Deno.writeTextFile(`${dir}/exec-token`, await serviceAccountToken("exec-sa"));
          await Deno.writeTextFile(
            `${dir}/token-plugin.sh`,
            [
              "#!/bin/sh",
              'n=$(cat "$PLUGIN_DIR/count" 2>/dev/null || echo 0); n=$((n + 1))',
              'echo "$n" > "$PLUGIN_DIR/count"',
              'printf "%s" "$KUBERNETES_EXEC_INFO" > "$PLUGIN_DIR/exec-info"',
              // The third run prints a token the server refuses: the client must run it again.
              'if [ "$n" = 3 ]; then token=refused; else token=$(cat "$PLUGIN_DIR/exec-token"); fi',
              `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",` +
              `"status":{"token":"%s","expirationTimestamp":"2030-01-01T00:00:00Z"}}' "$token"`,
              "",
            ].join("\n"),
          );
          await Deno.chmod(`${dir}/token-plugin.sh`, 0o755);
          const path = await kubeconfig({
            exec: {
              apiVersion: "client.authentication.k8s.io/v1",
              command: "./token-plugin.sh",
              env: [{ name: "PLUGIN_DIR", value: dir }],
              interactiveMode: "Never",
              provideClusterInfo: true,
            },
          });
          const runs = async () => Number((await Deno.readTextFile(`${dir}/count`)).trim());
          let now = Date.parse("2029-12-31T23:00:00Z");
          using client = await connect(path, { now: () => now });
          assert.equal(client.transport.kind, "fetch");
          assert.equal(await whoAmI(client), "system:serviceaccount:default:exec-sa");
          assert.equal(await whoAmI(client), "system:serviceaccount:default:exec-sa");
          assert.equal(await runs(), 1);
          const info = JSON.parse(await Deno.readTextFile(`${dir}/exec-info`));
          assert.equal(info.kind, "ExecCredential");
          assert.equal(info.spec.interactive, false);
          assert.equal(info.spec.cluster.server, cluster.server);
          assert.equal(info.spec.cluster["certificate-authority-data"], caData);
          now = Date.parse("2030-01-01T00:00:01Z");
          assert.equal(await whoAmI(client), "system:serviceaccount:default:exec-sa");
          assert.equal(await runs(), 2);
          now = Date.parse("2030-01-02T00:00:00Z");
          assert.equal(await whoAmI(client), "system:serviceaccount:default:exec-sa");
          assert.equal(await runs(), 4, "run 3's token was refused (401), so run 4 followed");
        },
      );

      await t.step("an exec plugin's client certificate signed by the cluster's CA", async () => {
        const execUser = await issueCert(dir, cluster.ca, {
          name: "exec-user",
          cn: "exec-user",
          client: true,
        });
        await Deno.writeTextFile(
          `${dir}/cert-credential.json`,
          JSON.stringify({
            apiVersion: "client.authentication.k8s.io/v1beta1",
            kind: "ExecCredential",
            status: { clientCertificateData: execUser.certPem, clientKeyData: execUser.keyPem },
          }),
        );
        using client = await connect(
          await kubeconfig({
            exec: {
              apiVersion: "client.authentication.k8s.io/v1beta1",
              command: "cat",
              args: [`${dir}/cert-credential.json`],
            },
          }),
        );
        assert.equal(await whoAmI(client), "exec-user");
      });

      await t.step("a missing exec plugin is named, with its installHint", async () => {
        using client = await connect(
          await kubeconfig({
            exec: {
              apiVersion: "client.authentication.k8s.io/v1",
              command: "toolkit-test-no-such-plugin",
              interactiveMode: "Never",
              installHint: "Install toolkit-test-no-such-plugin from the test",
            },
          }),
        );
        await assert.rejects(whoAmI(client), (e: unknown) =>
          e instanceof ExecPluginError &&
          /"toolkit-test-no-such-plugin" is not installed/.test(e.message) &&
          /Install toolkit-test-no-such-plugin from the test/.test(e.message));
      });

      await t.step("an expired OIDC id-token is refreshed through the issuer", async () => {
        // The API server fetches the issuer's keys in the background: wait until it accepts a
        // fresh token before the test that counts refreshes.
        const probe = await issuer.idToken("probe", Date.now() + 600_000);
        const http = Deno.createHttpClient({ caCerts: [cluster.caCertPem] });
        try {
          await waitFor("the API server's OIDC authenticator", async () => {
            const response = await fetch(
              `${cluster.server}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
              {
                method: "POST",
                headers: { Authorization: `Bearer ${probe}`, "Content-Type": "application/json" },
                body: JSON.stringify({
                  apiVersion: "authentication.k8s.io/v1",
                  kind: "SelfSubjectReview",
                }),
                client: http,
              },
            );
            await response.body?.cancel();
            return response.status === 201;
          }, { timeoutMs: 60_000 });
        } finally {
          http.close();
        }
        const path = await kubeconfig({
          "auth-provider": {
            name: "oidc",
            config: {
              "id-token": await issuer.idToken("alice", Date.now() - 60_000),
              "refresh-token": issuer.refreshToken,
              "idp-issuer-url": issuer.url,
              "client-id": issuer.clientId,
              "client-secret": "test-secret",
              "idp-certificate-authority": issuer.ca.certFile,
            },
          },
        });
        {
          using client = await connect(path);
          assert.equal(client.transport.kind, "fetch");
          assert.equal(await whoAmI(client), "oidc:alice");
          assert.equal(await whoAmI(client), "oidc:alice");
        }
        assert.equal(issuer.refreshes, 1);
        assert.equal(issuer.forms[0]?.client_id, issuer.clientId);
        // The issuer rotated the refresh token: the new tokens are in the kubeconfig, so the
        // next command uses the new id-token without a refresh.
        assert.ok((await Deno.readTextFile(path)).includes(issuer.refreshToken));
        using again = await connect(path);
        assert.equal(await whoAmI(again), "oidc:alice");
        assert.equal(issuer.refreshes, 1);
      });

      await t.step("a token file is read again when it rotates", async () => {
        await Deno.writeTextFile(`${dir}/token`, `${await serviceAccountToken("rotate-a")}\n`);
        const tokenB = await serviceAccountToken("rotate-b");
        using client = await connect(await kubeconfig({ tokenFile: "token" }));
        assert.equal(await whoAmI(client), "system:serviceaccount:default:rotate-a");
        await Deno.writeTextFile(`${dir}/token.next`, `${tokenB}\n`);
        await Deno.rename(`${dir}/token.next`, `${dir}/token`);
        assert.equal(await whoAmI(client), "system:serviceaccount:default:rotate-b");
      });

      await t.step("a refused token is an authentication failure", async () => {
        using client = await connect(await kubeconfig({ token: "not-a-token" }));
        await assert.rejects(whoAmI(client), (e: unknown) =>
          e instanceof KubeAuthenticationError &&
          /^Cannot authenticate to the API server .*401 Unauthorized/.test(e.message) &&
          !e.message.includes("not-a-token"));
      });

      await t.step("client certificate files, relative to the kubeconfig", async () => {
        await Deno.mkdir(`${dir}/certs`);
        await Deno.copyFile(fileUser.certFile, `${dir}/certs/user.crt`);
        await Deno.copyFile(fileUser.keyFile, `${dir}/certs/user.key`);
        using client = await connect(
          await kubeconfig({
            "client-certificate": "certs/user.crt",
            "client-key": "certs/user.key",
          }),
        );
        assert.equal(await whoAmI(client), "file-user");
      });

      await t.step("insecure-skip-tls-verify and tls-server-name", async () => {
        using insecure = await connect(
          await kubeconfig(certData, { "insecure-skip-tls-verify": true }),
        );
        assert.equal(insecure.transport.kind, "fetch");
        assert.equal(await whoAmI(insecure), "file-user");
        using unverified = await connect(await kubeconfig(certData, {}));
        await assert.rejects(whoAmI(unverified), NoClusterContextError);
        using named = await connect(
          await kubeconfig(certData, {
            "certificate-authority-data": caData,
            "tls-server-name": "kubernetes",
          }),
        );
        assert.equal(await whoAmI(named), "file-user");
        using misnamed = await connect(
          await kubeconfig(certData, {
            "certificate-authority-data": caData,
            "tls-server-name": "not-the-api-server.example",
          }),
        );
        await assert.rejects(whoAmI(misnamed), NoClusterContextError);
      });

      await t.step("proxy-url: requests go through the CONNECT proxy", async () => {
        await using proxy = startTestConnectProxy();
        {
          using client = await connect(
            await kubeconfig(certData, {
              "certificate-authority-data": caData,
              "proxy-url": proxy.url,
            }),
          );
          assert.equal(await whoAmI(client), "file-user");
          assert.equal(await whoAmI(client), "file-user");
        }
        assert.ok(proxy.tunnels.length >= 1);
        assert.deepEqual(new Set(proxy.tunnels), new Set([new URL(cluster.server).host]));
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
