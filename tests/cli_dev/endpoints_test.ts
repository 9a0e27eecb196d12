/**
 * `toolkit endpoints` and `toolkit console` end to end: Kubernetes first, then the same
 * cluster with the OpenShift CRDs.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import { apply, copyKubeconfig, kubectl, recordingBrowser, tempDir, toolkit } from "./helpers.ts";
import { parse, stringify } from "yaml";

function ingress(name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name, namespace: "apps", labels },
    spec,
  };
}

function rule(host: string, path = "/") {
  return {
    host,
    http: {
      paths: [{
        path,
        pathType: "Prefix",
        backend: { service: { name: "svc", port: { number: 80 } } },
      }],
    },
  };
}

Deno.test({
  name: "endpoints and console end to end",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    await using dir = await tempDir();
    const kubeconfig = await copyKubeconfig(cluster, dir.path);
    const env = { KUBECONFIG: kubeconfig, HOME: dir.path };
    await kubectl(cluster, ["create", "namespace", "apps"]);
    await kubectl(cluster, ["create", "namespace", "empty"]);
    await apply(
      cluster,
      ingress("web", { tls: [{ hosts: ["web.example.com"] }], rules: [rule("web.example.com")] }, {
        "app.kubernetes.io/name": "web-app",
      }),
      ingress("api", {
        tls: [{ hosts: ["api.example.com"] }],
        rules: [rule("api.example.com", "/v1"), rule("api-internal.example.com")],
      }, { app: "api" }),
      ingress("lb", {
        defaultBackend: { service: { name: "svc", port: { number: 80 } } },
      }),
    );
    await kubectl(cluster, [
      "patch",
      "ingress",
      "lb",
      "-n",
      "apps",
      "--subresource=status",
      "--type=merge",
      "-p",
      '{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.7"}]}}}',
    ]);
    const expectedText = [
      "  api - http://api-internal.example.com",
      "  api - https://api.example.com/v1",
      "  lb - http://203.0.113.7",
      "  web-app - https://web.example.com",
      "",
    ].join("\n");

    await t.step("endpoints lists the Ingress URLs of a namespace", async () => {
      const r = await toolkit(["endpoints", "-n", "apps"], env);
      assert.equal(r.status, 0, r.err);
      assert.equal(r.out, expectedText);
      assert.equal(r.err, "Endpoints in namespace 'apps':\n");
      for (const alias of ["ingress", "endpoint", "ingresses"]) {
        assert.equal((await toolkit([alias, "-n", "apps", "--print"], env)).out, expectedText);
      }
    });

    await t.step("endpoints -o json and -o yaml print the list as data", async () => {
      const r = await toolkit(["endpoints", "-n", "apps", "-o", "json"], env);
      assert.equal(r.status, 0, r.err);
      const list = JSON.parse(r.out);
      assert.deepEqual(list[3], {
        name: "web-app",
        kind: "Ingress",
        url: "https://web.example.com",
      });
      assert.equal(list.length, 4);
      assert.deepEqual(
        parse((await toolkit(["endpoints", "-n", "apps", "-o", "yaml"], env)).out),
        list,
      );
    });

    await t.step("endpoints uses the context's namespace without -n", async () => {
      const config = parse(await Deno.readTextFile(kubeconfig));
      config.contexts[0].context.namespace = "apps";
      const path = `${dir.path}/apps-kubeconfig`;
      await Deno.writeTextFile(path, stringify(config));
      const r = await toolkit(["endpoints"], { KUBECONFIG: path });
      assert.equal(r.out, expectedText);
    });

    await t.step("endpoints says when there is nothing, and fails on bad input", async () => {
      let r = await toolkit(["endpoints", "-n", "empty"], env);
      assert.equal(r.status, 0);
      assert.equal(r.out, "");
      assert.match(r.err, /No endpoints found in namespace 'empty'/);
      assert.deepEqual(
        JSON.parse((await toolkit(["endpoints", "-n", "empty", "-o", "json"], env)).out),
        [],
      );
      r = await toolkit(["endpoints", "-n", "nope"], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot find namespace "nope"/);
      r = await toolkit(["endpoints"], { HOME: dir.path });
      assert.equal(r.status, 1);
      assert.match(r.err, /No usable kubeconfig context/);
      r = await toolkit(["endpoints", "-o", "xml"], env);
      assert.equal(r.status, 2);
    });

    await t.step(
      "console on Kubernetes: the Kubernetes Dashboard, IKS, or a clear error",
      async () => {
        let r = await toolkit(["console", "--print"], env);
        assert.equal(r.status, 1);
        assert.match(r.err, /Cannot find the console of this cluster: it is not OpenShift/);
        await kubectl(cluster, ["create", "namespace", "kubernetes-dashboard"]);
        await apply(cluster, {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "kubernetes-dashboard", namespace: "kubernetes-dashboard" },
          spec: {
            ports: [{ port: 443, targetPort: 8443 }],
            selector: { app: "kubernetes-dashboard" },
          },
        });
        r = await toolkit(["console", "--print"], env);
        assert.equal(r.status, 0, r.err);
        assert.equal(
          r.out,
          `${cluster.server}/api/v1/namespaces/kubernetes-dashboard/services/https:kubernetes-dashboard:/proxy/\n`,
        );
        await kubectl(cluster, ["create", "namespace", "tools"]);
        await apply(cluster, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "ibmcloud-config", namespace: "tools" },
          data: { CLUSTER_NAME: "dev-cluster", REGION: "us-south", CLUSTER_ID: "c0ffee" },
        });
        r = await toolkit(["console", "--print"], env);
        assert.equal(
          r.out,
          "https://us-south.containers.cloud.ibm.com/kubeproxy/clusters/c0ffee/service/#/overview?namespace=default\n",
        );
      },
    );

    await t.step(
      "on OpenShift, endpoints adds Routes and console opens the web console",
      async () => {
        await cluster.installCrds("openshift");
        const route = (name: string, host: string, tls: boolean) => ({
          apiVersion: "route.openshift.io/v1",
          kind: "Route",
          metadata: { name, namespace: "apps" },
          spec: {
            host,
            to: { kind: "Service", name: "svc" },
            ...(tls ? { tls: { termination: "edge" } } : {}),
          },
        });
        await apply(
          cluster,
          route("shop", "shop.apps.example.com", true),
          route("plain", "plain.apps.example.com", false),
        );
        const r = await toolkit(["endpoints", "-n", "apps", "-o", "json"], env);
        assert.equal(r.status, 0, r.err);
        const urls = JSON.parse(r.out).filter((e: { kind: string }) => e.kind === "Route");
        assert.deepEqual(urls, [
          { name: "plain", kind: "Route", url: "http://plain.apps.example.com" },
          { name: "shop", kind: "Route", url: "https://shop.apps.example.com" },
        ]);

        let c = await toolkit(["console", "--print"], env);
        assert.equal(c.status, 1);
        assert.match(c.err, /no consoleURL in ConfigMap openshift-config-managed\/console-public/);
        await kubectl(cluster, ["create", "namespace", "openshift-config-managed"]);
        await apply(cluster, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "console-public", namespace: "openshift-config-managed" },
          data: { consoleURL: "https://console-openshift-console.apps.example.com" },
        });
        const browser = await recordingBrowser(dir.path);
        c = await toolkit(["console"], {
          ...env,
          BROWSER: `no-such-browser:${browser.path} --new-tab %s`,
        });
        assert.equal(c.status, 0, c.err);
        assert.match(
          c.err,
          /Opening console: https:\/\/console-openshift-console.apps.example.com/,
        );
        assert.deepEqual(await browser.calls(), [
          "--new-tab",
          "https://console-openshift-console.apps.example.com",
        ]);
      },
    );
  },
});
