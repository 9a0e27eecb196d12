import * as assert from "node:assert/strict";
import { GitHostHttp } from "./http.ts";
import { GitBranchNotFoundError, GitHostApiError, GitHostUnreachableError } from "./errors.ts";
import { RequestTimeoutError } from "../fetch.ts";
import { tricklingServer } from "../../tests/fakes/loopback_server.ts";

Deno.test("GitHostHttp gives up on an answer that keeps coming slowly past timeoutMs", async () => {
  await using server = tricklingServer(20);
  const http = new GitHostHttp({
    baseUrl: `http://${server.host}`,
    host: "git.example",
    repository: "org/repo",
    headers: {},
    authHint: "",
    timeoutMs: 300,
  });
  const error = await http.request("GET", "/repos/org/repo", "read the repository").catch((e) => e);
  assert.ok(error instanceof GitHostUnreachableError, String(error));
  assert.ok(error.cause instanceof RequestTimeoutError, String(error.cause));
  assert.equal(error.cause.timeoutMs, 300);
});

Deno.test("GitHostHttp.branchHead: the full hash of the answer, a typed error for a missing branch or a short hash", async () => {
  const answers: Record<string, Response> = {};
  const seen: string[] = [];
  const http = new GitHostHttp({
    baseUrl: "https://git.example/api",
    host: "git.example",
    repository: "org/repo",
    headers: {},
    authHint: "",
    fetch: (input) => {
      const url = String(input);
      seen.push(url);
      return Promise.resolve(answers[url] ?? new Response("{}", { status: 500 }));
    },
  });
  const sha1 = "0123456789abcdef0123456789abcdef01234567";
  const sha256 = "ab".repeat(32);
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });
  answers["https://git.example/api/b/main"] = json(200, { commit: { id: sha1 } });
  answers["https://git.example/api/b/next"] = json(200, { commit: { id: sha256 } });
  answers["https://git.example/api/b/gone"] = json(404, { message: "Branch not found" });
  answers["https://git.example/api/b/short"] = json(200, { commit: { id: sha1.slice(0, 12) } });
  answers["https://git.example/api/b/list"] = json(200, [{ commit: { id: sha1 } }]);
  const pick = (b: Record<string, unknown>) => (b.commit as Record<string, unknown>)?.id;
  assert.equal(await http.branchHead("/b/main", "main", pick), sha1);
  assert.equal(await http.branchHead("/b/next", "next", pick), sha256);
  const gone = await http.branchHead("/b/gone", "feature/gone", pick).catch((e) => e);
  assert.ok(gone instanceof GitBranchNotFoundError, String(gone));
  assert.equal(gone.branch, "feature/gone");
  assert.match(gone.message, /no branch "feature\/gone" in repository "org\/repo"/);
  for (const path of ["/b/short", "/b/list"]) {
    const error = await http.branchHead(path, "x", pick).catch((e) => e);
    assert.ok(error instanceof GitHostApiError, String(error));
    assert.match(error.message, /read the head of branch x .*no full commit hash/);
  }
});
