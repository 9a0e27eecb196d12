import assert from "node:assert/strict";
import { fakeKubeClient, secretList } from "../../tests/fakes/kube_transport.ts";
import { KubeAnswerError } from "./errors.ts";
import { SECRETS } from "./resources.ts";
import { KubeClient } from "./client.ts";
import type { ResolvedContext } from "./kubeconfig.ts";
import { sendThrough, type TransportRequest } from "./transport.ts";
import { NO_TIMEOUT_MS } from "../fetch.ts";
import { assertNoCanary, canary, rejection } from "../../tests/fakes/secret_canary.ts";

Deno.test("KubeClient.list() does not quote a Secret list that is cut short", async () => {
  const secret = canary();
  const text = secretList(secret);
  for (const cut of [text.indexOf(secret) + 5, text.length - 2]) {
    const client = fakeKubeClient(() => new Response(text.slice(0, cut)));
    const error = await rejection(client.list(SECRETS, "team"));
    assert.ok(error instanceof KubeAnswerError);
    assert.match(error.message, /^Cannot list Secrets in namespace "team": invalid JSON/);
    assertNoCanary(error, secret);
  }
  const client = fakeKubeClient(() => new Response(text));
  assert.equal((await client.list(SECRETS, "team"))[0]?.metadata.name, "store");
});

Deno.test("KubeClient.readAnswer() quotes an error Status scrubbed of secrets", async () => {
  const secret = canary();
  const status = { kind: "Status", message: `denied: {"token": "${secret}"}`, code: 403 };
  const client = fakeKubeClient(() => Response.json(status, { status: 403 }));
  const response = await client.open("GET", "/api/v1/secrets");
  const error = await rejection(
    client.readAnswer(response, "GET", "/api/v1/secrets", { action: "list Secrets" }),
  );
  assert.match((error as Error).message, /^Cannot list Secrets: denied/);
  assertNoCanary(error, secret);
});

Deno.test("KubeClient.open() hands over the answer unread, with the query", async () => {
  const seen: string[] = [];
  const client = fakeKubeClient((request) => {
    seen.push(request.url);
    return new Response("a\nb\n");
  });
  const response = await client.open("GET", "/api/v1/secrets", {
    query: { watch: "1", labelSelector: undefined },
  });
  assert.equal(await response.text(), "a\nb\n");
  assert.deepEqual(seen, ["https://api.test/api/v1/secrets?watch=1"]);
});

Deno.test("KubeClient refuses an answer past its shape before parsing it, quoting none of it", async () => {
  const secret = canary();
  const deep = `{"items":[{"data":{"k":"${secret}"}}],"pad":"${"x".repeat(4000)}","x":${
    "[".repeat(300)
  }${"]".repeat(300)}}`;
  const wide = `{"items":[${"[],".repeat(50_000)}{"data":{"k":"${secret}"}}]}`;
  for (
    const [text, bound] of [[deep, /nested more than 256 levels/], [wide, /more than \d+ JSON/]]
  ) {
    const client = fakeKubeClient(() => new Response(text as string));
    const error = await rejection(client.list(SECRETS, "team"));
    assert.ok(error instanceof KubeAnswerError);
    assert.match(error.message, bound as RegExp);
    assertNoCanary(error, secret);
  }
});

Deno.test("KubeClient sets no timer for no limit (0 or NO_TIMEOUT_MS), one for a timeout", async () => {
  const context: ResolvedContext = {
    name: "test",
    cluster: { name: "test", server: "https://api.test" },
    user: { name: "" },
    file: "",
    files: [],
    standalone: "",
  };
  for (const [requestTimeoutMs, timed] of [[0, false], [NO_TIMEOUT_MS, false], [30_000, true]]) {
    const signals: (AbortSignal | undefined)[] = [];
    const open = (request: TransportRequest) => {
      signals.push(request.signal);
      return Promise.resolve(Response.json({ kind: "Namespace" }));
    };
    const client = new KubeClient(context, {
      kind: "fetch",
      streams: true,
      open,
      send: sendThrough(open),
      close() {},
    }, { requestTimeoutMs: requestTimeoutMs as number });
    await client.request("GET", "/api/v1/namespaces/default");
    assert.equal(signals.length, 1);
    assert.equal(signals[0] !== undefined, timed, `requestTimeoutMs ${requestTimeoutMs}`);
  }
});
