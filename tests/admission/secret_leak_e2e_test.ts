/**
 * No secret in any log line or error: a policy file (or a kubeconfig) whose YAML error sits on
 * the line of a Secret's `password:` is refused without quoting that line, by the real webhook
 * process (on reload and at start) and by `toolkit image-security check -f` run as a process.
 * The secret is a canary that must appear nowhere in what the processes write.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, run } from "../env/mod.ts";
import { eventually, startWebhook } from "./_webhook.ts";

const WEBHOOK = new URL("../../webhook/main.ts", import.meta.url).pathname;
const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;

/** A secret-shaped value to look for; `CANARY` alone is looked for too (parts of it leak). */
function canary(): string {
  return `CANARY-S3CR3T-${crypto.randomUUID().replaceAll("-", "")}`;
}

function storeSecret(passwordLine: string): string {
  return `apiVersion: v1
kind: Secret
metadata:
  name: store
type: Opaque
stringData:
  username: robot
  ${passwordLine}
---
apiVersion: v1
kind: Namespace
metadata:
  name: team
`;
}

/** Policy files that do not parse, each with the secret on (or named by) the line at fault. */
function brokenFiles(secret: string): string[] {
  return [
    storeSecret(`password: ${secret}: oops`), // a nested mapping in a compact one
    storeSecret(`password: "${secret}\n  token: x`), // an unterminated quote
    storeSecret(`password: [${secret}`), // an unclosed flow sequence
    storeSecret(`password: ${secret}\n  password: again`), // a duplicated key
    storeSecret(`password: *${secret}`), // an alias without its anchor
    storeSecret(`password: !${secret} x\n  bad: [`), // an unknown tag (a warning) and an error
  ];
}

function assertNoSecret(text: string, secret: string, where: string): void {
  assert.ok(!text.includes(secret), `${where} holds the secret:\n${text}`);
  assert.ok(!text.includes("CANARY"), `${where} holds part of the secret:\n${text}`);
}

Deno.test({
  name: "the webhook logs no Secret value from a policy file that fails to reload",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "toolkit-secret-leak-" });
    const secret = canary();
    const file = `${dir}/policies.yaml`;
    await Deno.writeTextFile(file, storeSecret(`password: ${secret}`));
    try {
      await using webhook = await startWebhook(["--policies", file]);
      const broken = brokenFiles(secret);
      for (const [i, text] of broken.entries()) {
        await Deno.writeTextFile(file, text);
        await eventually(
          `reload ${i + 1} refused`,
          async () =>
            (await webhook.logLines()).filter((l) =>
              String(l.msg).startsWith("policies not reloaded")
            ).length === i + 1,
        );
      }
      const refused = (await webhook.logLines()).filter((l) =>
        String(l.msg).startsWith("policies not reloaded")
      );
      for (const line of refused.slice(0, 4)) {
        assert.match(String(line.detail), /invalid YAML in document 1 at line \d+, column \d+/);
      }
      assertNoSecret(await webhook.logText(), secret, "the webhook's output");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("the webhook logs no Secret value from a policy file or kubeconfig it cannot start with", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-secret-leak-" });
  const secret = canary();
  const webhook = (args: string[]) =>
    run(Deno.execPath(), [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      "--unstable-net",
      WEBHOOK,
      "--tls-cert-file",
      `${dir}/tls.crt`,
      "--tls-key-file",
      `${dir}/tls.key`,
      ...args,
    ], { env: { HOME: dir } });
  try {
    for (const [i, text] of brokenFiles(secret).entries()) {
      await Deno.writeTextFile(`${dir}/policies-${i}.yaml`, text);
      const r = await webhook(["--policies", `${dir}/policies-${i}.yaml`]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /Cannot use policy file/);
      assertNoSecret(r.stdout + r.stderr, secret, `the webhook's output (file ${i + 1})`);
    }
    await Deno.writeTextFile(
      `${dir}/kubeconfig`,
      `apiVersion: v1
kind: Config
users:
- name: admin
  user:
    token: ${secret}: oops
    client-key-data: ${btoa(secret)}
`,
    );
    const r = await webhook(["--kubeconfig", `${dir}/kubeconfig`]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assertNoSecret(r.stdout + r.stderr, secret, "the webhook's output (kubeconfig)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolkit image-security check -f prints no Secret value from a broken policy file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-secret-leak-" });
  const secret = canary();
  try {
    for (const [i, text] of brokenFiles(secret).entries()) {
      await Deno.writeTextFile(`${dir}/policies-${i}.yaml`, text);
      const r = await run(Deno.execPath(), [
        "run",
        "-A",
        CLI,
        "image-security",
        "check",
        "quay.io/team/app:1",
        "-f",
        `policies-${i}.yaml`,
        "-n",
        "team",
      ], { cwd: dir, env: { HOME: dir, NO_COLOR: "1" } });
      assert.notEqual(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stderr, /Cannot use policy file/);
      assertNoSecret(r.stdout + r.stderr, secret, `toolkit's output (file ${i + 1})`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
