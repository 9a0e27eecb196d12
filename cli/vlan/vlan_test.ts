/**
 * `toolkit vlan` in-process, its `ibmcloud` answered by a process runner in the command context:
 * which `ibmcloud` commands it runs, and the VLANs it prints. The end-to-end test with the
 * `ibmcloud` stand-in on PATH is `tests/cli_vlan/vlan_test.ts`.
 */
import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";
import type { ProcessOutput, ProcessRunner } from "../../lib/process.ts";

/** A runner that answers `ibmcloud ARGS` from `answers` (keyed by the arguments) and records. */
function ibmcloud(answers: Record<string, unknown>): ProcessRunner & { ran: string[][] } {
  const ran: string[][] = [];
  const encode = (text: string) => new TextEncoder().encode(text);
  return {
    ran,
    output(program, options = {}): Promise<ProcessOutput> {
      const args = [...(options.args ?? [])];
      ran.push([program, ...args]);
      const key = args.filter((a) => a !== "--output" && a !== "json").join(" ");
      if (!(key in answers)) {
        return Promise.resolve({
          code: 1,
          success: false,
          stdout: encode(""),
          stderr: encode(`FAILED: ${key}`),
        });
      }
      return Promise.resolve({
        code: 0,
        success: true,
        stdout: encode(JSON.stringify(answers[key])),
        stderr: encode(""),
      });
    },
    start() {
      throw new Error("vlan starts no program in the background");
    },
  };
}

const VLANS = [
  { id: 2711001, type: "public", properties: { vlan_number: "1101", primary_router: "fcr01a" } },
  { id: 2711003, type: "private", properties: { vlan_number: "1102", primary_router: "bcr01a" } },
];

Deno.test("vlan reads the target, the zones and their VLANs through ibmcloud, and prints them", async () => {
  const runner = ibmcloud({
    "target": { region: { name: "us-south" }, resource_group: { name: "default" } },
    "ks zone ls --provider classic --region-only": [{ id: "dal10" }],
    "ks vlan ls --zone dal10": VLANS,
  });
  const io = bufferedIO({ env: { PATH: "/nowhere", HOME: "/nowhere" } });
  const status = await runCli(
    ["vlan", "--format", "json"],
    commandContext(io, "toolkit", { processes: runner }),
  );
  assert.equal(status, 0, io.err());
  assert.deepEqual(runner.ran.map((r) => r[0]), ["ibmcloud", "ibmcloud", "ibmcloud"]);
  assert.ok(runner.ran.every((r) => r.slice(-2).join(" ") === "--output json"));
  const printed = JSON.parse(io.out());
  assert.equal(printed.private_vlan_id, "2711003");
  assert.equal(printed.public_vlan_id, "2711001");
});

Deno.test("vlan names the ibmcloud command that failed and what it said", async () => {
  const runner = ibmcloud({});
  const io = bufferedIO({ env: {} });
  const status = await runCli(["vlan"], commandContext(io, "toolkit", { processes: runner }));
  assert.equal(status, 1);
  assert.match(io.err(), /"ibmcloud target" failed \(exit 1\): FAILED: target/);
});
