import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";

async function enable(args: string[]) {
  const io = bufferedIO({});
  const code = await runCli(["image-security", "enable", ...args], commandContext(io));
  return { code, out: io.out(), err: io.err() };
}

const URL = "https://127.0.0.1:9/admit";

Deno.test("enable --dry-run without -o prints every manifest as YAML, as its help says", async () => {
  const r = await enable(["--dry-run", "--webhook-url", URL]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^apiVersion: /);
  assert.match(r.out, /\n---\n/);
  assert.match(r.out, /kind: MutatingWebhookConfiguration/);
});

Deno.test("enable --dry-run -o text prints the objects' names, -o json one List", async () => {
  const text = await enable(["--dry-run", "--webhook-url", URL, "-o", "text"]);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^MutatingWebhookConfiguration toolkit-image-security$/m);
  const json = await enable(["--dry-run", "--webhook-url", URL, "-o", "json"]);
  assert.equal(JSON.parse(json.out).kind, "List");
});

Deno.test("enable takes the controller's namespace as -n, --namespace or --controller-namespace", async () => {
  for (const flag of ["-n", "--namespace", "--controller-namespace"]) {
    const r = await enable(["--dry-run", "--webhook-url", URL, "-o", "text", flag, "guard"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Deployment guard\/toolkit-webhook$/m, flag);
  }
});

Deno.test("enable refuses a --replicas that is not a number before anything is done", async () => {
  const r = await enable(["--dry-run", "--webhook-url", URL, "--replicas", "three"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /--replicas must be a number, not "three"/);
});
