/**
 * The layering of toolkit, checked on its module graph (`deno info --json` of every `.ts` file
 * of `mod.ts`, `lib/`, `cli/`, `webhook/`, `tests/` and `tools/`; static, type-only and dynamic
 * imports alike). `deno task ok` runs it; it prints each violation and exits 1 when there is one.
 *
 * The rules (docs/architecture.md, "The checks"):
 *
 * 1. `cycle`: no import cycle anywhere (a type-only or a dynamic import counts too).
 * 2. `lib-upward`: nothing in `lib/` imports `cli/` or `webhook/`.
 * 3. `test-machinery`: production code (`mod.ts` and the files of `lib/`, `cli/`, `webhook/` and
 *    `tools/` that are not `*_test.ts` or `*_bench.ts`) imports nothing of `tests/` and no test.
 * 4. `mod-boundary`: a file of a `lib/` folder uses another `lib/` folder only through that
 *    folder's `mod.ts`, and so do `cli/` and `webhook/` (the files directly in `lib/`, such as
 *    `lib/errors.ts`, are modules of their own). Tests may reach inside.
 * 5. `command-list`: only `cli/app.ts` imports `cli/commands.ts`, and no module but
 *    `cli/commands.ts` imports a command's implementation (the modules it loads lazily): what
 *    two commands share lives in a shared module or in `lib/`.
 * 6. `cli-seam`: no production file of `cli/` but `cli/context.ts` calls the global `fetch`,
 *    starts a program (`Deno.Command`, `Deno.run`, `node:child_process`), reads the clock
 *    (`Date.now()`, `new Date()`) or builds a registry client: commands use their context
 *    (`tools/cli_seams.ts`, read from the source).
 * 7. `webhook-signing`: nothing reachable from `webhook/main.ts` (through any import) is signing
 *    code ({@linkcode isSigningCode}): the webhook verifies, it never holds a private key, so the
 *    code that makes keys and signatures or reaches a vault is not in its process.
 *
 * ```sh
 * tools/deno run -A tools/layering.ts
 * ```
 *
 * @module
 */

/** How one module imports another. */
export type ImportKind = "static" | "type" | "dynamic";

/** One import of the project's own modules, by paths relative to the repository root. */
export interface Import {
  readonly from: string;
  readonly to: string;
  readonly kind: ImportKind;
}

/** A broken rule. */
export interface Violation {
  /**
   * `cycle`, `lib-upward`, `test-machinery`, `mod-boundary`, `command-list`, `cli-seam` or
   * `webhook-signing`.
   */
  readonly rule: string;
  /** What is wrong, naming the modules. */
  readonly message: string;
}

/** The folders whose modules make up the project. */
export const PROJECT_ROOTS = ["mod.ts", "lib", "cli", "webhook", "tests", "tools"] as const;

const top = (path: string) => path.split("/")[0]!;

/** A test, a benchmark, or anything under `tests/`. */
export function isTestMachinery(path: string): boolean {
  return top(path) === "tests" || path.endsWith("_test.ts") || path.endsWith("_bench.ts");
}

/** `lib/<folder>` of a file in a folder of `lib/`, else undefined. */
function libFolder(path: string): string | undefined {
  const parts = path.split("/");
  return parts[0] === "lib" && parts.length > 2 ? parts[1] : undefined;
}

/** The webhook's entry point: what it reaches is its process. */
export const WEBHOOK_ENTRY = "webhook/main.ts";

/**
 * The folders and modules that sign or hold signing keys: lib/signing (simple and cosign
 * signatures made, signing keys made or read from a vault's material, the image-signing Secret),
 * the vault client (private keys), Tekton's signing tasks, and the library barrel that loads them
 * all (`lib/mod.ts`).
 */
const SIGNING_CODE: readonly string[] = ["lib/vault/", "lib/signing/", "lib/tekton/", "lib/mod.ts"];

/** Whether `path` is signing code, which the webhook must not reach. */
export function isSigningCode(path: string): boolean {
  return SIGNING_CODE.some((s) => s.endsWith("/") ? path.startsWith(s) : path === s);
}

/**
 * The signing code reachable from `entry`, each with one way there (`entry` first), found
 * breadth-first: the shortest import chain.
 */
export function reachableSigningCode(
  imports: readonly Import[],
  entry: string,
): { module: string; path: string[] }[] {
  const next = new Map<string, string[]>();
  for (const i of imports) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
  const cameFrom = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  const found: { module: string; path: string[] }[] = [];
  for (let at = 0; at < queue.length; at++) {
    const module = queue[at]!;
    if (isSigningCode(module)) {
      const path: string[] = [];
      for (let m: string | undefined = module; m !== undefined; m = cameFrom.get(m)) {
        path.unshift(m);
      }
      found.push({ module, path });
      continue; // one violation names the first signing module of a chain
    }
    for (const to of next.get(module) ?? []) {
      if (cameFrom.has(to)) continue;
      cameFrom.set(to, module);
      queue.push(to);
    }
  }
  return found;
}

/** An import cycle: the modules that import each other, and one way round them. */
export interface Cycle {
  /** Every module of the cycle (a strongly connected component of the graph), sorted. */
  readonly modules: readonly string[];
  /** One cycle through some of them, the first repeated at the end. */
  readonly path: readonly string[];
}

/** The import cycles, one per set of modules that import each other. */
export function findCycles(imports: readonly Import[]): Cycle[] {
  const next = new Map<string, string[]>();
  for (const i of imports) {
    const list = next.get(i.from) ?? [];
    if (!list.includes(i.to)) list.push(i.to);
    next.set(i.from, list);
  }
  // Tarjan's strongly connected components, iteratively (the graph has hundreds of modules).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const nodes = [...new Set([...next.keys(), ...imports.map((i) => i.to)])].sort();
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const edges = next.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = (next.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfImport) components.push(component.sort());
      }
    }
  }
  return components.map((modules) => ({ modules, path: cyclePath(modules, next) }));
}

/** One cycle through the modules of a component, for the message. */
function cyclePath(component: readonly string[], next: ReadonlyMap<string, string[]>): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const path = [start];
  const seen = new Set([start]);
  let at = start;
  for (;;) {
    const options = (next.get(at) ?? []).filter((n) => members.has(n));
    const back = options.find((n) => n === start);
    if (back !== undefined && path.length === component.length) return [...path, start];
    const step = options.find((n) => !seen.has(n)) ?? back ?? options[0]!;
    if (step === start || seen.has(step)) return [...path, step];
    path.push(step);
    seen.add(step);
    at = step;
  }
}

/** Every violation of the rules in the imports. */
export function checkLayering(imports: readonly Import[]): Violation[] {
  const violations: Violation[] = [];
  for (const cycle of findCycles(imports)) {
    const among = cycle.modules.length > 2 ? ` (${cycle.modules.length} modules in all)` : "";
    violations.push({
      rule: "cycle",
      message: `import cycle: ${cycle.path.join(" -> ")}${among}`,
    });
  }
  const commands = new Set(
    imports.filter((i) => i.from === "cli/commands.ts" && i.kind === "dynamic").map((i) => i.to),
  );
  for (const { from, to, kind } of imports) {
    const how = kind === "static" ? "imports" : `imports (${kind})`;
    const production = !isTestMachinery(from);
    if (top(from) === "lib" && (top(to) === "cli" || top(to) === "webhook")) {
      violations.push({
        rule: "lib-upward",
        message: `${from} ${how} ${to}: lib/ is below ${top(to)}/`,
      });
    }
    if (production && isTestMachinery(to)) {
      violations.push({
        rule: "test-machinery",
        message: `${from} ${how} ${to}: production code imports test machinery`,
      });
    }
    const target = libFolder(to);
    if (
      production && target !== undefined && !to.endsWith(`/${target}/mod.ts`) &&
      libFolder(from) !== target && ["lib", "cli", "webhook"].includes(top(from))
    ) {
      violations.push({
        rule: "mod-boundary",
        message: `${from} ${how} ${to}: use lib/${target}/mod.ts`,
      });
    }
    if (production && to === "cli/commands.ts" && from !== "cli/app.ts") {
      violations.push({
        rule: "command-list",
        message: `${from} ${how} cli/commands.ts: only cli/app.ts reads the command list`,
      });
    }
    if (production && commands.has(to) && from !== "cli/commands.ts") {
      violations.push({
        rule: "command-list",
        message:
          `${from} ${how} ${to}, a command's implementation: move what they share to a shared module or lib/`,
      });
    }
  }
  if (imports.some((i) => i.from === WEBHOOK_ENTRY)) {
    for (const { module, path } of reachableSigningCode(imports, WEBHOOK_ENTRY)) {
      violations.push({
        rule: "webhook-signing",
        message: `${WEBHOOK_ENTRY} reaches ${module}, signing code: ${
          path.join(" -> ")
        } (import a narrower module)`,
      });
    }
  }
  return violations;
}

/** The `.ts` files of the project, relative to `root`, sorted. */
export async function projectFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(`${root}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && entry.name.endsWith(".ts")) files.push(path);
    }
  };
  for (const name of PROJECT_ROOTS) {
    const info = await Deno.stat(`${root}/${name}`).catch(() => undefined);
    if (info?.isDirectory) await walk(name);
    else if (info?.isFile) files.push(name);
  }
  return files.sort();
}

interface InfoDependency {
  readonly code?: { readonly specifier?: string };
  readonly type?: { readonly specifier?: string };
  readonly isDynamic?: boolean;
}

interface InfoModule {
  readonly specifier: string;
  readonly dependencies?: readonly InfoDependency[];
}

/** The imports among `files` (paths relative to `root`), read with `deno info --json`. */
export async function readImports(root: string, files: readonly string[]): Promise<Import[]> {
  const base = new URL(`file://${root.replace(/\/?$/, "/")}`);
  const dir = await Deno.makeTempDir({ prefix: "layering_" });
  try {
    const entry = `${dir}/entry.ts`;
    await Deno.writeTextFile(
      entry,
      files.map((f) => `import ${JSON.stringify(new URL(f, base).href)};\n`).join(""),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", `${root}/deno.json`, entry],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr).trim()}`);
    }
    const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: readonly InfoModule[];
    };
    const relative = (specifier: string | undefined) =>
      specifier?.startsWith(base.href) && !specifier.includes("/node_modules/")
        ? decodeURIComponent(specifier.slice(base.href.length))
        : undefined;
    const imports: Import[] = [];
    for (const module of graph.modules) {
      const from = relative(module.specifier);
      if (from === undefined) continue;
      for (const d of module.dependencies ?? []) {
        const to = relative(d.code?.specifier) ?? relative(d.type?.specifier);
        if (to === undefined) continue;
        const kind: ImportKind = d.isDynamic ? "dynamic" : d.code ? "static" : "type";
        imports.push({ from, to, kind });
      }
    }
    return imports;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const files = await projectFiles(root);
  const imports = await readImports(root, files);
  const { readCliSeams } = await import("./cli_seams.ts");
  const violations = [...checkLayering(imports), ...await readCliSeams(root, files)];
  const write = (text: string) => Deno.stdout.writeSync(new TextEncoder().encode(`${text}\n`));
  for (const v of violations) write(`layering: ${v.rule}: ${v.message}`);
  write(
    `layering: ${files.length} modules, ${imports.length} imports, ${
      violations.length === 0 ? "no violation" : `${violations.length} violation(s)`
    }`,
  );
  Deno.exit(violations.length === 0 ? 0 : 1);
}
