/**
 * `toolkit sync` end to end against a real kube-apiserver: plain Kubernetes first, then the
 * same cluster with the OpenShift CRDs (Routes) and the Project/ProjectRequest stand-ins.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster, type TestCluster } from "../env/mod.ts";
import {
  apply,
  copyKubeconfig,
  decodeData,
  getJson,
  installCrds,
  kubectl,
  PRIVILEGED_SCC,
  PROJECT_STAND_IN_CRDS,
  projectRequestController,
  tempDir,
  toolkit,
} from "./helpers.ts";
import { parse } from "yaml";

const dockerConfig = btoa(
  JSON.stringify({ auths: { "us.icr.io": { auth: btoa("iamapikey:x") } } }),
);

/**
 * The template namespace's objects. The ConfigMap is owned by another (as a chart or operator
 * would make it), which must exist: the garbage collector deletes objects whose owner is gone.
 */
function templateObjects(ns: string, ownerUid: string) {
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "sonarqube-config",
        namespace: ns,
        labels: {
          group: "catalyst-tools",
          grouping: "garage-cloud-native-toolkit",
          "app.kubernetes.io/instance": "tools",
          "argocd.argoproj.io/instance": "tools",
        },
        annotations: { description: "the sonarqube url" },
        ownerReferences: [{
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "owner",
          uid: ownerUid,
        }],
      },
      data: { SONARQUBE_URL: "https://sonarqube.example.com" },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "sonarqube-access", namespace: ns, labels: { group: "catalyst-tools" } },
      type: "Opaque",
      stringData: { SONARQUBE_USER: "admin", SONARQUBE_PASSWORD: "s3cret" },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "unlabelled", namespace: ns },
      data: { a: "1" },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "all-icr-io", namespace: ns },
      type: "kubernetes.io/dockerconfigjson",
      data: { ".dockerconfigjson": dockerConfig },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "default-us-icr-io", namespace: ns },
      type: "kubernetes.io/dockerconfigjson",
      data: { ".dockerconfigjson": dockerConfig },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "plain-opaque", namespace: ns },
      type: "Opaque",
      stringData: { x: "y" },
    },
  ];
}

/** Creates the namespace and the owner ConfigMap, and returns the template objects. */
async function withOwner(cluster: TestCluster, ns: string) {
  await apply(
    cluster,
    { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner", namespace: ns } },
  );
  const owner = await getJson(cluster, ["configmap", "owner", "-n", ns]);
  return templateObjects(ns, String(owner?.metadata.uid));
}

const KUBECONFIG_COMMENT = "# my kubeconfig: keep this comment\n";

Deno.test({
  name: "sync end to end",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    await using dir = await tempDir();
    const kubeconfig = await copyKubeconfig(cluster, dir.path);
    await Deno.writeTextFile(kubeconfig, KUBECONFIG_COMMENT + await Deno.readTextFile(kubeconfig));
    const env = { KUBECONFIG: kubeconfig, HOME: dir.path };
    await apply(cluster, ...await withOwner(cluster, "tools"));

    await t.step(
      "sync creates the namespace and copies config, pull secrets and the context",
      async () => {
        const r = await toolkit(["sync", "dev"], env);
        assert.equal(r.status, 0, r.err);
        assert.equal(r.out, "");
        assert.match(r.err, /Setting up namespace dev/);
        assert.match(r.err, /Namespace "dev" created/);
        assert.match(r.err, /Setting current namespace to dev/);

        const cm = await getJson(cluster, ["configmap", "sonarqube-config", "-n", "dev"]);
        assert.deepEqual(cm?.data, { SONARQUBE_URL: "https://sonarqube.example.com" });
        assert.deepEqual(cm?.metadata.labels, {
          group: "catalyst-tools",
          grouping: "garage-cloud-native-toolkit",
        });
        assert.deepEqual(cm?.metadata.annotations, { description: "the sonarqube url" });
        assert.equal(cm?.metadata.ownerReferences, undefined);
        const secret = await getJson(cluster, ["secret", "sonarqube-access", "-n", "dev"]);
        assert.deepEqual(decodeData(secret?.data), {
          SONARQUBE_USER: "admin",
          SONARQUBE_PASSWORD: "s3cret",
        });
        assert.equal(await getJson(cluster, ["configmap", "unlabelled", "-n", "dev"]), undefined);
        assert.equal(await getJson(cluster, ["secret", "plain-opaque", "-n", "dev"]), undefined);

        const pull = await getJson(cluster, ["secret", "us-icr-io", "-n", "dev"]);
        assert.equal(pull?.type, "kubernetes.io/dockerconfigjson");
        assert.ok(await getJson(cluster, ["secret", "all-icr-io", "-n", "dev"]));
        assert.equal(
          await getJson(cluster, ["secret", "default-us-icr-io", "-n", "dev"]),
          undefined,
        );
        const sa = await getJson(cluster, ["serviceaccount", "default", "-n", "dev"]);
        const names = (sa?.imagePullSecrets as Array<{ name: string }>).map((s) => s.name);
        assert.deepEqual(names.filter((n) => n.includes("icr-io")).sort(), [
          "all-icr-io",
          "us-icr-io",
        ]);

        const text = await Deno.readTextFile(kubeconfig);
        assert.ok(text.startsWith(KUBECONFIG_COMMENT));
        assert.equal(parse(text).contexts[0].context.namespace, "dev");
      },
    );

    await t.step("a second sync changes nothing and says so", async () => {
      const before = await getJson(cluster, ["configmap", "sonarqube-config", "-n", "dev"]);
      const saBefore = await getJson(cluster, ["serviceaccount", "default", "-n", "dev"]);
      const r = await toolkit(["sync", "dev"], env);
      assert.equal(r.status, 0, r.err);
      assert.match(r.err, /Namespace dev: nothing changed/);
      assert.match(r.err, /The current namespace is already dev/);
      assert.doesNotMatch(r.err, / created| updated/);
      const after = await getJson(cluster, ["configmap", "sonarqube-config", "-n", "dev"]);
      assert.equal(after?.metadata.resourceVersion, before?.metadata.resourceVersion);
      const saAfter = await getJson(cluster, ["serviceaccount", "default", "-n", "dev"]);
      assert.deepEqual(saAfter?.imagePullSecrets, saBefore?.imagePullSecrets);
    });

    await t.step(
      "-o json prints each object's result on stdout, messages stay on stderr",
      async () => {
        const r = await toolkit(["sync", "dev", "-o", "json"], env);
        assert.equal(r.status, 0, r.err);
        const report = JSON.parse(r.out);
        assert.equal(report.namespace, "dev");
        assert.deepEqual(report.failures, []);
        assert.ok(report.results.length > 3);
        // Nothing changes: copies are unchanged, pull secrets that exist are skipped.
        for (const result of report.results) {
          assert.ok(["unchanged", "skipped"].includes(result.outcome), JSON.stringify(result));
        }
        assert.ok(
          report.results.some((x: Record<string, string>) =>
            x.kind === "ConfigMap" && x.namespace === "dev" && x.name === "sonarqube-config"
          ),
        );
        assert.match(r.err, /Namespace dev: nothing changed/);
      },
    );

    await t.step(
      "sync updates a copy whose template changed, and --verbose tells each step",
      async () => {
        await kubectl(cluster, [
          "patch",
          "configmap",
          "sonarqube-config",
          "-n",
          "tools",
          "--type=merge",
          "-p",
          '{"data":{"SONARQUBE_URL":"https://sq.example.com"}}',
        ]);
        const r = await toolkit(["sync", "dev", "--verbose"], env);
        assert.equal(r.status, 0, r.err);
        assert.match(r.err, /Checking for existing namespace: dev/);
        assert.match(r.err, /Copying 1 ConfigMap\(s\) and 1 Secret\(s\) from tools/);
        assert.match(r.err, /ConfigMap "dev\/sonarqube-config" updated/);
        assert.match(r.err, /Secret "dev\/sonarqube-access" unchanged/);
        assert.match(r.err, /Namespace dev: 1 updated/);
        const cm = await getJson(cluster, ["configmap", "sonarqube-config", "-n", "dev"]);
        assert.equal(cm?.data?.SONARQUBE_URL, "https://sq.example.com");
      },
    );

    await t.step("-t and -z choose the template namespace and the service account", async () => {
      await apply(cluster, ...await withOwner(cluster, "template-2"));
      const r = await toolkit(["project", "dev-2", "-t", "template-2", "-z", "builder"], env);
      assert.equal(r.status, 0, r.err);
      const sa = await getJson(cluster, ["serviceaccount", "builder", "-n", "dev-2"]);
      assert.deepEqual(
        (sa?.imagePullSecrets as Array<{ name: string }>).map((s) => s.name).sort(),
        ["all-icr-io", "us-icr-io"],
      );
      assert.ok(await getJson(cluster, ["configmap", "sonarqube-config", "-n", "dev-2"]));
      assert.equal(
        parse(await Deno.readTextFile(kubeconfig)).contexts[0].context.namespace,
        "dev-2",
      );
    });

    await t.step(
      "--argocd lets Argo CD manage the namespace; --tekton is skipped on Kubernetes",
      async () => {
        const r = await toolkit(["namespace", "dev", "--argocd", "-x", "gitops", "--tekton"], env);
        assert.equal(r.status, 0, r.err);
        assert.match(r.err, /--tekton: this cluster has no SecurityContextConstraints/);
        const rb = await getJson(cluster, ["rolebinding", "argocd-admin", "-n", "dev"]);
        assert.deepEqual(rb?.roleRef, {
          apiGroup: "rbac.authorization.k8s.io",
          kind: "ClusterRole",
          name: "admin",
        });
        assert.deepEqual(rb?.subjects, [{
          apiGroup: "rbac.authorization.k8s.io",
          kind: "Group",
          name: "system:serviceaccounts:gitops",
        }]);
        assert.equal(
          await getJson(cluster, ["rolebinding", "image-puller", "-n", "dev"]),
          undefined,
        );
        const again = await toolkit(["namespace", "dev", "--argocd", "-x", "gitops"], env);
        assert.match(again.err, /nothing changed/);
      },
    );

    await t.step("sync writes the KUBECONFIG file that holds the context", async () => {
      const first = `${dir.path}/first.yaml`;
      const firstText = "# only the current context\ncurrent-context: toolkit-test\n";
      await Deno.writeTextFile(first, firstText);
      const second = await copyKubeconfig(cluster, dir.path, "second.yaml");
      const r = await toolkit(["sync", "dev"], {
        KUBECONFIG: `${first}:${second}`,
        HOME: dir.path,
      });
      assert.equal(r.status, 0, r.err);
      assert.equal(await Deno.readTextFile(first), firstText);
      assert.equal(parse(await Deno.readTextFile(second)).contexts[0].context.namespace, "dev");
    });

    await t.step(
      "a kubeconfig that is a symbolic link (dotfiles) is written through; the link stays",
      async () => {
        await Deno.mkdir(`${dir.path}/dotfiles`);
        await copyKubeconfig(cluster, `${dir.path}/dotfiles`, "kubeconfig");
        await Deno.chmod(`${dir.path}/dotfiles/kubeconfig`, 0o600);
        await Deno.mkdir(`${dir.path}/.kube`);
        await Deno.symlink("../dotfiles/kubeconfig", `${dir.path}/.kube/config`);
        const r = await toolkit(["sync", "dev"], { HOME: dir.path });
        assert.equal(r.status, 0, r.err);
        assert.ok((await Deno.lstat(`${dir.path}/.kube/config`)).isSymlink, "the link stays");
        const real = parse(await Deno.readTextFile(`${dir.path}/dotfiles/kubeconfig`));
        assert.equal(real.contexts[0].context.namespace, "dev", "the real file has it");
        assert.equal((await Deno.stat(`${dir.path}/dotfiles/kubeconfig`)).mode! & 0o777, 0o600);
      },
    );

    await t.step("--kubeconfig, --context and --throttle", async () => {
      const other = await copyKubeconfig(cluster, dir.path, "other.yaml");
      const r = await toolkit(
        ["sync", "dev-4", "--kubeconfig", other, "--context", "toolkit-test", "--throttle"],
        { HOME: dir.path },
      );
      assert.equal(r.status, 0, r.err);
      assert.ok(await getJson(cluster, ["secret", "sonarqube-access", "-n", "dev-4"]));
      assert.equal(parse(await Deno.readTextFile(other)).contexts[0].context.namespace, "dev-4");
    });

    await t.step(
      "a copy the API server refuses does not stop the others: each is reported, exit 1",
      async () => {
        // An immutable ConfigMap of the same name with other data: its update is refused (422).
        await apply(cluster, { apiVersion: "v1", kind: "Namespace", metadata: { name: "dev-9" } }, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "sonarqube-config", namespace: "dev-9" },
          immutable: true,
          data: { SONARQUBE_URL: "https://other.example.com" },
        });
        const r = await toolkit(["sync", "dev-9", "-o", "yaml"], env);
        assert.equal(r.status, 1, r.err);
        const report = parse(r.out);
        assert.equal(report.failures.length, 1);
        assert.equal(report.failures[0].object, 'ConfigMap "dev-9/sonarqube-config"');
        assert.match(report.failures[0].error, /immutable/i);
        assert.ok(
          report.results.some((x: Record<string, string>) =>
            x.kind === "Secret" && x.outcome === "created"
          ),
        );
        assert.match(r.err, /ConfigMap "dev-9\/sonarqube-config" failed: .*immutable/i);
        assert.match(
          r.err,
          /1 object\(s\) could not be written \(\d+ written\): ConfigMap "dev-9\/sonarqube-config"/,
        );
        // The rest was done: the Secret copied, the pull secrets given to the service account.
        const secret = await getJson(cluster, ["secret", "sonarqube-access", "-n", "dev-9"]);
        assert.equal(decodeData(secret?.data).SONARQUBE_USER, "admin");
        const sa = await getJson(cluster, ["serviceaccount", "default", "-n", "dev-9"]);
        assert.ok(Array.isArray(sa?.imagePullSecrets) && sa.imagePullSecrets.length > 0);
      },
    );

    await t.step("bad input fails with a clear message", async () => {
      let r = await toolkit(["sync"], env);
      assert.equal(r.status, 2);
      assert.match(r.err, /Please give the namespace as the first argument/);
      r = await toolkit(["sync", "Bad_Name"], env);
      assert.equal(r.status, 2);
      assert.match(r.err, /Invalid namespace "Bad_Name"/);
      r = await toolkit(["sync", "dev-3", "-t", "no-such-template"], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot find template namespace "no-such-template"/);
      assert.equal(await getJson(cluster, ["namespace", "dev-3"]), undefined);
      r = await toolkit(["sync", "dev-3"], { KUBECONFIG: `${dir.path}/missing`, HOME: dir.path });
      assert.equal(r.status, 1);
      assert.match(
        r.err,
        /No usable kubeconfig context: .*log in to a cluster or pass --kubeconfig\/--context/,
      );
      r = await toolkit(["sync", "dev-3", "--context", "nope"], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /context "nope" is not in/);
    });

    await t.step("on OpenShift, sync requests a project and grants image-puller", async () => {
      await cluster.installCrds("openshift");
      await installCrds(cluster, ...PROJECT_STAND_IN_CRDS);
      await apply(cluster, PRIVILEGED_SCC);
      const stop = projectRequestController(cluster);
      try {
        const r = await toolkit(["sync", "proj", "--tekton"], env);
        assert.equal(r.status, 0, r.err);
        assert.match(r.err, /Setting up project proj/);
        assert.match(r.err, /Setting current project to proj/);
        assert.ok(await getJson(cluster, ["projectrequests.project.openshift.io", "proj"]));
        assert.ok(await getJson(cluster, ["configmap", "sonarqube-config", "-n", "proj"]));
        const rb = await getJson(cluster, ["rolebinding", "image-puller", "-n", "proj"]);
        assert.equal((rb?.roleRef as { name: string }).name, "system:image-puller");
        const scc = await getJson(cluster, ["securitycontextconstraints", "privileged"]);
        assert.deepEqual(scc?.users, ["system:admin", "system:serviceaccount:proj:pipeline"]);

        const again = await toolkit(["sync", "proj", "--tekton"], env);
        assert.equal(again.status, 0, again.err);
        assert.match(again.err, /Project proj: nothing changed/);
        const sccAfter = await getJson(cluster, ["securitycontextconstraints", "privileged"]);
        assert.deepEqual(sccAfter?.users, ["system:admin", "system:serviceaccount:proj:pipeline"]);
        const noPuller = await toolkit(["sync", "proj-2", "--no-puller"], env);
        assert.equal(noPuller.status, 0, noPuller.err);
        assert.equal(
          await getJson(cluster, ["rolebinding", "image-puller", "-n", "proj-2"]),
          undefined,
        );
      } finally {
        await stop();
      }
    });
  },
});
