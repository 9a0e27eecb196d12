import assert from "node:assert/strict";
import { pipelineNameFor, referencedTasks } from "./copy.ts";

Deno.test("pipelineNameFor() follows igc's rule", () => {
  assert.equal(pipelineNameFor("My.Node_App"), "my-node-app");
  assert.equal(pipelineNameFor("a--b..c"), "a-b-c");
  const long = "the-quick-brown-fox-jumps-over-the-lazy-dog-and-keeps-running-far-away";
  const name = pipelineNameFor(long);
  assert.ok(name.length <= 56, name);
  assert.equal(name, "t-q-b-f-j-over-the-lazy-dog-and-keeps-running-far-away");
  assert.equal(pipelineNameFor("9lives"), "p-9lives");
});

Deno.test("referencedTasks() lists the namespaced Tasks of tasks and finally, once each", () => {
  assert.deepEqual(
    referencedTasks({
      metadata: { name: "p" },
      spec: {
        tasks: [
          { name: "a", taskRef: { name: "ibm-setup" } },
          { name: "b", taskRef: { name: "ibm-build", kind: "Task" } },
          { name: "c", taskRef: { name: "git-clone", kind: "ClusterTask" } },
          { name: "d", taskRef: { resolver: "hub", params: [] } },
          { name: "e", taskSpec: { steps: [] } },
          { name: "f", taskRef: { name: "ibm-setup" } },
        ],
        finally: [{ name: "g", taskRef: { name: "ibm-notify" } }],
      },
    }),
    ["ibm-build", "ibm-notify", "ibm-setup"],
  );
});
