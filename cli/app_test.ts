import assert from "node:assert/strict";
import { markLiterals, runCli, unknownCommandWord } from "./app.ts";
import { bufferedIO } from "./io.ts";
import { COMMANDS } from "./commands.ts";
import { commandName } from "./command.ts";
import { VERSION } from "../lib/version.ts";
import { commandContext } from "./context.ts";

async function run(args: string[], programName = "toolkit") {
  const io = bufferedIO();
  const status = await runCli(args, commandContext(io, programName));
  return { status, out: io.out(), err: io.err() };
}

Deno.test("runCli() prints the version", async () => {
  const r = await run(["--version"]);
  assert.equal(r.status, 0);
  assert.equal(r.out.trim(), VERSION);
});

Deno.test("runCli() --help lists every command of the mission with its aliases", async () => {
  const r = await run(["--help"]);
  assert.equal(r.status, 0);
  for (
    const usage of [
      "console",
      "create-webhook",
      "credentials",
      "dashboard",
      "enable",
      "endpoints",
      "git-secret [name]",
      "git [remote]",
      "gitops",
      "sync [namespace]",
      "pull-secret [namespace]",
      "pipeline [gitUrl]",
      "tool-config [name]",
      "vlan",
      "yq <command>",
      "image-security <command>",
    ]
  ) assert.ok(r.out.includes(`toolkit ${usage}`), `help lists ${usage}`);
  assert.match(r.out, /aliases: ingress, endpoint, ingresses/);
  assert.match(r.out, /aliases: project, namespace/);
});

Deno.test("runCli() exits 2 with a suggestion on a mistyped command", async () => {
  const r = await run(["synk"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Did you mean sync\?/);
});

Deno.test("runCli() exits 2 on an unknown flag and on no command", async () => {
  assert.equal((await run(["sync", "--bogus"])).status, 2);
  assert.equal((await run([])).status, 2);
  assert.equal((await run(["image-security", "sign"])).status, 2);
});

Deno.test("runCli() says kubectl toolkit in help when run as the plugin", async () => {
  const r = await run(["--help"], "kubectl toolkit");
  assert.match(r.out, /^kubectl toolkit <command>/);
  assert.match(r.out, /kubectl toolkit sync \[namespace\]/);
});

Deno.test("runCli() accepts the aliases of a command", async () => {
  for (const alias of ["ingress", "endpoint", "ingresses", "project", "namespace"]) {
    const r = await run([alias, "--help"]);
    assert.equal(r.status, 0, alias);
  }
});

Deno.test("runCli() prints bash and zsh completion scripts", async () => {
  const bash = await run(["completion", "bash"]);
  assert.match(bash.out, /complete -o default -F _toolkit_complete toolkit/);
  const zsh = await run(["completion", "zsh"]);
  assert.match(zsh.out, /^#compdef toolkit/);
  assert.equal((await run(["completion", "fish"])).status, 2);
});

Deno.test("runCli() completes commands and flags", async () => {
  assert.equal((await run(["__complete", "pu"])).out, "pull-secret\n");
  assert.match((await run(["__complete", "sync", "--templ"])).out, /--templateNamespace/);
  assert.match((await run(["__complete", "image-security", "k"])).out, /keygen\nkey-secret/);
});

Deno.test("every registered command has a description and an implementation or subcommands", () => {
  function visit(specs: typeof COMMANDS, path: string) {
    for (const spec of specs) {
      const name = `${path}${commandName(spec)}`;
      assert.ok(spec.describe.length > 0, name);
      assert.ok(spec.load || spec.subcommands, name);
      if (spec.subcommands) visit(spec.subcommands, `${name} `);
    }
  }
  visit(COMMANDS, "");
});

function leaves(specs: typeof COMMANDS, path = ""): [string, (typeof COMMANDS)[number]][] {
  return specs.flatMap((spec) => {
    const name = `${path}${commandName(spec)}`;
    return spec.subcommands ? leaves(spec.subcommands, `${name} `) : [[name, spec]];
  });
}

Deno.test("every command takes -v/--verbose and --quiet", async () => {
  for (const [name] of leaves(COMMANDS)) {
    const r = await run([...name.split(" "), "--help"]);
    assert.equal(r.status, 0, name);
    assert.match(r.out, /-v, --verbose/, name);
    assert.match(r.out, /--quiet/, name);
  }
});

Deno.test("a positional is required exactly when the usage line writes it <so>", () => {
  for (const [name, spec] of leaves(COMMANDS)) {
    for (const [positional, p] of Object.entries(spec.positionals ?? {})) {
      const required = new RegExp(`<${positional}(\\.\\.)?>`).test(spec.usage);
      assert.equal(p.required === true, required, `${name} ${positional}`);
    }
  }
});

Deno.test("every built command that changes objects or prints data has -o", () => {
  const changing = [
    "sync",
    "pull-secret",
    "git-secret",
    "gitops",
    "tool-config",
    "credentials",
    "endpoints",
    "image-security keygen",
    "image-security sign",
    "image-security verify",
    "image-security key-secret",
    "image-security vault store",
    "image-security vault fetch",
    "image-security doctor",
    "image-security check",
    "image-security enable",
    "image-security status",
    "image-security disable",
    "image-security rotate-certs",
  ];
  const specs = new Map(leaves(COMMANDS));
  for (const name of changing) {
    const output = specs.get(name)?.flags?.output;
    assert.ok(output, name);
    assert.equal(output.alias, "o", name);
    for (const format of ["json", "yaml"]) assert.ok(output.choices?.includes(format), name);
  }
});

Deno.test("every command --help lists is built: each implementation loads", async () => {
  for (const [name, spec] of leaves(COMMANDS)) {
    const run = await spec.load!();
    assert.equal(typeof run, "function", name);
  }
  const source = await Deno.readTextFile(new URL("./commands.ts", import.meta.url));
  assert.doesNotMatch(source, /NotImplementedError|notBuilt/);
});

Deno.test("markLiterals() carries - and the arguments after -- as positional values", () => {
  assert.deepEqual(markLiterals(["yq", "r", "-", "a"]), ["yq", "r", "\u0000-", "a"]);
  assert.deepEqual(markLiterals(["w", "f", "--", "-x", "--"]), ["w", "f", "\u0000-x", "\u0000--"]);
});

Deno.test("runCli() names the unknown word of a subcommand", async () => {
  const r = await run(["yq", "nope"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Unknown command "nope"/);
  assert.equal(unknownCommandWord(COMMANDS, ["image-security", "vault", "x"]), "x");
  assert.equal(unknownCommandWord(COMMANDS, ["sync", "ns"]), undefined);
});
