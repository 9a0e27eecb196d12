import assert from "node:assert/strict";
import { command, type CommandSpec, defineCommand, group } from "./command.ts";
import { CommandLineError, editDistance, nearest, parseCommandLine } from "./parse.ts";

const SHOW = defineCommand({
  usage: "show <name> [rest..]",
  describe: "Show",
  positionals: {
    name: { type: "string", required: true, describe: "The name to show" },
    rest: { type: "string", variadic: true, describe: "More" },
  },
  flags: {
    namespace: { type: "string", alias: "n", describe: "The namespace (default: the context's)" },
    doc: { type: "string", alias: "d", default: "0", describe: "The document" },
    inplace: { type: "boolean", alias: "i", describe: "In place" },
    wait: { type: "boolean", default: true, describe: "Wait" },
    replicas: { type: "number", describe: "Replicas" },
    param: { type: "array", alias: "p", describe: "name=value" },
    templateNamespace: { type: "string", alias: "t", describe: "The template namespace" },
    "no-match": { type: "string", describe: "What to do with no match" },
  },
});
const noop = () => Promise.resolve(0);
const COMMANDS: readonly CommandSpec[] = [
  command(SHOW, () => Promise.resolve(noop)),
  group(defineCommand({ usage: "grp <command>", describe: "A group" }), [
    command(defineCommand({ usage: "sub", describe: "Sub" }), () => Promise.resolve(noop)),
  ]),
];

function values(argv: string[]): Record<string, unknown> {
  const parsed = parseCommandLine(COMMANDS, argv);
  assert.equal(parsed.kind, "run");
  return { ...(parsed as { values: Record<string, unknown> }).values };
}

function refused(argv: string[], message: RegExp, command = "show"): void {
  assert.throws(
    () => parseCommandLine(COMMANDS, argv),
    (e: unknown) =>
      e instanceof CommandLineError && message.test(e.message) &&
      e.command.join(" ") === command,
    argv.join(" "),
  );
}

Deno.test("parseCommandLine() takes values as pflag and kubectl do", () => {
  assert.deepEqual(values(["show", "a", "-n", "dev"]), { name: "a", rest: [], namespace: "dev" });
  assert.equal(values(["show", "a", "--namespace=dev"]).namespace, "dev");
  assert.equal(values(["show", "a", "-ndev"]).namespace, "dev");
  assert.equal(values(["show", "a", "-n=dev"]).namespace, "dev");
  assert.equal(values(["show", "-n", "dev", "a"]).name, "a", "flags before positionals");
  // yq's attached values: -d1, -d*, -df
  assert.equal(values(["show", "a", "-d1"]).doc, "1");
  assert.equal(values(["show", "a", "-d*"]).doc, "*");
  assert.equal(values(["show", "a", "-df"]).doc, "f");
  // a cluster of booleans whose last letter takes the value
  assert.deepEqual(values(["show", "a", "-in", "dev"]), {
    name: "a",
    rest: [],
    inplace: true,
    namespace: "dev",
  });
  // a value that starts with "-" is written with "="
  assert.equal(values(["show", "a", "--namespace=-x"]).namespace, "-x");
  assert.equal(values(["show", "a", "--replicas", "-1"]).replicas, "-1", "a negative number");
  assert.equal(values(["show", "a", "--replicas", "3"]).replicas, "3", "checked by resolveOptions");
  // camelCase and kebab-case spellings of igc's flags
  assert.equal(values(["show", "a", "--template-namespace", "t"]).templateNamespace, "t");
  assert.equal(values(["show", "a", "--templateNamespace", "t"]).templateNamespace, "t");
  // repeated: an array (resolveOptions refuses it for a flag taken once)
  assert.deepEqual(values(["show", "a", "-p", "a=1", "--param", "b=2"]).param, ["a=1", "b=2"]);
  assert.deepEqual(values(["show", "a", "-n", "x", "-n", "y"]).namespace, ["x", "y"]);
  // a flag whose name starts with no- is itself, not a negation
  assert.equal(values(["show", "a", "--no-match", "deny"])["no-match"], "deny");
});

Deno.test("parseCommandLine() takes booleans as --flag, --flag=false, --no-flag", () => {
  assert.equal(values(["show", "a", "-i"]).inplace, true);
  assert.equal(values(["show", "a", "--wait=false"]).wait, false);
  assert.equal(values(["show", "a", "--no-wait"]).wait, false);
  assert.equal(values(["show", "a", "-i=false"]).inplace, false);
  assert.equal(values(["show", "a", "--wait", "false"]).wait, false, "igc's yargs took the word");
  refused(["show", "a", "--wait=maybe"], /--wait is true or false, not "maybe"/);
  refused(["show", "a", "--no-wait=true"], /--no-wait takes no value/);
});

Deno.test("parseCommandLine() keeps - and the words after -- as positionals", () => {
  assert.deepEqual(values(["show", "-", "--", "-x", "--y"]), {
    name: "-",
    rest: ["-x", "--y"],
  });
  assert.equal(values(["show", "a", "-n", "-"]).namespace, "-", "- is a value (stdin)");
});

Deno.test("parseCommandLine() refuses a flag without its value, naming it", () => {
  refused(["show", "a", "-n"], /^Flag -n \(--namespace\) needs a value: the namespace$/);
  refused(["show", "a", "--namespace"], /^Flag --namespace needs a value/);
  refused(["show", "a", "-n", "--wait"], /-n \(--namespace\) needs a value.*"--wait" is a flag/);
  refused(["show", "a", "-n", "-i"], /needs a value.*write -n=VALUE|written -n=VALUE/);
  refused(["show", "a", "-n", "--", "x"], /-n \(--namespace\) needs a value/);
  refused(["show", "a", "-in"], /-n \(--namespace\) needs a value/);
  refused(["show", "a", "--replicas"], /--replicas needs a value/);
});

Deno.test("parseCommandLine() refuses unknown flags with their dashes and the nearest one", () => {
  refused(
    ["show", "a", "--namepsace", "x"],
    /^Unknown flag --namepsace of "show". Did you mean --namespace\?$/,
  );
  refused(["show", "a", "--bogus"], /^Unknown flag --bogus of "show"$/);
  refused(["show", "a", "-z"], /^Unknown flag -z of "show"$/);
  refused(
    ["show", "a", "-namespace", "x"],
    /long flags take two dashes. Did you mean --namespace\?/,
  );
  refused(["show", "a", "--nam", "x"], /Did you mean --namespace\?/);
  refused(["show", "--nme", "x"], /the name is an argument, not a flag \(show <name>\)/);
  refused(["grp", "sub", "-z"], /^Unknown flag -z of "grp sub"$/, "grp sub");
  refused(["show", "-r", "x"], /the rest is an argument, not a flag \(show \[rest\.\.\]\)/);
  refused(["show", "a", "--no-namespace"], /Unknown flag --no-namespace/);
});

Deno.test("parseCommandLine() names a missing argument and refuses extra ones", () => {
  refused(["show"], /^Missing argument <name>: the name to show$/);
  refused(["show", "-n", "x"], /^Missing argument <name>/);
  refused(["grp", "sub", "x"], /^Unexpected argument "x": "sub" takes no arguments$/, "grp sub");
});

Deno.test("parseCommandLine() finds commands, groups, help and the version", () => {
  refused(["shwo"], /^Unknown command "shwo". Did you mean show\?$/, "");
  refused(["grp"], /^Choose a command of "grp": sub$/, "grp");
  refused(["grp", "sbu"], /^Unknown command "sbu" of "grp". Did you mean sub\?$/, "grp");
  refused(["--bogus", "grp"], /Unknown flag --bogus of "grp": flags go after the command/, "grp");
  refused(
    ["-n", "dev", "show", "a"],
    /^Flags go after the command: "-n dev" comes before any command$/,
    "",
  );
  assert.deepEqual(parseCommandLine(COMMANDS, ["--version"]), { kind: "version" });
  const help = parseCommandLine(COMMANDS, ["grp", "sub", "--bogus", "-h"]);
  assert.equal(help.kind, "help");
  assert.deepEqual(help.kind === "help" && help.path.map((c) => c.usage), ["grp <command>", "sub"]);
  const flagsFirst = parseCommandLine(COMMANDS, ["-v", "show", "a"]);
  assert.equal(flagsFirst.kind === "run" && flagsFirst.values.verbose, true);
});

Deno.test("nearest() suggests only what is near enough", () => {
  assert.equal(editDistance("namepsace", "namespace"), 1);
  assert.equal(nearest("--kye", ["--key", "--format"]), "--key");
  assert.equal(nearest("--bogus", ["--key", "--format"]), undefined);
  assert.equal(nearest("synk", ["sync", "pull-secret"]), "sync");
});
