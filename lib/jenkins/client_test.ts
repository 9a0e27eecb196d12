import * as assert from "node:assert/strict";
import { JenkinsClient } from "./client.ts";
import { RequestTimeoutError } from "../fetch.ts";
import { tricklingServer } from "../../tests/fakes/loopback_server.ts";

Deno.test("JenkinsClient gives up on an answer that keeps coming slowly past timeoutMs", async () => {
  await using server = tricklingServer(20);
  const jenkins = new JenkinsClient({
    url: `http://${server.host}`,
    username: "u",
    apiToken: "t",
    crumb: false,
    timeoutMs: 300,
  });
  const error = await jenkins.jobConfig({ name: "job" }).catch((e) => e);
  assert.ok(error instanceof RequestTimeoutError, String(error));
  assert.equal(error.server, `http://${server.host}`);
});
