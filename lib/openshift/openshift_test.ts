import assert from "node:assert/strict";
import { buildTriggerType, buildWebhookUrl, jenkinsBuildConfig } from "./build_config.ts";
import { processTemplate, TemplateError } from "./template.ts";

Deno.test("buildTriggerType() is the host's own type; Gitea and Gogs are Generic", () => {
  assert.deepEqual(
    (["github", "ghe", "gitlab", "bitbucket", "gitea", "gogs"] as const).map(buildTriggerType),
    ["GitHub", "GitHub", "GitLab", "Bitbucket", "Generic", "Generic"],
  );
  const bc = jenkinsBuildConfig({
    name: "app",
    namespace: "dev",
    gitUrl: "https://gitlab.com/g/app",
    branch: "main",
    flavour: "gitlab",
    webhookSecretName: "app-webhook",
  });
  assert.deepEqual((bc.spec as { triggers: unknown }).triggers, [
    { type: "GitLab", gitlab: { secretReference: { name: "app-webhook" } } },
  ]);
  assert.equal(
    buildWebhookUrl("https://api.c.example.com:6443/", "dev", "app", "s/x", "GitLab"),
    "https://api.c.example.com:6443/apis/build.openshift.io/v1/namespaces/dev/buildconfigs/app/webhooks/s%2Fx/gitlab",
  );
});

Deno.test("processTemplate() fills ${X}, ${{X}} and generated parameters", () => {
  const objects = processTemplate({
    metadata: { name: "t" },
    parameters: [
      { name: "NAME", value: "jenkins" },
      { name: "REPLICAS", value: "2" },
      { name: "PASSWORD", generate: "expression", from: "[a-z0-9]{12}" },
    ],
    objects: [{
      kind: "X",
      metadata: { name: "${NAME}-svc" },
      spec: { replicas: "${{REPLICAS}}", p: "${PASSWORD}" },
    }],
  } as never, {});
  const spec = objects[0]!.spec as { replicas: unknown; p: string };
  assert.equal(objects[0]!.metadata.name, "jenkins-svc");
  assert.equal(spec.replicas, 2);
  assert.match(spec.p, /^[a-z0-9]{12}$/);
  assert.throws(
    () =>
      processTemplate(
        {
          metadata: { name: "t" },
          parameters: [{ name: "R", required: true }],
          objects: [],
        } as never,
      ),
    TemplateError,
  );
});
