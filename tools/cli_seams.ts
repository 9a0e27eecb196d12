/**
 * The seams of the CLI, checked on its source: a command reaches the outside world only through
 * its {@linkcode CommandContext} (`cli/command.ts`), which `cli/context.ts` wires once. So no
 * production file of `cli/` but that one calls the global `fetch` (or hands it on), starts a program itself
 * (`Deno.Command`, `Deno.run`, `node:child_process`), reads the clock (`Date.now()`,
 * `new Date()` without an argument) or builds a registry client (`createRegistryClient`: named at
 * all, so that an import under another name is refused too). Tests may. `tools/layering.ts` runs it with the import rules (rule `cli-seam`).
 *
 * @module
 */

/** A broken rule, as `tools/layering.ts` reports it. */
export interface Violation {
  readonly rule: string;
  readonly message: string;
}

/** The one file of `cli/` that wires the real world into the command context. */
export const CLI_WIRING_FILE = "cli/context.ts";

/** What a command must not do itself, and what it uses instead. */
const FORBIDDEN: readonly { readonly pattern: RegExp; readonly instead: string }[] = [
  {
    // Called, or handed on as a value (`const f = fetch;`, `{ fetch: fetch }`, `?? fetch`).
    pattern:
      /(?<![\w.$])(?:globalThis\.)?fetch\s*\(|globalThis\.fetch\b|(?:[=(,?|&:]|\breturn)\s*fetch\s*(?=[,;)}\]]|$)/,
    instead:
      "the global fetch: use ctx.fetch (or networkFetch/observedContextFetch of cli/network.ts)",
  },
  // Named at all: `const C = Deno.Command; new C(…)` starts a program too.
  { pattern: /\bDeno\.Command\b/, instead: "a Deno.Command: use ctx.processes" },
  { pattern: /\bDeno\.run\s*\(/, instead: "Deno.run: use ctx.processes" },
  { pattern: /["'](?:node:)?child_process["']/, instead: "child_process: use ctx.processes" },
  { pattern: /\bDate\.now\s*\(/, instead: "Date.now(): use ctx.clock.now()" },
  { pattern: /\bnew\s+Date\s*\(\s*\)/, instead: "new Date(): use new Date(ctx.clock.now())" },
  {
    // Named at all: an import under another name (`as connect`) builds one too.
    pattern: /\bcreateRegistryClient\b/,
    instead: "a registry client built by a command: use ctx.registry(…)",
  },
];

/** `text` without its comments (strings are kept; a `//` inside a string ends nothing). */
export function stripComments(text: string): string {
  let out = "";
  let i = 0;
  let quote: string | undefined;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (quote !== undefined) {
      out += c;
      if (c === "\\") {
        out += next ?? "";
        i += 2;
        continue;
      }
      if (c === quote) quote = undefined;
      i++;
      continue;
    }
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const comment = text.slice(i, end === -1 ? text.length : end + 2);
      out += comment.replace(/[^\n]/g, " ");
      i = end === -1 ? text.length : end + 2;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    out += c;
    i++;
  }
  return out;
}

/** Whether `path` is a production file of `cli/` that the seam rule concerns. */
export function isCommandSource(path: string): boolean {
  return path.startsWith("cli/") && path.endsWith(".ts") && !path.endsWith("_test.ts") &&
    !path.endsWith("_bench.ts") && path !== CLI_WIRING_FILE;
}

/** The violations of the seam rule in the files (path relative to the root, and text). */
export function checkCliSeams(
  files: readonly { readonly path: string; readonly text: string }[],
): Violation[] {
  const violations: Violation[] = [];
  for (const { path, text } of files) {
    if (!isCommandSource(path)) continue;
    const lines = stripComments(text).split("\n");
    lines.forEach((line, index) => {
      for (const { pattern, instead } of FORBIDDEN) {
        if (!pattern.test(line)) continue;
        violations.push({
          rule: "cli-seam",
          message: `${path}:${index + 1} reaches the outside world itself, with ${instead} ` +
            `(only ${CLI_WIRING_FILE} wires the real one)`,
        });
      }
    });
  }
  return violations;
}

/** The violations of the seam rule among `files` (paths relative to `root`). */
export async function readCliSeams(root: string, files: readonly string[]): Promise<Violation[]> {
  const sources = await Promise.all(
    files.filter(isCommandSource).map(async (path) => ({
      path,
      text: await Deno.readTextFile(`${root}/${path}`),
    })),
  );
  return checkCliSeams(sources);
}
