import assert from "node:assert/strict";
import { describeRuntime, detectRuntime, listLocalFiles, localFileReader } from "./runtime.ts";

const none = () => Promise.resolve(undefined);

Deno.test("detectRuntime() recognises each runtime, the first rule winning", async () => {
  const cases: [string[], string | undefined][] = [
    [["pom.xml", "package.json"], "openjdk/maven"],
    [["build.gradle"], "openjdk/gradle"],
    [["build.gradle.kts"], "openjdk/gradle"],
    [["package.json", "go.mod"], "nodejs"],
    [["go.mod"], "golang"], // igc needed a Makefile too
    [["go.mod", "Makefile"], "golang"],
    [["requirements.txt"], "python"],
    [["pyproject.toml"], "python"],
    [["src/App.csproj"], "dotnet"],
    [["App.sln"], "dotnet"],
    [["README.md", "docs/index.md"], undefined],
    [["sub/package.json"], undefined],
  ];
  for (const [paths, expected] of cases) {
    const runtime = await detectRuntime(paths, none);
    assert.equal(runtime && describeRuntime(runtime), expected, paths.join(","));
  }
});

Deno.test("detectRuntime() reads the Makefile to tell an operator from a Go module", async () => {
  const read = (path: string) =>
    Promise.resolve(
      path === "Makefile" ? "bundle:\n\toperator-sdk generate kustomize\n" : undefined,
    );
  assert.deepEqual(await detectRuntime(["Makefile", "go.mod"], read), { runtime: "operator" });
});

Deno.test("listLocalFiles() lists two levels without .git, and localFileReader() reads", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/.git`);
    await Deno.writeTextFile(`${dir}/.git/config`, "");
    await Deno.mkdir(`${dir}/src/deep`, { recursive: true });
    await Deno.writeTextFile(`${dir}/src/App.csproj`, "<Project/>");
    await Deno.writeTextFile(`${dir}/src/deep/x.txt`, "");
    await Deno.writeTextFile(`${dir}/Makefile`, "all:\n");
    assert.deepEqual(await listLocalFiles(dir), ["Makefile", "src/App.csproj"]);
    assert.equal(await localFileReader(dir)("Makefile"), "all:\n");
    assert.equal(await localFileReader(dir)("missing"), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
