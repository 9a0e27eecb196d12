/**
 * The runtime of a repository, read from its files, to pick the template pipelines made for it:
 * the values are those of the `app.openshift.io/runtime` and `app.openshift.io/builder`
 * annotations of the Cloud-Native Toolkit's template pipelines (igc's), with Python and .NET
 * added (igc detected neither, nor Go without a Makefile). The files come from the local clone or
 * from the git host's tree of the branch; the first rule that matches wins.
 *
 * @module
 */

/** What a repository is built with. */
export interface Runtime {
  /** `app.openshift.io/runtime`: `openjdk`, `nodejs`, `golang`, `python`, `dotnet`, `operator`. */
  readonly runtime: string;
  /** `app.openshift.io/builder`: `maven` or `gradle` for Java. */
  readonly builder?: string;
}

/** Reads a file of the repository (its text, or undefined when it is not there). */
export type FileReader = (path: string) => Promise<string | undefined>;

const base = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/**
 * The runtime of a repository from the paths of its files (relative, `/`-separated) and a reader
 * for the few whose content matters (a Makefile that runs operator-sdk). Undefined when nothing
 * is recognised.
 */
export async function detectRuntime(
  paths: readonly string[],
  read: FileReader,
): Promise<Runtime | undefined> {
  const top = new Set(paths.filter((p) => !p.includes("/")));
  if (top.has("pom.xml")) return { runtime: "openjdk", builder: "maven" };
  if (top.has("build.gradle") || top.has("build.gradle.kts")) {
    return { runtime: "openjdk", builder: "gradle" };
  }
  if (top.has("package.json")) return { runtime: "nodejs" };
  if (top.has("PROJECT") && /operator-sdk|layout:/.test((await read("PROJECT")) ?? "")) {
    return { runtime: "operator" };
  }
  if (top.has("Makefile") && ((await read("Makefile")) ?? "").includes("operator-sdk")) {
    return { runtime: "operator" };
  }
  if (top.has("go.mod")) return { runtime: "golang" };
  if (["requirements.txt", "setup.py", "pyproject.toml", "Pipfile"].some((f) => top.has(f))) {
    return { runtime: "python" };
  }
  if (paths.some((p) => /\.(csproj|fsproj|sln)$/.test(base(p)) && p.split("/").length <= 2)) {
    return { runtime: "dotnet" };
  }
  return undefined;
}

/** `openjdk/maven`, `nodejs`: a runtime as messages show it. */
export function describeRuntime(runtime: Runtime): string {
  return runtime.builder ? `${runtime.runtime}/${runtime.builder}` : runtime.runtime;
}

/**
 * The files of a local directory for {@link detectRuntime}: its top level and the level below
 * (where .NET keeps its projects), without `.git` and `node_modules`.
 */
export async function listLocalFiles(dir: string): Promise<string[]> {
  const paths: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name === ".git" || entry.name === "node_modules") continue;
    if (entry.isFile) paths.push(entry.name);
    else if (entry.isDirectory) {
      try {
        for await (const inner of Deno.readDir(`${dir}/${entry.name}`)) {
          if (inner.isFile) paths.push(`${entry.name}/${inner.name}`);
        }
      } catch {
        // An unreadable directory holds nothing that decides the runtime.
      }
    }
  }
  return paths.sort();
}

/** Reads a file of a local directory for {@link detectRuntime}. */
export function localFileReader(dir: string): FileReader {
  return async (path) => {
    try {
      return await Deno.readTextFile(`${dir}/${path}`);
    } catch {
      return undefined;
    }
  };
}
