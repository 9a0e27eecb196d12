/**
 * `--request-timeout` against a server that accepts the connection and never answers (a plain
 * TCP listener that never writes), reached through a kubeconfig as a user reaches a cluster:
 * `endpoints -n dev` and `sync dev` give up, exit 1, and say which server did not answer and
 * which flag sets the wait. The same server behind a registry, a git host and a vault.
 */
import assert from "node:assert/strict";
import { runCli } from "./app.ts";
import { bufferedIO } from "./io.ts";
import { commandContext } from "./context.ts";
import { kubeconfigFor, silentServer } from "../tests/fakes/silent_server.ts";
import { parseDuration } from "./options.ts";
import { networkAdvice } from "./network.ts";
import { RequestTimeoutError, timedFetch } from "../lib/fetch.ts";
import { describeError } from "../lib/errors.ts";

async function runAgainst(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number; out: string; err: string; ms: number }> {
  const io = bufferedIO({ env });
  const started = performance.now();
  const status = await runCli(args, commandContext(io));
  return { status, out: io.out(), err: io.err(), ms: performance.now() - started };
}

for (
  const args of [
    ["endpoints", "-n", "dev"],
    ["sync", "dev"],
    ["sync", "dev", "-v"],
  ]
) {
  Deno.test(`${args.join(" ")} gives up on an API server that never answers`, async () => {
    await using server = silentServer();
    const dir = await Deno.makeTempDir();
    try {
      const kubeconfig = `${dir}/kubeconfig`;
      await Deno.writeTextFile(kubeconfig, kubeconfigFor(`https://${server.host}`));
      const r = await runAgainst([...args, "--request-timeout", "1s"], {
        KUBECONFIG: kubeconfig,
        HOME: dir,
      });
      assert.equal(r.status, 1, r.err);
      assert.ok(server.accepted() >= 1, "the server accepted the connection");
      assert.ok(r.ms >= 900, `it waited for the timeout (${r.ms} ms)`);
      assert.ok(r.ms < 15_000, `it gave up soon after the timeout (${r.ms} ms)`);
      assert.match(
        r.err,
        new RegExp(
          `Cannot reach the API server https://${server.host} of context "silent" \\(no answer from https://${server.host} within 1 s\\)`,
        ),
      );
      assert.match(r.err, /--request-timeout sets how long to wait/);
      assert.doesNotMatch(r.err, /fetch failed|--help/);
      assert.equal(r.out, "");
      if (args.includes("-v")) {
        assert.match(r.err, new RegExp(`→ GET https://${server.host}/`), "-v tells the request");
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("--request-timeout takes kubectl's durations and refuses anything else", async () => {
  assert.equal(parseDuration("0"), 0);
  assert.equal(parseDuration("5"), 5000);
  assert.equal(parseDuration("30s"), 30_000);
  assert.equal(parseDuration("1m30s"), 90_000);
  assert.equal(parseDuration("1.5h"), 5_400_000);
  assert.equal(parseDuration("250ms"), 250);
  for (const bad of ["", "-1s", "10x", "s", "1 m"]) {
    assert.equal(parseDuration(bad), undefined, bad);
  }
  const r = await runAgainst(["endpoints", "-n", "dev", "--request-timeout", "soon"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /--request-timeout must be a duration such as 30s, 2m or 1h/);
  assert.match(r.err, /Run 'toolkit endpoints --help' for usage/);
});

Deno.test("timedFetch() gives up on a silent server, and on a body that stops", async () => {
  await using server = silentServer();
  const silent = timedFetch((input, init) => fetch(input, init), 200);
  const error = await silent(`http://${server.host}/`).catch((e) => e);
  assert.ok(error instanceof RequestTimeoutError, String(error));
  assert.equal(error.server, `http://${server.host}`);
  assert.equal(
    describeError(error),
    `no answer from http://${server.host} within 200 ms`,
  );
  assert.match(networkAdvice(error) ?? "", /--request-timeout/);

  // Headers, then a body that stops: given up after 200 ms of silence.
  const stalled = timedFetch(() =>
    Promise.resolve(
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode("partial"));
          },
        }),
      ),
    ), 200);
  const response = await stalled("http://example.invalid/");
  await assert.rejects(response.text(), RequestTimeoutError);
});
