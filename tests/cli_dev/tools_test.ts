/** `toolkit tool-config`, `credentials` and `dashboard` end to end against a real kube-apiserver. */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import {
  apply,
  copyKubeconfig,
  decodeData,
  getJson,
  kubectl,
  recordingBrowser,
  tempDir,
  toolkit,
} from "./helpers.ts";
import { parse } from "yaml";

const grouping = { grouping: "garage-cloud-native-toolkit" };

function fixtures(ns: string) {
  const cm = (name: string, labels: Record<string, string>, data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: ns, labels },
    data,
  });
  const secret = (name: string, labels: Record<string, string>, data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: ns, labels },
    type: "Opaque",
    stringData: data,
  });
  return [
    cm("sonarqube-config", grouping, { SONARQUBE_URL: "https://sonarqube.example.com" }),
    secret("sonarqube-access", grouping, { SONARQUBE_USER: "admin", SONARQUBE_PASSWORD: "s3cret" }),
    cm("pactbroker-config", grouping, { PACT_BROKER_URL: "https://pact.example.com", url: "x" }),
    cm("dashboard-config", grouping, { DASHBOARD_URL: "https://dashboard.example.com" }),
    secret("dashboard-access", grouping, { DASHBOARD_USER: "u", DASHBOARD_PASSWORD: "p" }),
    cm("ibmcloud-config", grouping, { CLUSTER_NAME: "c1", REGION: "us-south", SERVER_URL: "x" }),
    secret("ibmcloud-apikey", grouping, { APIKEY: "k", IBMCLOUD_API_KEY: "k" }),
    secret("jenkins-access", grouping, { JENKINS_USER: "j", JENKINS_PASSWORD: "t" }),
    cm("oldtool-config", { group: "catalyst-tools" }, { OLDTOOL_URL: "https://old.example.com" }),
    cm("unlabelled", {}, { HIDDEN_URL: "https://hidden.example.com" }),
  ];
}

Deno.test({
  name: "tool-config, credentials and dashboard end to end",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    await using dir = await tempDir();
    const kubeconfig = await copyKubeconfig(cluster, dir.path);
    const env = { KUBECONFIG: kubeconfig, HOME: dir.path };
    await kubectl(cluster, ["create", "namespace", "tools"]);

    await t.step(
      "tool-config makes the ConfigMap and Secret the tool-config chart makes",
      async () => {
        const r = await toolkit(
          [
            "tool-config",
            "my-tool",
            "--url",
            "https://mt.example.com",
            "--username",
            "admin",
            "--password",
            "pw",
          ],
          env,
        );
        assert.equal(r.status, 0, r.err);
        assert.match(r.err, /ConfigMap "tools\/my-tool-config" created/);
        assert.match(r.err, /Secret "tools\/my-tool-access" created/);
        const cm = await getJson(cluster, ["configmap", "my-tool-config", "-n", "tools"]);
        assert.deepEqual(cm?.data, {
          url: "https://mt.example.com",
          MY_TOOL_URL: "https://mt.example.com",
        });
        assert.deepEqual(cm?.metadata.labels, {
          "app.kubernetes.io/name": "my-tool-config",
          "app.kubernetes.io/part-of": "catalyst",
          "app.kubernetes.io/component": "tools",
          group: "catalyst-tools",
          grouping: "garage-cloud-native-toolkit",
        });
        const secret = await getJson(cluster, ["secret", "my-tool-access", "-n", "tools"]);
        assert.equal(secret?.type, "Opaque");
        assert.deepEqual(decodeData(secret?.data), {
          MY_TOOL_USER: "admin",
          MY_TOOL_PASSWORD: "pw",
        });
      },
    );

    await t.step(
      "tool-config a second time changes nothing; a new URL updates the ConfigMap",
      async () => {
        const args = [
          "tool-config",
          "my-tool",
          "--url",
          "https://mt.example.com",
          "--username",
          "admin",
          "--password",
          "pw",
        ];
        let r = await toolkit(args, env);
        assert.equal(r.status, 0, r.err);
        assert.match(r.err, /Tool my-tool in tools: nothing changed \(2 unchanged\)/);
        r = await toolkit([
          "tool-config",
          "my-tool",
          "--url",
          "https://new.example.com",
          "-n",
          "tools",
        ], env);
        assert.match(r.err, /ConfigMap "tools\/my-tool-config" updated/);
      },
    );

    await t.step("tool-config rejects incomplete input", async () => {
      for (
        const [args, message] of [
          [["tool-config", "--url", "https://x"], /Give the name of the tool/],
          [["tool-config", "x", "--username", "u"], /--username and --password go together/],
          [["tool-config", "x"], /Nothing to register/],
          [["tool-config", "x", "--url", "not a url"], /Invalid --url "not a url"/],
          [["tool-config", "bad name!", "--url", "https://x"], /Invalid tool name "bad name!"/],
        ] as const
      ) {
        const r = await toolkit([...args], env);
        assert.equal(r.status, 2, `${args.join(" ")}: ${r.err}`);
        assert.match(r.err, message);
      }
      const r = await toolkit(["tool-config", "x", "--url", "https://x", "-n", "nope"], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot find namespace "nope"/);
    });

    await t.step(
      "credentials prints valid JSON keyed by tool, without cloud config or API keys",
      async () => {
        await apply(cluster, ...fixtures("tools"));
        const r = await toolkit(["credentials"], env);
        assert.equal(r.status, 0, r.err);
        assert.deepEqual(JSON.parse(r.out), {
          dashboard: { url: "https://dashboard.example.com" },
          my_tool: { url: "https://new.example.com", user: "admin", password: "pw" },
          oldtool: { url: "https://old.example.com" },
          pact_broker: { url: "https://pact.example.com" },
          sonarqube: { url: "https://sonarqube.example.com", user: "admin", password: "s3cret" },
        });
        assert.equal(r.err, "");
      },
    );

    await t.step("credentials -o yaml, --yaml, -n and $CLUSTER_NAMESPACE", async () => {
      const json = JSON.parse((await toolkit(["credentials"], env)).out);
      for (const args of [["credentials", "-o", "yaml"], ["credentials", "--yaml"]]) {
        const r = await toolkit(args, env);
        assert.equal(r.status, 0, r.err);
        assert.deepEqual(parse(r.out), json);
      }
      await kubectl(cluster, ["create", "namespace", "other-tools"]);
      await apply(cluster, ...fixtures("other-tools").slice(0, 2));
      const sonar = { sonarqube: json.sonarqube };
      assert.deepEqual(
        JSON.parse((await toolkit(["credentials", "-n", "other-tools"], env)).out),
        sonar,
      );
      const r = await toolkit(["credentials"], { ...env, CLUSTER_NAMESPACE: "other-tools" });
      assert.deepEqual(JSON.parse(r.out), sonar);
    });

    await t.step(
      "credentials fails clearly on an unknown namespace or without a context",
      async () => {
        let r = await toolkit(["credentials", "-n", "nope"], env);
        assert.equal(r.status, 1);
        assert.match(r.err, /Cannot find namespace "nope"/);
        assert.equal(r.out, "");
        r = await toolkit(["credentials"], { HOME: dir.path });
        assert.equal(r.status, 1);
        assert.match(r.err, /No usable kubeconfig context/);
      },
    );

    await t.step("dashboard prints or opens the URL of dashboard-config", async () => {
      let r = await toolkit(["dashboard", "--print"], env);
      assert.equal(r.status, 0, r.err);
      assert.equal(r.out, "https://dashboard.example.com\n");
      const browser = await recordingBrowser(dir.path);
      r = await toolkit(["dashboard"], { ...env, BROWSER: browser.path });
      assert.equal(r.status, 0, r.err);
      assert.equal(r.out, "");
      assert.match(r.err, /Opening Developer Dashboard: https:\/\/dashboard.example.com/);
      assert.deepEqual(await browser.calls(), ["https://dashboard.example.com"]);
    });

    await t.step(
      "dashboard prefers the Ingress, uses xdg-open, and prints without a browser",
      async () => {
        await apply(cluster, {
          apiVersion: "networking.k8s.io/v1",
          kind: "Ingress",
          metadata: { name: "dashboard", namespace: "tools" },
          spec: {
            tls: [{ hosts: ["dashboard-tools.apps.example.com"] }],
            rules: [{
              host: "dashboard-tools.apps.example.com",
              http: {
                paths: [{
                  path: "/",
                  pathType: "Prefix",
                  backend: { service: { name: "dashboard", port: { number: 80 } } },
                }],
              },
            }],
          },
        });
        const bin = `${dir.path}/bin`;
        await Deno.mkdir(bin);
        const xdg = await recordingBrowser(bin, "xdg-open");
        let r = await toolkit(["dashboard"], { ...env, PATH: bin });
        assert.equal(r.status, 0, r.err);
        assert.deepEqual(await xdg.calls(), ["https://dashboard-tools.apps.example.com"]);
        r = await toolkit(["dashboard"], { ...env, PATH: `${dir.path}/empty` });
        assert.equal(r.status, 0, r.err);
        assert.equal(r.out, "https://dashboard-tools.apps.example.com\n");
        assert.match(r.err, /No browser to open/);
      },
    );

    await t.step("dashboard fails clearly where there is none", async () => {
      await kubectl(cluster, ["create", "namespace", "empty"]);
      const r = await toolkit(["dashboard", "-n", "empty"], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot find the Developer Dashboard in namespace "empty"/);
    });

    await t.step("on OpenShift the dashboard's Route comes first", async () => {
      await cluster.installCrds("openshift");
      await apply(cluster, {
        apiVersion: "route.openshift.io/v1",
        kind: "Route",
        metadata: { name: "dashboard", namespace: "tools" },
        spec: {
          host: "dashboard-tools.apps.ocp.example.com",
          to: { kind: "Service", name: "dashboard" },
        },
      });
      const r = await toolkit(["dashboard", "--print"], env);
      assert.equal(r.status, 0, r.err);
      assert.equal(r.out, "http://dashboard-tools.apps.ocp.example.com\n");
    });
  },
});
