import assert from "node:assert/strict";
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
