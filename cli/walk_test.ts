/**
 * The walk of issue #26's Done-when: every command misused once the way that concerns it most —
 * a server that accepts the connection and never answers (the API server, a registry, a git
 * host, a vault, the pipeline repository), no terminal for a question, or, for a command that
 * reaches nothing and asks nothing, a bad input — gives an error that names the problem and the
 * next step, exit 2 with the pointer to that command's `--help` for usage, 1 without it for
 * failures. The misuses every command shares (a flag without its value, a typo, a missing
 * argument, `--help`) are generated from the command list in `app_test.ts`.
 *
 * The commands walked are those of the command list (`commands.ts`): a command that talks to a
 * cluster and needs no argument is walked against a silent API server without an entry
 * ({@linkcode derivedMisuse}); any other command has its entry in {@linkcode WALK}, and a new
 * one without either fails the first test here, which names it.
 */
import assert from "node:assert/strict";
import { runCli } from "./app.ts";
import { COMMANDS } from "./commands.ts";
import { commandName, type CommandSpec } from "./command.ts";
import { commandContext } from "./context.ts";
import { bufferedIO } from "./io.ts";
import { fakeClock } from "../tests/fakes/clock.ts";
import { fakeCli } from "../tests/fakes/cli.ts";
import { kubeconfigFor, silentServer } from "../tests/fakes/silent_server.ts";
import { gitRepo } from "../tests/env/git_repo.ts";
import { generateKeyPair } from "../lib/signing/mod.ts";
import { NAMESPACES } from "../lib/kube/mod.ts";

/** How a command is misused, and what it must answer. */
interface Misuse {
  /** The arguments after the command's words; `{S}` is the silent server's `host:port`. */
  readonly args: readonly string[];
  /** Where it runs: a silent server behind the kubeconfig (default), or the in-memory cluster. */
  readonly on?: "silent" | "fake-cluster";
  readonly status: 1 | 2;
  /** The problem and the next step. */
  readonly says: readonly RegExp[];
}

const TIMEOUT = ["--request-timeout", "1s"];
/** What a silent server's timeout says: the server, and the flag. */
const SILENT = (what: RegExp) => [
  what,
  /did not answer in time: --request-timeout sets how long to wait/,
];
const UUID = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const VAULT = ["--kms-url", "http://{S}", "--instance-id", UUID, "--token", "t", ...TIMEOUT];

/** The misuses that are not {@linkcode derivedMisuse}'s, by command words. */
const WALK: Readonly<Record<string, Misuse>> = {
  "completion": { args: ["fish"], status: 2, says: [/must be one of bash, zsh, not "fish"/] },
  "console": {
    args: ["--print", ...TIMEOUT],
    status: 1,
    says: SILENT(/no answer from https:\/\/\S+ within 1 s/),
  },
  "create-webhook": {
    args: [
      "--gitUrl",
      "https://{S}/org/app",
      "--gitToken",
      "t",
      "--gitUsername",
      "u",
      "--webhookUrl",
      "https://listener.example.com/hook",
      "--git-host-type",
      "gitea",
      ...TIMEOUT,
    ],
    status: 1,
    says: SILENT(/Cannot reach the git host \S+: no answer from https:\/\/\S+ within 1 s/),
  },
  "dashboard": {
    args: ["--print", ...TIMEOUT],
    status: 1,
    says: SILENT(/Cannot reach the API server/),
  },
  "enable": {
    args: ["--repo", "http://{S}/pipelines", "-p", "nodejs", "--force", ...TIMEOUT],
    status: 1,
    says: SILENT(/Cannot download the pipeline index from http:\/\/\S+: no answer from/),
  },
  "endpoints": {
    args: ["-n", "dev", ...TIMEOUT],
    status: 1,
    says: SILENT(/Cannot reach the API server/),
  },
  "git-secret": {
    args: ["-n", "dev", "-d", "{REPO}"],
    on: "fake-cluster",
    status: 2,
    says: [
      /The git username is missing: pass -u\/--gitUsername \(there is no terminal to ask on\)/,
    ],
  },
  "git": {
    args: ["--print", "-d", "{EMPTY}"],
    status: 1,
    says: [/not a git repository \(run it in a clone, or name one with -d\/--workingDir\)/],
  },
  "gitops": {
    args: ["https://github.com/org/gitops#main", "-n", "dev", "-u", "u", "-p", "p", ...TIMEOUT],
    status: 1,
    says: SILENT(/Cannot reach the API server/),
  },
  "sync": { args: ["dev", ...TIMEOUT], status: 1, says: SILENT(/Cannot reach the API server/) },
  "pull-secret": {
    args: ["dev", ...TIMEOUT],
    status: 1,
    says: SILENT(/Cannot reach the API server/),
  },
  "pipeline": {
    args: [
      "https://github.com/org/app#main",
      "--tekton",
      "-n",
      "dev",
      "-u",
      "u",
      "-P",
      "p",
      ...TIMEOUT,
    ],
    status: 1,
    says: SILENT(/Cannot reach the API server/),
  },
  "tool-config": {
    args: ["sonar", "--url", "https://sonar.example.com", ...TIMEOUT],
    status: 1,
    says: SILENT(/Cannot reach the API server/),
  },
  "vlan": {
    args: [],
    status: 1,
    says: [/ibmcloud/],
  },
  "yq r": {
    args: ["{EMPTY}/missing.yaml"],
    status: 1,
    says: [/Cannot read ".*missing\.yaml": no such file/],
  },
  "yq w": {
    args: ["{EMPTY}/missing.yaml", "a", "1"],
    status: 1,
    says: [/Cannot read ".*missing\.yaml": no such file/],
  },
  "yq d": {
    args: ["{EMPTY}/missing.yaml", "a"],
    status: 1,
    says: [/Cannot read ".*missing\.yaml": no such file/],
  },
  "yq merge": {
    args: ["{EMPTY}/missing.yaml"],
    status: 1,
    says: [/Cannot read ".*missing\.yaml": no such file/],
  },
  "yq new": { args: ["a", "1", "--tag", "int"], status: 2, says: [/--tag must be a YAML tag/] },
  "yq prefix": {
    args: ["{EMPTY}/missing.yaml", "a"],
    status: 1,
    says: [/Cannot read ".*missing\.yaml": no such file/],
  },
  "yq compare": {
    args: ["{EMPTY}/missing.yaml", "{EMPTY}/other.yaml"],
    status: 1,
    says: [/Cannot read ".*missing\.yaml": no such file/],
  },
  "yq validate": {
    args: ["{EMPTY}/missing.yaml"],
    status: 1,
    says: [/Cannot read ".*missing\.yaml": no such file/],
  },
  "image-security keygen": {
    args: ["--type", "ecdsa-p256", "--public-key", "{EMPTY}/c.pub", "--private-key", "{PRIVATE}"],
    status: 2,
    says: [/Cannot write ".*key\.asc": the file exists \(use --force to replace it\)/],
  },
  "image-security sign": {
    args: [
      "{S}/app:1",
      "--key",
      "{PRIVATE}",
      "--tls-verify=false",
      "--registries.d",
      "{EMPTY}",
      ...TIMEOUT,
    ],
    status: 1,
    says: SILENT(/no answer within 1000 ms|no answer from http:\/\/\S+ within 1 s/),
  },
  "image-security attest": {
    args: [
      "{S}/app:1",
      "--key",
      "{PRIVATE}",
      "--tls-verify=false",
      "--build-repository",
      "https://git.example/team/app",
      "--build-revision",
      "0123456789abcdef0123456789abcdef01234567",
      "--build-pipeline",
      "app-build",
      "--build-task",
      "build",
      "--build-invocation-id",
      "8f1c2e1a-0000-4000-8000-000000000001",
      "--builder-id",
      "https://toolkit.dev/tekton/tools",
      ...TIMEOUT,
    ],
    status: 1,
    says: SILENT(/no answer within 1000 ms|no answer from http:\/\/\S+ within 1 s/),
  },
  "image-security verify": {
    args: [
      "{S}/app:1",
      "--key",
      "{PUBLIC}",
      "--tls-verify=false",
      "--registries.d",
      "{EMPTY}",
      ...TIMEOUT,
    ],
    status: 1,
    says: SILENT(/is not verified: .*no answer within 1000 ms/),
  },
  "image-security key-secret": {
    args: ["signer", "--key", "{PUBLIC}", ...TIMEOUT],
    status: 1,
    says: SILENT(/Cannot reach the API server/),
  },
  "image-security trust-root": {
    args: ["root", "-f", "{EMPTY}/missing.json"],
    status: 2,
    says: [/Cannot read --file ".*missing\.json": no such file/],
  },
  "image-security import": {
    args: ["{EMPTY}/missing.yaml"],
    status: 2,
    says: [/Cannot read file ".*missing\.yaml": no such file/],
  },
  "image-security setup-signing": {
    args: [
      "--repository",
      "us.icr.io/team/*",
      "--kms-url",
      "http://{S}",
      "--instance-id",
      UUID,
      "--api-key",
      "k",
      "--iam-url",
      "http://{S}/identity/token",
      ...TIMEOUT,
    ],
    status: 1,
    says: SILENT(/no answer from http:\/\/\S+ within 1 s|Cannot reach the API server/),
  },
  "image-security vault store": {
    args: ["signing", "--key", "{PRIVATE}", ...VAULT],
    status: 1,
    says: SILENT(/no answer from http:\/\/\S+ within 1 s/),
  },
  "image-security vault fetch": {
    args: ["signing", "--key", "{EMPTY}/fetched.asc", ...VAULT],
    status: 1,
    says: SILENT(/no answer from http:\/\/\S+ within 1 s/),
  },
  "image-security doctor": {
    args: ["-o", "xml"],
    status: 2,
    says: [/--output must be one of text, json, yaml, not "xml"/],
  },
  "image-security check": {
    args: ["{S}/app:1", "-f", "{POLICY}", "--insecure-registry", "{S}", ...TIMEOUT],
    status: 1,
    says: [/did not answer in time: --request-timeout sets how long to wait/],
  },
  "image-security enable": {
    args: ["--webhook-url", "https://127.0.0.1:9/admit", "--no-verify-url", ...TIMEOUT],
    status: 1,
    says: SILENT(/Cannot reach the API server/),
  },
};

function leafCommands(): [string, CommandSpec][] {
  const found: [string, CommandSpec][] = [];
  const visit = (specs: readonly CommandSpec[], path: string[]) => {
    for (const spec of specs) {
      const here = [...path, commandName(spec)];
      if (spec.subcommands) visit(spec.subcommands, here);
      else found.push([here.join(" "), spec]);
    }
  };
  visit(COMMANDS, []);
  return found;
}

/**
 * The misuse a command's declaration implies: one that talks to a cluster (`--kubeconfig`,
 * `--request-timeout`) and needs no argument meets a silent API server.
 */
function derivedMisuse(spec: CommandSpec): Misuse | undefined {
  const flags = spec.flags ?? {};
  const needsArgument = Object.values(spec.positionals ?? {}).some((p) => p.required) ||
    Object.values(flags).some((f) => f.demandOption);
  if (!("kubeconfig" in flags) || !("request-timeout" in flags) || needsArgument) return undefined;
  return { args: TIMEOUT, status: 1, says: SILENT(/Cannot reach the API server/) };
}

/** Each command's misuse, from the command list. */
function walk(): [string, Misuse | undefined][] {
  return leafCommands().map(([words, spec]) => [words, WALK[words] ?? derivedMisuse(spec)]);
}

Deno.test("the walk has one misuse for every command", () => {
  const words = leafCommands().map(([w]) => w);
  assert.deepEqual(
    walk().filter(([, misuse]) => misuse === undefined).map(([w]) => w),
    [],
    "commands without a misuse: give each its entry in WALK",
  );
  assert.deepEqual(Object.keys(WALK).filter((w) => !words.includes(w)), [], "stale entries");
});

Deno.test("every command misused once names the problem and the next step, with the right status", async () => {
  await using server = silentServer();
  const dir = await Deno.makeTempDir({ prefix: "toolkit-walk-" });
  try {
    const empty = `${dir}/empty`;
    await Deno.mkdir(empty);
    await Deno.writeTextFile(`${dir}/kubeconfig`, kubeconfigFor(`https://${server.host}`));
    const pair = await generateKeyPair({ name: "Walk", type: "ed25519" });
    await Deno.writeTextFile(`${dir}/key.asc`, pair.privateKeyArmored);
    await Deno.writeTextFile(`${dir}/pub.asc`, pair.publicKeyArmored);
    await Deno.writeTextFile(
      `${dir}/policy.yaml`,
      `apiVersion: toolkit.dev/v1\nkind: ClusterImagePolicy\nmetadata: {name: p}\nspec:\n  repositories:\n  - name: "${server.host}/*"\n    policy:\n      simple:\n        requirements:\n        - type: signedBy\n          keySecret: keys\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: keys, namespace: toolkit-system}\nstringData:\n  key: |\n${
        pair.publicKeyArmored.trim().split("\n").map((l) => `    ${l}`).join("\n")
      }\n`,
    );
    const repo = await gitRepo(`${dir}/repo`, "https://github.com/org/app.git");
    const fill = (arg: string) =>
      arg.replaceAll("{S}", server.host).replaceAll("{EMPTY}", empty).replaceAll("{REPO}", repo)
        .replaceAll("{PRIVATE}", `${dir}/key.asc`).replaceAll("{PUBLIC}", `${dir}/pub.asc`)
        .replaceAll("{POLICY}", `${dir}/policy.yaml`);
    await using cluster = await fakeCli();
    cluster.kube.seed(NAMESPACES, { metadata: { name: "dev" } });

    const results = await Promise.all(
      walk().map(async ([words, maybe]) => {
        const misuse = maybe!;
        const args = [...words.split(" "), ...misuse.args.map(fill)];
        if (misuse.on === "fake-cluster") return { words, misuse, ...(await cluster.run(args)) };
        const io = bufferedIO({
          cwd: empty,
          env: { KUBECONFIG: `${dir}/kubeconfig`, HOME: dir, PATH: empty, NO_COLOR: "1" },
        });
        const status = await runCli(args, commandContext(io, "toolkit", { clock: fakeClock() }));
        return { words, misuse, status, out: io.out(), err: io.err() };
      }),
    );
    for (const { words, misuse, status, err } of results) {
      assert.equal(status, misuse.status, `${words}: ${err}`);
      for (const says of misuse.says) assert.match(err, says, `${words}: ${err}`);
      assert.match(err, /^error: |\nerror: |is not verified|did not answer/, `${words}: ${err}`);
      const pointer = `Run 'toolkit ${words} --help' for usage.`;
      if (status === 2) assert.ok(err.includes(pointer), `${words}: ${err}`);
      else assert.doesNotMatch(err, /--help' for usage/, `${words}: a failure has no usage hint`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
