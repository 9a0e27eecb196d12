import * as assert from "node:assert/strict";
import { GitHostHttp } from "./http.ts";
import { GitHostUnreachableError } from "./errors.ts";
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
