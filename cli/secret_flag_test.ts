/**
 * `resolveSecret` on its own: each source (file, environment, stdin, the terminal, the argument),
 * the one warning of an argument, two sources at once (usage error), and what cannot be read or is
 * empty (failure naming the file); no message holds the secret. The commands that use it are
 * tested beside them (`dev/pipeline_test.ts`, `dev/git_secret_test.ts`, …).
 */
import assert from "node:assert/strict";
import { bufferedIO } from "./io.ts";
import { MAX_SECRET_BYTES, resolveSecret, type SecretFlag } from "./secret_flag.ts";
import type { Terminal, TextQuestion } from "./terminal.ts";
import { ToolkitError, UsageError } from "../lib/errors.ts";
import { assertNoCanary, canary, rejection } from "../tests/fakes/secret_canary.ts";

const FLAG = {
  what: "git token",
  flag: "-P/--password",
  fileFlag: "--git-token-file",
  env: ["TOOLKIT_GIT_TOKEN"],
} as const;

function sources(given: { value?: string; file?: string } = {}): SecretFlag {
  return { ...FLAG, value: given.value, file: given.file };
}

/** A terminal that answers `answer` and keeps each question. */
function terminal(answer: string): Terminal & { questions: TextQuestion[] } {
  const questions: TextQuestion[] = [];
  return {
    questions,
    askText: (q) => (questions.push(q), Promise.resolve(answer)),
    askChoice: () => Promise.reject(new Error("no menu expected")),
    askConfirm: () => Promise.reject(new Error("no question expected")),
  };
}

const NO_TERMINAL = terminal("");

async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "toolkit_secret_flag_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("resolveSecret: none given is undefined, and nothing is said", async () => {
  const io = bufferedIO();
  assert.equal(await resolveSecret(sources(), { io, terminal: NO_TERMINAL }), undefined);
  assert.equal(
    await resolveSecret(sources({ value: "", file: "" }), { io, terminal: NO_TERMINAL }),
    undefined,
  );
  assert.equal(io.err() + io.out(), "");
});

Deno.test("resolveSecret: a file, its final newline stripped, relative to the working directory", async () => {
  await using tmp = await tempDir();
  const dir = tmp.path;
  const secret = canary();
  await Deno.writeTextFile(`${dir}/token`, `${secret}\r\n`);
  const io = bufferedIO({ cwd: dir });
  const got = await resolveSecret(sources({ file: "token" }), { io, terminal: NO_TERMINAL });
  assert.deepEqual(got, { value: secret, source: '--git-token-file "token"' });
  const absolute = await resolveSecret(sources({ file: `${dir}/token` }), {
    io,
    terminal: NO_TERMINAL,
  });
  assert.equal(absolute?.value, secret);
  assert.equal(io.err(), "", "no warning for a file");
});

Deno.test("resolveSecret: the environment variable", async () => {
  const secret = canary();
  const io = bufferedIO({ env: { TOOLKIT_GIT_TOKEN: `${secret}\n` } });
  const got = await resolveSecret(sources(), { io, terminal: NO_TERMINAL });
  assert.deepEqual(got, { value: secret, source: "$TOOLKIT_GIT_TOKEN" });
  assert.equal(io.err(), "");
  const empty = bufferedIO({ env: { TOOLKIT_GIT_TOKEN: "" } });
  assert.equal(await resolveSecret(sources(), { io: empty, terminal: NO_TERMINAL }), undefined);
});

Deno.test("resolveSecret: - reads one line of standard input", async () => {
  const secret = canary();
  for (const stdin of [secret, `${secret}\n`, `${secret}\r\n`, `${secret}\n\n`]) {
    const io = bufferedIO({ stdin });
    const got = await resolveSecret(sources({ value: "-" }), { io, terminal: NO_TERMINAL });
    assert.deepEqual(got, { value: secret, source: "standard input" });
    assert.equal(io.err(), "");
  }
});

Deno.test("resolveSecret: - on a terminal asks without echo, and refuses when it cannot ask", async () => {
  const secret = canary();
  const asked = terminal(secret);
  const io = bufferedIO({ interactive: true, stdin: "never read" });
  const got = await resolveSecret(sources({ value: "-" }), { io, terminal: asked });
  assert.deepEqual(got, { value: secret, source: "terminal" });
  assert.equal(asked.questions.length, 1);
  assert.equal(asked.questions[0]!.secret, true, "asked without echo");
  assert.equal(asked.questions[0]!.message, "The git token:");

  // stdin a terminal, stderr not: a question cannot be drawn, and typing would echo.
  const blind = bufferedIO({ interactive: false, stdinIsTerminal: true });
  const error = await rejection(
    resolveSecret(sources({ value: "-" }), { io: blind, terminal: asked }),
  );
  assert.ok(error instanceof UsageError);
  assert.match(
    error.message,
    /-P - reads the git token from standard input, which is a terminal.*pipe it in \(-P - < FILE\), or pass --git-token-file FILE/,
  );
  assert.equal(asked.questions.length, 1);
});

Deno.test("resolveSecret: an argument works and warns once, naming what to use instead", async () => {
  const secret = canary();
  const io = bufferedIO();
  const got = await resolveSecret(sources({ value: secret }), { io, terminal: NO_TERMINAL });
  assert.deepEqual(got, { value: secret, source: "-P/--password" });
  assert.equal(io.err().split("\n").filter(Boolean).length, 1, io.err());
  assert.match(
    io.err(),
    /^warning: the git token given as -P\/--password's value can be read by every user of this machine \(ps\) and stays in your shell's history: pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN, or give -P - to read it from standard input\n$/,
  );
  assert.ok(!io.err().includes(secret) && !io.err().includes("CANARY"));
});

Deno.test("resolveSecret: two sources at once are a usage error naming both, never the secret", async () => {
  await using tmp = await tempDir();
  const dir = tmp.path;
  const secret = canary();
  await Deno.writeTextFile(`${dir}/token`, secret);
  const cases: [SecretFlag, Record<string, string>, RegExp][] = [
    [sources({ value: secret, file: "token" }), {}, /both -P\/--password and --git-token-file/],
    [sources({ value: "-", file: "token" }), {}, /both -P\/--password - and --git-token-file/],
    [
      sources({ value: secret }),
      { TOOLKIT_GIT_TOKEN: secret },
      /both -P\/--password and \$TOOLKIT_GIT_TOKEN/,
    ],
    [
      sources({ file: "token" }),
      { TOOLKIT_GIT_TOKEN: secret },
      /both --git-token-file and \$TOOLKIT_GIT_TOKEN/,
    ],
    [
      { ...sources(), env: ["TOOLKIT_GIT_TOKEN", "API_TOKEN"] },
      { TOOLKIT_GIT_TOKEN: secret, API_TOKEN: secret },
      /both \$TOOLKIT_GIT_TOKEN and \$API_TOKEN/,
    ],
  ];
  for (const [flag, env, says] of cases) {
    const io = bufferedIO({ env, cwd: dir, stdin: secret });
    const error = await rejection(resolveSecret(flag, { io, terminal: NO_TERMINAL }));
    assert.ok(error instanceof UsageError, String(error));
    assert.match(error.message, /^Give the git token once: /);
    assert.match(error.message, says);
    assert.match(
      error.message,
      /keep one of --git-token-file FILE, \$TOOLKIT_GIT_TOKEN.* or -P -\)$/,
    );
    assertNoCanary(error, secret);
    assert.equal(io.err(), "", "no warning before the refusal");
  }
});

Deno.test("resolveSecret: a file that cannot be read, or is empty, fails naming the file", async () => {
  await using tmp = await tempDir();
  const dir = tmp.path;
  const secret = canary();
  await Deno.writeTextFile(`${dir}/empty`, "\n");
  await Deno.writeTextFile(`${dir}/two`, `${secret}\n${secret}\n`);
  await Deno.writeTextFile(`${dir}/big`, "x".repeat(MAX_SECRET_BYTES + 1));
  await Deno.writeFile(`${dir}/binary`, new Uint8Array([0xff, 0xfe, 0x41]));
  await Deno.mkdir(`${dir}/dir`);
  const io = bufferedIO({ cwd: dir });
  const cases: [string, RegExp][] = [
    ["missing", /^Cannot read --git-token-file "missing"/],
    ["dir", /^Cannot read --git-token-file "dir"/],
    ["empty", /^Cannot use --git-token-file "empty": it is empty$/],
    ["two", /^Cannot use --git-token-file "two": it holds more than one line$/],
    ["big", /^Cannot use --git-token-file "big": it holds more than 65536 bytes/],
    ["binary", /^Cannot use --git-token-file "binary": it is not UTF-8 text$/],
  ];
  for (const [file, says] of cases) {
    const error = await rejection(resolveSecret(sources({ file }), { io, terminal: NO_TERMINAL }));
    assert.ok(error instanceof ToolkitError && !(error instanceof UsageError), `${file}: ${error}`);
    assert.match(error.message, says);
    assertNoCanary(error, secret);
  }
  for (const stdin of ["", "\n", `${secret}\n${secret}`, "x".repeat(MAX_SECRET_BYTES + 1)]) {
    const error = await rejection(
      resolveSecret(sources({ value: "-" }), { io: bufferedIO({ stdin }), terminal: NO_TERMINAL }),
    );
    assert.ok(error instanceof ToolkitError && !(error instanceof UsageError), String(error));
    assert.match(error.message, /^Cannot use (standard input|-P -)/);
    assertNoCanary(error, secret);
  }
  const env = bufferedIO({ env: { TOOLKIT_GIT_TOKEN: `${secret}\nmore` } });
  const error = await rejection(resolveSecret(sources(), { io: env, terminal: NO_TERMINAL }));
  assert.match(
    String((error as Error).message),
    /^Cannot use \$TOOLKIT_GIT_TOKEN: it holds more than one line$/,
  );
  assertNoCanary(error, secret);
});
