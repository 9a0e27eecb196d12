/**
 * No secret in any log line or error: a policy file (or a kubeconfig) whose YAML error sits on
 * the line of a Secret's `password:` is refused without quoting that line, by the real webhook
 * process (on reload and at start) and by `toolkit image-security check -f` run as a process.
 * The secret is a canary that must appear nowhere in what the processes write.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, run } from "../env/mod.ts";
import { eventually } from "./_webhook.ts";
import { startWorld } from "./_world.ts";

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
    await using world = await startWorld({ cluster: false, images: false });
    const secret = canary();
    const file = await world.file("policies.yaml", storeSecret(`password: ${secret}`));
    const webhook = await world.startWebhook({ policies: file });
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

Deno.test("toolkit gitops and pipeline print no git token, from any source, with -v or when refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-secret-leak-" });
  const secret = canary();
  // An API server that refuses connections: the token is resolved, then the command fails.
  await Deno.writeTextFile(
    `${dir}/kubeconfig`,
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:9"}
users:
- name: u
  user: {}
contexts:
- name: c
  context: {cluster: c, user: u, namespace: dev}
current-context: c
`,
  );
  await Deno.writeTextFile(`${dir}/token`, `${secret}\n`);
  await Deno.writeTextFile(`${dir}/empty`, "");
  const toolkit = (
    args: string[],
    options: { env?: Record<string, string>; stdin?: string } = {},
  ) =>
    run(Deno.execPath(), ["run", "-A", CLI, ...args, "-v", "--request-timeout", "2s"], {
      cwd: dir,
      env: { HOME: dir, NO_COLOR: "1", KUBECONFIG: `${dir}/kubeconfig`, ...options.env },
      ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    });
  const commands = [
    ["gitops", "https://github.com/org/gitops#main", "-n", "dev", "-u", "robot"],
    ["pipeline", "https://github.com/org/app#main", "--tekton", "-n", "dev", "-u", "robot"],
  ];
  const value = (command: string[]) => command[0] === "gitops" ? "-p" : "-P";
  try {
    for (const command of commands) {
      const where = (what: string) => `toolkit ${command[0]}'s output (${what})`;
      const sources: [string, string[], { env?: Record<string, string>; stdin?: string }][] = [
        ["--git-token-file", [...command, "--git-token-file", "token"], {}],
        ["TOOLKIT_GIT_TOKEN", command, { env: { TOOLKIT_GIT_TOKEN: secret } }],
        ["stdin", [...command, value(command), "-"], { stdin: `${secret}\n` }],
      ];
      for (const [what, args, options] of sources) {
        const r = await toolkit(args, options);
        assert.equal(r.code, 1, `${what}: ${r.stderr}`);
        assert.match(r.stderr, /→ GET https:\/\/127\.0\.0\.1:9\//, `${what}: -v told the request`);
        assert.doesNotMatch(r.stderr, /warning: the git token/, what);
        assertNoSecret(r.stdout + r.stderr, secret, where(what));
      }
      const argument = await toolkit([...command, value(command), secret]);
      assert.equal(argument.code, 1, argument.stderr);
      assert.equal(argument.stderr.match(/warning: the git token given as/g)?.length, 1);
      assertNoSecret(argument.stdout + argument.stderr, secret, where("an argument"));
      const refusals: [string[], Record<string, string>, number][] = [
        [[...command, value(command), secret, "--git-token-file", "token"], {}, 2],
        [[...command, "--git-token-file", "token"], { TOOLKIT_GIT_TOKEN: secret }, 2],
        [[...command, "--git-token-file", "empty"], {}, 1],
        [[...command, value(command), "-"], {}, 1],
      ];
      for (const [args, env, code] of refusals) {
        const r = await toolkit(args, { env, stdin: `${secret}\n${secret}\n` });
        assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /→ GET/, "refused before anything is reached");
        assertNoSecret(r.stdout + r.stderr, secret, where(args.slice(-2).join(" ")));
      }
      // Standard input is read up to its bound, not whole: toolkit stops reading and refuses.
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", CLI, ...command, value(command), "-", "--request-timeout", "2s"],
        cwd: dir,
        env: { HOME: dir, NO_COLOR: "1", KUBECONFIG: `${dir}/kubeconfig` },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      // The pipe is closed by toolkit once it has read its bound: the rest is not written.
      await writer.write(new TextEncoder().encode(`${secret}${"x".repeat(4 << 20)}\n`))
        .catch(() => {});
      await writer.close().catch(() => {});
      const output = await child.output();
      const flood = {
        code: output.code,
        stdout: new TextDecoder().decode(output.stdout),
        stderr: new TextDecoder().decode(output.stderr),
      };
      assert.equal(flood.code, 1, flood.stderr);
      assert.match(flood.stderr, /standard input holds more than 65536 bytes/);
      assertNoSecret(flood.stdout + flood.stderr, secret, where("4 MiB of stdin"));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
