import assert from "node:assert/strict";
import { fakeKubeClient, secretList } from "../../tests/fakes/kube_transport.ts";
import { Reflector } from "./reflector.ts";
import { SECRETS } from "./resources.ts";
import { assertNoCanary, canary } from "../../tests/fakes/secret_canary.ts";

Deno.test("a Reflector reports a broken watch line of Secrets without quoting it", async () => {
  const secret = canary();
  const errors: string[] = [];
  let reported!: () => void;
  const done = new Promise<void>((resolve) => (reported = resolve));
  const event = JSON.stringify({
    type: "ADDED",
    object: { metadata: { name: "s", namespace: "n", resourceVersion: "8" }, data: { p: secret } },
  });
  const client = fakeKubeClient((request) =>
    new Response(
      request.url.includes("watch=")
        ? `${event.replace(`"${secret}"`, secret)}\n`
        : secretList(secret),
    )
  );
  const reflector = new Reflector(client, {
    name: "Secrets",
    type: SECRETS,
    onError: (message) => {
      errors.push(message);
      reported();
    },
  });
  reflector.start();
  await done;
  await reflector.stop();
  assert.match(errors[0]!, /^invalid JSON: unexpected character/);
  for (const message of errors) assertNoCanary(message, secret);
});

Deno.test("a Reflector lists, then applies watch events, with the kind of its type", async () => {
  const changes: string[][] = [];
  let watched!: () => void;
  const done = new Promise<void>((resolve) => (watched = resolve));
  const events = [
    { type: "ADDED", object: { metadata: { name: "b", namespace: "n", resourceVersion: "8" } } },
    { type: "DELETED", object: { metadata: { name: "a", namespace: "n", resourceVersion: "9" } } },
    { type: "BOOKMARK", object: { metadata: { resourceVersion: "10" } } },
  ];
  const urls: string[] = [];
  const client = fakeKubeClient((request) => {
    urls.push(request.url);
    if (!request.url.includes("watch=")) {
      return Response.json({
        metadata: { resourceVersion: "7" },
        items: [{ metadata: { name: "a", namespace: "n" } }],
      });
    }
    if (urls.length > 2) {
      watched(); // the first watch ended: a second one stays open until stopped
      return new Promise<Response>((_, reject) =>
        request.signal?.addEventListener("abort", () => reject(request.signal?.reason))
      );
    }
    return new Response(events.map((e) => `${JSON.stringify(e)}\n`).join(""));
  });
  const reflector = new Reflector(client, {
    name: "Secrets",
    type: SECRETS,
    namespace: "n",
    labelSelector: "a=b",
    onChange: () => {
      changes.push(reflector.items().map((o) => o.metadata.name));
    },
  });
  reflector.start();
  await reflector.whenSynced;
  await done;
  assert.deepEqual(changes, [["a"], ["a", "b"], ["b"]]);
  assert.equal(reflector.get("n", "b")?.kind, "Secret");
  assert.equal(reflector.get("n", "b")?.apiVersion, "v1");
  assert.equal(
    urls[0],
    "https://api.test/api/v1/namespaces/n/secrets?limit=500&labelSelector=a%3Db",
  );
  assert.match(urls[2]!, /watch=1&resourceVersion=10&/);
  await reflector.stop();
});

Deno.test("a Reflector keeps what `keep` returns of each object", async () => {
  const client = fakeKubeClient((request) =>
    request.url.includes("watch=")
      ? new Promise<Response>((_, reject) =>
        request.signal?.addEventListener("abort", () => reject(request.signal?.reason))
      )
      : Response.json({
        metadata: { resourceVersion: "7" },
        items: [{ metadata: { name: "a", namespace: "n" }, spec: { x: 1 }, status: { big: "…" } }],
      })
  );
  const reflector = new Reflector(client, {
    name: "Secrets",
    type: SECRETS,
    keep: ({ status: _status, ...rest }) => rest,
  });
  reflector.start();
  await reflector.whenSynced;
  await reflector.stop();
  assert.deepEqual(reflector.items(), [{
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "a", namespace: "n" },
    spec: { x: 1 },
  }]);
});
