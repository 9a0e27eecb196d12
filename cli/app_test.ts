import assert from "node:assert/strict";
import { runCli } from "./app.ts";
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

Deno.test("runCli() completes commands and flags", async () => {
  assert.equal((await run(["__complete", "pu"])).out, "pull-secret\n");
  assert.match((await run(["__complete", "sync", "--templ"])).out, /--templateNamespace/);
  assert.match((await run(["__complete", "image-security", "k"])).out, /keygen\nkey-secret/);
  assert.equal((await run(["__complete", "completion", "z"])).out, "zsh\n");
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
  // From the command list: a command has -o json|yaml unless its declaration (or its group's)
  // says why not (`withoutOutput`).
  const changing: string[] = [];
  const visit = (specs: typeof COMMANDS, path: string, exempt: boolean) => {
    for (const spec of specs) {
      const name = `${path}${commandName(spec)}`;
      const without = exempt || spec.withoutOutput !== undefined;
      if (spec.subcommands) visit(spec.subcommands, `${name} `, without);
      else if (!without) changing.push(name);
    }
  };
  visit(COMMANDS, "", false);
  for (
    const name of [
      "sync",
      "pull-secret",
      "git-secret",
      "gitops",
      "tool-config",
      "credentials",
      "endpoints",
      "image-security keygen",
      "image-security sign",
      "image-security attest",
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
    ]
  ) assert.ok(changing.includes(name), `${name} was checked before the list was derived`);
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

Deno.test("runCli() names the unknown word of a subcommand", async () => {
  const r = await run(["yq", "nope"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Unknown command "nope"/);
  assert.match(r.err, /Run 'toolkit yq --help' for usage/);
});

/** Every command that runs, with the words that name it. */
function leafCommands(): [string[], (typeof COMMANDS)[number]][] {
  return leaves(COMMANDS).map(([name, spec]) => [name.split(" "), spec]);
}

/** The flags of a command that take a value, with the way each is written. */
function valueFlags(spec: (typeof COMMANDS)[number]): string[] {
  const written: string[] = [];
  for (const [name, flag] of Object.entries(spec.flags ?? {})) {
    if (flag.type === "boolean") continue;
    written.push(`--${name}`);
    for (const alias of flag.alias === undefined ? [] : [flag.alias].flat()) {
      written.push(alias.length === 1 ? `-${alias}` : `--${alias}`);
    }
  }
  return written;
}

Deno.test("-n without its value is a usage error for every command that takes -n", async () => {
  const withN = leafCommands().filter(([, spec]) => valueFlags(spec).includes("-n"));
  assert.ok(withN.length >= 10, `commands with -n: ${withN.map(([w]) => w.join(" "))}`);
  for (const [words] of withN) {
    const help = new RegExp(`Run 'toolkit ${words.join(" ")} --help' for usage\\.`);
    for (const args of [[...words, "-n"], [...words, "-n", "--verbose"], [...words, "-n", "-v"]]) {
      const r = await run(args);
      const line = args.join(" ");
      assert.equal(r.status, 2, `${line}: ${r.err}`);
      assert.match(r.err, /Flag -n \(--[\w-]+\) needs a value/, line);
      assert.match(r.err, help, line);
      assert.equal(r.out, "", line);
    }
  }
});

Deno.test("every flag that takes a value is a usage error without it, on every command", async () => {
  for (const [words, spec] of leafCommands()) {
    for (const flag of valueFlags(spec)) {
      const r = await run([...words, flag]);
      const line = `${words.join(" ")} ${flag}`;
      assert.equal(r.status, 2, `${line}: ${r.err}`);
      assert.match(r.err, /needs a value/, line);
      assert.match(r.err, new RegExp(`Run 'toolkit ${words.join(" ")} --help'`), line);
    }
  }
});

Deno.test("an unknown flag is named with its dashes and the nearest flag, on every command", async () => {
  for (const [words, spec] of leafCommands()) {
    const flag = Object.keys(spec.flags ?? {}).find((n) => n.length > 4 && !spec.flags![n]!.hidden);
    const line = words.join(" ");
    const bogus = await run([...words, "--no-such-flag-here"]);
    assert.equal(bogus.status, 2, line);
    assert.match(bogus.err, /Unknown flag --no-such-flag-here of "/, line);
    assert.match(bogus.err, new RegExp(`Run 'toolkit ${line} --help' for usage`), line);
    if (flag === undefined) continue;
    // A typo: two neighbouring letters swapped.
    const typo = `--${flag.slice(0, 1)}${flag[2]}${flag[1]}${flag.slice(3)}`;
    const r = await run([...words, typo, "x"]);
    assert.equal(r.status, 2, `${line} ${typo}`);
    assert.match(r.err, new RegExp(`Unknown flag ${typo} .*Did you mean --`), `${line} ${typo}`);
  }
});

Deno.test("a missing argument is named, on every command that requires one", async () => {
  for (const [words, spec] of leafCommands()) {
    const required = Object.entries(spec.positionals ?? {}).filter(([, p]) => p.required);
    if (required.length === 0) continue;
    const r = await run(words);
    const line = words.join(" ");
    assert.equal(r.status, 2, `${line}: ${r.err}`);
    const [name] = required[0]!;
    assert.match(r.err, new RegExp(`Missing argument <${name}(\\.\\.)?>: \\S`), line);
    assert.match(r.err, new RegExp(`Run 'toolkit ${line} --help' for usage`), line);
  }
});

Deno.test("--help of every command and group shows its usage, arguments and every flag", async () => {
  const groups: string[][] = [[]];
  const visit = (specs: typeof COMMANDS, path: string[]) => {
    for (const spec of specs) {
      const words = [...path, commandName(spec)];
      if (spec.subcommands) {
        groups.push(words);
        visit(spec.subcommands, words);
      }
    }
  };
  visit(COMMANDS, []);
  for (const words of groups) {
    const r = await run([...words, "--help"]);
    assert.equal(r.status, 0, words.join(" "));
    assert.match(r.out, /Commands:/, words.join(" "));
  }
  for (const [words, spec] of leafCommands()) {
    const line = words.join(" ");
    for (const args of [[...words, "--help"], [...words, "-h"]]) {
      const r = await run(args);
      assert.equal(r.status, 0, line);
      assert.equal(r.err, "", line);
      assert.ok(
        r.out.startsWith(`toolkit ${[...words.slice(0, -1), spec.usage].join(" ")}\n`),
        line,
      );
      for (const [name, flag] of Object.entries(spec.flags ?? {})) {
        if (flag.hidden) continue;
        assert.ok(r.out.includes(`--${name}`), `${line} --help shows --${name}`);
        if (flag.type === "number") {
          assert.match(r.out, new RegExp(`--${name} <number>`), `${line} --${name}`);
        }
      }
      for (const name of Object.keys(spec.positionals ?? {})) {
        assert.match(r.out, new RegExp(`[<\\[]${name}(\\.\\.)?[>\\]]`), `${line} ${name}`);
      }
      assert.doesNotMatch(r.out, /\[string\]/, line);
    }
  }
});

Deno.test("every example in help starts with the words of its command", () => {
  const visit = (specs: typeof COMMANDS, path: string[]) => {
    for (const spec of specs) {
      const words = [...path, commandName(spec)];
      const spellings = [commandName(spec), ...(spec.aliases ?? [])].map((name) =>
        [...path, name].join(" ")
      );
      for (const [example] of spec.examples ?? []) {
        assert.ok(
          spellings.some((s) => example === s || example.startsWith(`${s} `)),
          `${words.join(" ")}: ${example}`,
        );
      }
      if (spec.subcommands) visit(spec.subcommands, words);
    }
  };
  visit(COMMANDS, []);
});

Deno.test("--debug or -v together with --quiet is a usage error", async () => {
  for (const args of [["--debug", "--quiet"], ["-v", "--quiet"]]) {
    const r = await run(["image-security", "doctor", ...args]);
    assert.equal(r.status, 2, args.join(" "));
    assert.match(r.err, /^error: Cannot use (--debug|-v\/--verbose) with --quiet/, "said first");
  }
});

Deno.test("a failure exits 1 without a usage hint; a usage error exits 2 with it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const io = bufferedIO({ cwd: dir });
    const status = await runCli(
      ["image-security", "verify", "localhost:1/x:1", "--key", "missing.asc"],
      commandContext(io),
    );
    assert.equal(status, 2, io.err());
    assert.match(io.err(), /Run 'toolkit image-security verify --help' for usage/);
    // A cluster nobody listens at: a failure, not a mistake in the command line.
    await Deno.writeTextFile(`${dir}/kubeconfig`, unreachableKubeconfig());
    const failed = bufferedIO({ cwd: dir });
    const code = await runCli(
      ["endpoints", "-n", "dev", "--kubeconfig", `${dir}/kubeconfig`],
      commandContext(failed),
    );
    assert.equal(code, 1, failed.err());
    assert.match(
      failed.err(),
      /Cannot reach the API server https:\/\/127\.0\.0\.1:\d+ of context "x" \(/,
    );
    // The network error's own words are in the message once, without a stray tail.
    assert.match(failed.err(), /or pass --kubeconfig\/--context\n$/);
    assert.doesNotMatch(failed.err(), /: fetch failed/);
    assert.doesNotMatch(failed.err(), /--help/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A kubeconfig whose API server is a port nobody listens on. */
function unreachableKubeconfig(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: `https://127.0.0.1:${port}` } }],
    users: [{ name: "u", user: { token: "t" } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });
}
