import assert from "node:assert/strict";
import { defineOptions } from "./options.ts";
import { camelCase, resolveOptions } from "./options.ts";
import { UsageError } from "../lib/errors.ts";

const SPEC = defineOptions({
  positionals: {
    name: { type: "string", required: true, describe: "a name" },
    rest: { type: "string", variadic: true, describe: "more" },
  },
  flags: {
    output: {
      type: "string",
      alias: "o",
      choices: ["text", "json"],
      default: "text",
      describe: "",
    },
    "wait-timeout": { type: "number", default: 180, describe: "" },
    replicas: { type: "number", describe: "" },
    force: { type: "boolean", describe: "" },
    wait: { type: "boolean", default: true, describe: "" },
    lookaside: { type: "array", describe: "" },
    token: { type: "string", env: "TOKEN", describe: "" },
    verified: { type: "boolean", env: "VERIFIED", describe: "" },
    key: { type: "string", demandOption: true, describe: "" },
  },
});

Deno.test("resolveOptions() gives each flag its camelCase name, its type and its default", () => {
  const o = resolveOptions(SPEC, { name: "x", key: "k.asc" }, {});
  assert.deepEqual(o, {
    name: "x",
    rest: [],
    output: "text",
    waitTimeout: 180,
    replicas: undefined,
    force: false,
    wait: true,
    lookaside: [],
    token: undefined,
    verified: false,
    key: "k.asc",
    verbose: false,
    quiet: false,
  });
  // The type follows the declaration: these lines only compile when it does.
  const timeout: number = o.waitTimeout;
  const output: "text" | "json" = o.output;
  const replicas: number | undefined = o.replicas;
  const rest: readonly string[] = o.rest;
  assert.equal(typeof timeout + output + String(replicas) + rest.length, "numbertextundefined0");
});

Deno.test("resolveOptions() reads a flag's environment variable only when it is not given", () => {
  const env = { TOKEN: "from-env", VERIFIED: "yes" };
  assert.equal(resolveOptions(SPEC, { name: "x", key: "k" }, env).token, "from-env");
  assert.equal(resolveOptions(SPEC, { name: "x", key: "k", token: "flag" }, env).token, "flag");
  assert.equal(resolveOptions(SPEC, { name: "x", key: "k" }, env).verified, true);
  assert.throws(
    () => resolveOptions(SPEC, { name: "x", key: "k" }, { VERIFIED: "maybe" }),
    (e: unknown) => e instanceof UsageError && /\$VERIFIED/.test(e.message),
  );
});

Deno.test("resolveOptions() refuses values its declaration does not allow, naming the flag", () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ name: "x", key: "k", output: "xml" }, /--output must be one of text, json, not "xml"/],
    [{ name: "x", key: "k", replicas: Number.NaN }, /--replicas must be a number/],
    [{ name: "x", key: "k", replicas: "three" }, /--replicas must be a number/],
    [{ name: "x", key: "k", token: ["a", "b"] }, /--token was given 2 times/],
    [{ key: "k" }, /Give the name/],
    [{ name: "x" }, /Missing required flag --key/],
  ];
  for (const [parsed, message] of bad) {
    assert.throws(
      () => resolveOptions(SPEC, parsed, {}),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
      JSON.stringify(parsed),
    );
  }
});

Deno.test("resolveOptions() takes -v, igc's --debug and --quiet for every command", () => {
  assert.equal(resolveOptions(SPEC, { name: "x", key: "k", verbose: true }, {}).verbose, true);
  assert.equal(resolveOptions(SPEC, { name: "x", key: "k", debug: true }, {}).verbose, true);
  assert.equal(resolveOptions(SPEC, { name: "x", key: "k", quiet: true }, {}).quiet, true);
});

Deno.test("camelCase() turns a flag name into its property name", () => {
  assert.equal(camelCase("wait-timeout"), "waitTimeout");
  assert.equal(camelCase("identity-rule"), "identityRule");
  assert.equal(camelCase("registries.d"), "registries.d");
  assert.equal(camelCase("templateNamespace"), "templateNamespace");
});

Deno.test("resolveOptions() takes an empty positional as missing, unless it allows empty", () => {
  const spec = defineOptions({
    positionals: {
      name: { type: "string", required: true, describe: "" },
      value: { type: "string", required: true, allowEmpty: true, describe: "" },
    },
  });
  assert.throws(() => resolveOptions(spec, { name: "", value: "" }, {}), /Give the name/);
  assert.equal(resolveOptions(spec, { name: "n", value: "" }, {}).value, "");
  assert.throws(() => resolveOptions(spec, { name: "n" }, {}), /Give the value/);
});

Deno.test("resolveOptions() turns a trueWhen boolean on from its environment variable, unless the command line says no", () => {
  const spec = defineOptions({
    flags: {
      throttle: {
        type: "boolean",
        describe: "throttle",
        trueWhen: { env: "CLOUDSHELL", value: "true" },
      },
    },
  });
  assert.equal(resolveOptions(spec, {}, {}).throttle, false);
  assert.equal(resolveOptions(spec, {}, { CLOUDSHELL: "true" }).throttle, true);
  assert.equal(resolveOptions(spec, {}, { CLOUDSHELL: "yes please" }).throttle, false);
  assert.equal(resolveOptions(spec, { throttle: false }, { CLOUDSHELL: "true" }).throttle, false);
  assert.equal(resolveOptions(spec, { throttle: true }, {}).throttle, true);
});

Deno.test("resolveOptions() leaves an undecided boolean undefined unless --flag or --no-flag says", () => {
  const spec = defineOptions({
    flags: { sign: { type: "boolean", undecided: true, describe: "sign" } },
  });
  const absent: boolean | undefined = resolveOptions(spec, {}, {}).sign;
  assert.equal(absent, undefined);
  assert.equal(resolveOptions(spec, { sign: true }, {}).sign, true);
  assert.equal(resolveOptions(spec, { sign: false }, {}).sign, false);
});
