/**
 * The admission webhook end to end: the real kube-apiserver calls `webhook/main.ts` (a real
 * process) through a MutatingWebhookConfiguration with a URL and caBundle; images are pushed and
 * signed with the real skopeo and gpg into the distribution registry; policies and key Secrets
 * are applied with kubectl.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import {
  CONTROLLER_NAMESPACE,
  createNamespaces,
  deploymentManifest,
  dryRunPod,
  eventually,
  keySecretManifest,
  kubectlOk,
  podManifest,
  WEBHOOK_NAME,
  webhookConfiguration,
} from "./_webhook.ts";

function clusterPolicy(repositories: unknown[]): string {
  return JSON.stringify({
    apiVersion: "toolkit.dev/v1",
    kind: "ClusterImagePolicy",
    metadata: { name: "default" },
    spec: { repositories },
  });
}

const signedBy = (keySecret: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  simple: { requirements: [{ type: "signedBy", keySecret }] },
});

Deno.test({
  name: "the webhook admits signed images, pins them and denies the rest through the API server",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    const auth = { username: "puller", password: "s3cret-pass" };
    await using world = await startWorld({ registries: { locked: { auth } } });
    const { cluster, registry, gpg } = world;
    const locked = world.registries.locked!;
    const signer = await world.signer();
    const stranger = await world.signer();

    const reg = registry.host;
    const app = `${reg}/e2e/app:1`;
    const appDigest = await gpg.pushImage(app, { signBy: signer.fingerprint });
    const unsigned = `${reg}/e2e/unsigned:1`;
    await gpg.pushImage(unsigned, { content: "unsigned" });
    const foreign = `${reg}/e2e/foreign:1`;
    await gpg.pushImage(foreign, { signBy: stranger.fingerprint, content: "foreign" });
    const noMutate = `${reg}/nomutate/app:1`;
    await gpg.pushImage(noMutate, { signBy: signer.fingerprint, content: "nomutate" });
    const secretImage = `${locked.host}/e2e/private:1`;
    const secretDigest = await gpg.pushImage(secretImage, {
      signBy: signer.fingerprint,
      creds: `${auth.username}:${auth.password}`,
      content: "private",
    });

    await world.namespaces("dev", "locked-down", "audit", "pulls");
    await world.keySecret("signer", signer.publicKeyArmored);
    await world.keySecret("stranger", stranger.publicKeyArmored);
    await world.keySecret("audit-signer", signer.publicKeyArmored, "audit");
    const defaultPolicy = clusterPolicy([
      { name: `${reg}/e2e/*`, policy: signedBy("signer") },
      { name: `${reg}/nomutate/*`, policy: signedBy("signer", { mutateImage: false }) },
      { name: `${locked.host}/*`, policy: signedBy("signer") },
    ]);
    await kubectlOk(cluster, ["apply", "-f", "-"], defaultPolicy);

    // The API server picks the configuration up asynchronously: the world waits until it calls
    // the webhook.
    const webhook = await world.startWebhook({ probe: { namespace: "dev", image: unsigned } });

    const create = (manifest: string) =>
      cluster.kubectl(["create", "-f", "-"], { stdin: manifest });
    const get = (args: string[]) => kubectlOk(cluster, ["get", ...args]);

    await t.step("a signed image is admitted as a Pod and pinned to its digest", async () => {
      const r = await create(podManifest("signed", "dev", { containers: [app] }));
      assert.equal(r.code, 0, r.stderr);
      const image = await get([
        "pod",
        "signed",
        "-n",
        "dev",
        "-o",
        "jsonpath={.spec.containers[0].image}",
      ]);
      assert.equal(image, `${reg}/e2e/app@${appDigest}`);
    });

    await t.step("a signed image is admitted as a Deployment and its template pinned", async () => {
      const r = await create(deploymentManifest("web", "dev", app));
      assert.equal(r.code, 0, r.stderr);
      const image = await get([
        "deployment",
        "web",
        "-n",
        "dev",
        "-o",
        "jsonpath={.spec.template.spec.containers[0].image}",
      ]);
      assert.equal(image, `${reg}/e2e/app@${appDigest}`);
    });

    await t.step("an unsigned image is denied with the exact message", async () => {
      const r = await create(podManifest("unsigned", "dev", { containers: [unsigned] }));
      assert.notEqual(r.code, 0);
      assert.equal(
        r.stderr.trim(),
        `Error from server (Forbidden): error when creating "STDIN": admission webhook "${WEBHOOK_NAME}" denied the request: ` +
          `policy denied the request: A signature was required, but no signature exists (container "app" at spec.containers[0], image "${unsigned}")`,
      );
    });

    await t.step("an image signed by a key the policy does not trust is denied", async () => {
      const r = await create(podManifest("foreign", "dev", { containers: [foreign] }));
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /policy denied the request: None of the signatures were accepted, reasons: signature made by an unknown key [0-9A-F]+ \(container "app" at spec\.containers\[0\]/,
      );
    });

    await t.step("an ImagePolicy in a namespace replaces the cluster policies", async () => {
      await kubectlOk(
        cluster,
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "toolkit.dev/v1",
          kind: "ImagePolicy",
          metadata: { name: "legacy", namespace: "locked-down" },
          spec: { repositories: [{ name: `${reg}/e2e/unsigned`, policy: {} }] },
        }),
      );
      await eventually(
        "the ImagePolicy to apply",
        async () => (await dryRunPod(cluster, "legacy", "locked-down", unsigned)).code === 0,
      );
      const signedThere = await create(podManifest("signed", "locked-down", { containers: [app] }));
      assert.notEqual(signedThere.code, 0, "the cluster policy does not apply in locked-down");
      assert.match(signedThere.stderr, /no ImagePolicy in namespace "locked-down" matches/);
    });

    await t.step("mutateImage: false leaves the image as it was", async () => {
      const r = await create(podManifest("as-is", "dev", { containers: [noMutate] }));
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        await get(["pod", "as-is", "-n", "dev", "-o", "jsonpath={.spec.containers[0].image}"]),
        noMutate,
      );
    });

    await t.step("a registry behind htpasswd works only with an imagePullSecret", async () => {
      const without = await create(podManifest("private", "pulls", { containers: [secretImage] }));
      assert.notEqual(without.code, 0);
      assert.match(
        without.stderr,
        /policy denied the request: Cannot read manifest of .*(401|UNAUTHORIZED)/,
      );
      await kubectlOk(cluster, [
        "create",
        "secret",
        "docker-registry",
        "regcred",
        "-n",
        "pulls",
        `--docker-server=${locked.host}`,
        `--docker-username=${auth.username}`,
        `--docker-password=${auth.password}`,
      ]);
      const withSecret = await create(
        podManifest("private", "pulls", { containers: [secretImage] }, {
          pullSecrets: ["regcred"],
        }),
      );
      assert.equal(withSecret.code, 0, withSecret.stderr);
      assert.equal(
        await get(["pod", "private", "-n", "pulls", "-o", "jsonpath={.spec.containers[0].image}"]),
        `${locked.host}/e2e/private@${secretDigest}`,
      );
      // A Deployment's template has no pull secrets: those of its ServiceAccount are used
      // (ServiceAccounts are read on demand and kept for a few seconds).
      await kubectlOk(cluster, [
        "patch",
        "serviceaccount",
        "default",
        "-n",
        "pulls",
        "-p",
        '{"imagePullSecrets":[{"name":"regcred"}]}',
      ]);
      await eventually(
        "the ServiceAccount's pull secret to be used",
        async () =>
          (await cluster.kubectl(["create", "--dry-run=server", "-f", "-"], {
            stdin: deploymentManifest("private", "pulls", secretImage),
          })).code === 0,
      );
      const deployment = await create(deploymentManifest("private", "pulls", secretImage));
      assert.equal(deployment.code, 0, deployment.stderr);
    });

    await t.step("a policy change takes effect within seconds", async () => {
      await kubectlOk(
        cluster,
        ["apply", "-f", "-"],
        clusterPolicy([
          { name: `${reg}/e2e/*`, policy: signedBy("stranger") },
          { name: `${reg}/nomutate/*`, policy: signedBy("signer", { mutateImage: false }) },
          { name: `${locked.host}/*`, policy: signedBy("signer") },
        ]),
      );
      await eventually("the changed policy to deny the signer's image", async () => {
        const r = await dryRunPod(cluster, "after-change", "dev", app);
        return r.code !== 0 && r.stderr.includes("unknown key");
      });
      assert.equal(
        (await create(podManifest("foreign", "dev", { containers: [foreign] }))).code,
        0,
      );
      // A changed key Secret takes effect as well: give "stranger" the signer's key.
      await kubectlOk(
        cluster,
        ["apply", "-f", "-"],
        keySecretManifest("stranger", CONTROLLER_NAMESPACE, signer.publicKeyArmored),
      );
      await eventually(
        "the changed key Secret to admit the signer's image",
        async () => (await dryRunPod(cluster, "after-key-change", "dev", app)).code === 0,
      );
      await kubectlOk(cluster, ["apply", "-f", "-"], defaultPolicy);
    });

    await t.step("warn mode admits with a warning", async () => {
      await kubectlOk(
        cluster,
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "toolkit.dev/v1",
          kind: "ImagePolicy",
          metadata: { name: "audit", namespace: "audit" },
          spec: {
            repositories: [{
              name: `${reg}/*`,
              policy: signedBy("audit-signer", { mode: "warn" }),
            }],
          },
        }),
      );
      await eventually(
        "the warn-mode ImagePolicy to apply",
        async () => (await dryRunPod(cluster, "audited", "audit", unsigned)).code === 0,
      );
      const r = await create(podManifest("audited", "audit", { containers: [unsigned] }));
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        /Warning: warn mode, admitted anyway: policy denied the request: A signature was required, but no signature exists/,
      );
    });

    await t.step("a denial is recorded as an Event and in the log", async () => {
      await eventually("the denial Event", async () => {
        const events = await get(["events.events.k8s.io", "-n", "dev", "-o", "json"]);
        return JSON.parse(events).items.some((
          e: { reason?: string; regarding?: { name?: string } },
        ) => e.reason === "ImagePolicyDenied" && e.regarding?.name === "unsigned");
      });
      const lines = await webhook.logLines();
      const denial = lines.find((l) =>
        l.msg === "review" && l.name === "unsigned" && l.decision === "deny"
      );
      assert.ok(denial, "a review line for the denial");
      assert.equal(typeof denial.uid, "string");
      assert.equal(typeof denial.durationMs, "number");
      assert.doesNotMatch(JSON.stringify(lines), /PGP PUBLIC KEY|s3cret-pass|dockerconfigjson/);
    });

    await t.step("a new certificate is picked up without a restart", async () => {
      const next = await webhook.rotateCertificate();
      await eventually("the webhook to serve the new certificate", () => webhook.isReady(next));
      await kubectlOk(cluster, ["apply", "-f", "-"], webhookConfiguration(webhook.url, next));
      await eventually(
        "the API server to admit through the new certificate",
        async () => (await dryRunPod(cluster, "after-rotation", "dev", app)).code === 0,
      );
      const r = await create(podManifest("after-rotation", "dev", { containers: [app] }));
      assert.equal(r.code, 0, r.stderr);
      assert.ok((await webhook.logLines()).some((l) => l.msg === "certificate reloaded"));
    });

    await t.step(
      "a bad policy is refused at kubectl apply with the field that is wrong",
      async () => {
        const r = await cluster.kubectl(["apply", "-f", "-"], {
          stdin: clusterPolicy([{
            name: `${reg}/bad/*`,
            policy: { simple: { requirements: [{ type: "signedby", keySecret: "signer" }] } },
          }]),
        });
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /spec\.repositories\[0\]\.policy\.simple\.requirements\[0\]\.type/);
      },
    );

    await t.step("the controller's namespace and labelled namespaces are exempt", async () => {
      const own = await create(
        podManifest("repair", CONTROLLER_NAMESPACE, { containers: [unsigned] }),
      );
      assert.equal(own.code, 0, own.stderr);
      await createNamespaces(cluster, ["sandbox"]);
      await kubectlOk(cluster, [
        "label",
        "namespace",
        "sandbox",
        "toolkit.dev/image-security=exempt",
      ]);
      const sandbox = await create(podManifest("anything", "sandbox", { containers: [unsigned] }));
      assert.equal(sandbox.code, 0, sandbox.stderr);
    });
  },
});
