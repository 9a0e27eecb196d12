/**
 * mikefarah/yq v3.4.1's own command tests, run against `toolkit yq`: a suite nobody here wrote.
 * The cases are data (`yq_v3/cases.yaml`: each test's inputs, arguments and expected output or
 * error, with yq's fixtures in `yq_v3/examples/`); this runner runs each one in-process through
 * the CLI entry, as `toolkit yq ARGS` in a directory where yq's `../examples/...` paths hold
 * yq's fixtures, and checks what yq's test checked: the output (exactly, or modulo whitespace
 * where toolkit keeps the input's layout), the error, the file written in place. A case marked
 * as a deliberate difference must do what `toolkit` says instead (each difference is one entry
 * of `differences`, documented in docs/yq.md), so that it cannot drift either.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";
import { parseYaml, parseYamlDocuments } from "../../lib/yaml.ts";
import { tempDir } from "../env/files.ts";

const HERE = new URL("./yq_v3/", import.meta.url).pathname;

/** What a run should give. */
interface Expectation {
  readonly stdout?: string;
  readonly trim?: boolean;
  readonly error?: string;
  readonly status?: number;
  readonly message?: string;
  readonly fileAfter?: Readonly<Record<string, string>>;
  readonly fileMode?: string;
  readonly layout?: boolean;
}

/** One of yq's test cases. */
interface Case extends Expectation {
  readonly name: string;
  readonly source: string;
  readonly args: readonly string[];
  readonly files?: Readonly<Record<string, string | { readonly copy: string }>>;
  readonly stdin?: string;
  readonly differs?: string;
  readonly toolkit?: Expectation;
}

interface Suite {
  readonly differences: Readonly<Record<string, string>>;
  readonly cases: readonly Case[];
}

const suite = parseYaml(await Deno.readTextFile(`${HERE}cases.yaml`)) as Suite;

/** The text without any whitespace. */
function squeezed(text: string): string {
  return text.replace(/\s+/g, "");
}

/** The data of a YAML stream, or `undefined` when the text is not YAML. */
function dataOf(text: string): unknown {
  try {
    return parseYamlDocuments(text, { uniqueKeys: false });
  } catch {
    return undefined;
  }
}

/**
 * Asserts that `actual` is `expected`: exactly, without the surrounding `"\n "` (`trim`, as
 * yq's test trimmed), or modulo whitespace (`layout`): the same characters apart from spaces and
 * line breaks, and, when both are YAML, the same data.
 */
function assertOutput(actual: string, expected: string, how: Expectation, what: string): void {
  const trim = (s: string) => how.trim ? s.replace(/^[\n ]+|[\n ]+$/g, "") : s;
  if (!how.layout) {
    assert.equal(trim(actual), trim(expected), what);
    return;
  }
  assert.equal(squeezed(actual), squeezed(expected), `${what} (modulo whitespace)\n${actual}`);
  const data = dataOf(expected);
  if (data !== undefined) assert.deepEqual(dataOf(actual), data, `${what}: the same data`);
}

/** Copies the directory `from` to `to`. */
async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** Runs one case and checks it against `expect`. */
async function check(c: Case, expect: Expectation): Promise<void> {
  await using dir = await tempDir("toolkit-yq-v3-");
  await copyDir(`${HERE}examples`, `${dir.path}/examples`);
  const cwd = `${dir.path}/cmd`;
  await Deno.mkdir(cwd);
  const paths: Record<string, string> = {};
  for (const [name, content] of Object.entries(c.files ?? {})) {
    const path = `${dir.path}/${name}`;
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.copyFile(`${cwd}/${content.copy}`, path);
    if (expect.fileMode) await Deno.chmod(path, parseInt(expect.fileMode, 8));
    paths[name] = path;
  }
  const args = c.args.map((arg) =>
    arg.replace(/\{(\w+)\}/g, (_, name: string) => {
      assert.ok(paths[name], `the case has a file ${name}`);
      return paths[name]!;
    })
  );
  const io = bufferedIO({ cwd, stdin: c.stdin ?? "" });
  const status = await runCli(["yq", ...args], commandContext(io));
  const out = io.out();
  const err = io.err();
  const line = `yq ${c.args.join(" ")}`;

  if (expect.error !== undefined) {
    assert.equal(status, expect.status ?? 1, `${line}: fails (${expect.error})\n${err}`);
    if (expect.message) assert.match(err, new RegExp(expect.message), line);
    assert.equal(out, "", `${line}: prints nothing on stdout`);
  } else {
    assert.equal(status, expect.status ?? 0, `${line}: exit status\n${err}`);
    if (expect.stdout !== undefined) assertOutput(out, expect.stdout, expect, line);
  }
  for (const [name, content] of Object.entries(expect.fileAfter ?? {})) {
    assertOutput(await Deno.readTextFile(paths[name]!), content, expect, `${line}: ${name}`);
  }
  if (expect.fileMode) {
    for (const path of Object.values(paths)) {
      assert.equal((await Deno.stat(path)).mode! & 0o777, parseInt(expect.fileMode, 8), line);
    }
  }
}

Deno.test("yq v3.4.1's command tests pass against toolkit yq", async (t) => {
  let same = 0;
  let layout = 0;
  const differing = new Map<string, string[]>();
  for (const c of suite.cases) {
    await t.step(`${c.name} (${c.source}): yq ${c.args.join(" ")}`, async () => {
      if (c.differs !== undefined) {
        assert.ok(suite.differences[c.differs], `"${c.differs}" is a documented difference`);
        assert.ok(c.toolkit, "a difference says what toolkit does instead");
        await check(c, c.toolkit);
        differing.set(c.differs, [...differing.get(c.differs) ?? [], c.name]);
        return;
      }
      await check(c, c);
      if (c.layout) layout++;
      else same++;
    });
  }
  const total = suite.cases.length;
  const lines = [
    `yq v3.4.1 command tests: ${same + layout} of ${total} pass as yq's ` +
    `(${same} exactly, ${layout} modulo whitespace), ` +
    `${[...differing.values()].flat().length} deliberate differences:`,
    ...[...differing].map(([id, names]) => `  ${id}: ${names.join(", ")}`),
  ];
  Deno.stderr.writeSync(new TextEncoder().encode(`${lines.join("\n")}\n`));
});
