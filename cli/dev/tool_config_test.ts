import assert from "node:assert/strict";
import { NAMESPACES, SECRETS } from "../../lib/kube/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { toolKeyPrefix, toolName } from "./tool_config.ts";
import { toolLabels } from "./common.ts";

Deno.test("toolName() and toolKeyPrefix() follow the tool-config chart", () => {
  assert.equal(toolName(" My_Tool "), "my-tool");
  assert.equal(toolKeyPrefix("my-tool"), "MY_TOOL");
});

Deno.test("toolLabels() carries both label schemes, so sync and credentials see the tool", () => {
  const labels = toolLabels("x-config");
  assert.equal(labels.group, "catalyst-tools");
  assert.equal(labels.grouping, "garage-cloud-native-toolkit");
});

Deno.test("tool-config replaces a tool's credentials only with --replace", async () => {
  await using cli = await fakeCli();
  cli.kube.seed(NAMESPACES, { metadata: { name: "tools" } });
  const base = ["tool-config", "my-tool", "--username", "admin"];
  const created = await cli.run([...base, "--password", "pw"]);
  assert.equal(created.status, 0, created.err);
  const again = await cli.run([...base, "--password", "pw"]);
  assert.equal(again.status, 0, again.err);
  const refused = await cli.run([...base, "--password", "other"]);
  assert.equal(refused.status, 2, refused.err);
  assert.match(
    refused.err,
    /Secret "tools\/my-tool-access" already holds other credentials \(user "admin"\); pass --replace/,
  );
  const data = () =>
    cli.kube.get(SECRETS, "tools", "my-tool-access")?.data as Record<string, string>;
  assert.equal(decodeBase64Text(data().MY_TOOL_PASSWORD!), "pw");
  const replaced = await cli.run([...base, "--password", "other", "--replace"]);
  assert.equal(replaced.status, 0, replaced.err);
  assert.equal(decodeBase64Text(data().MY_TOOL_PASSWORD!), "other");
});
