import assert from "node:assert/strict";
import { PolicyConfigError } from "./errors.ts";
import { filePolicySource } from "./file_source.ts";
import { policyStoreURL } from "./policy_store.ts";

const source = filePolicySource({
  policies: [],
  secrets: [
    {
      metadata: { name: "store", namespace: "dev", resourceVersion: "1" },
      data: { username: btoa("u"), password: btoa("p") },
    },
    {
      metadata: { name: "half", namespace: "dev", resourceVersion: "1" },
      data: { username: btoa("u") },
    },
  ],
  serviceAccounts: [],
  namespaces: [],
});

Deno.test("policyStoreURL() reads storeURL, with Basic auth from storeSecret", async () => {
  assert.equal(await policyStoreURL({}, "dev", { source }), undefined);
  const seen: string[] = [];
  const store = await policyStoreURL(
    { simple: { storeURL: "https://store.example/sigs", storeSecret: "store" } },
    "dev",
    {
      source,
      fetch: (_input, init) => {
        seen.push(new Headers(init?.headers).get("authorization") ?? "");
        return Promise.resolve(new Response("ok"));
      },
    },
  );
  assert.equal(store?.url.href, "https://store.example/sigs");
  await store?.fetch?.("https://store.example/sigs/x");
  assert.deepEqual(seen, [`Basic ${btoa("u:p")}`]);
});

Deno.test("policyStoreURL() refuses a store Secret without both entries, or one that is missing", async () => {
  for (
    const [name, why] of [["half", 'it needs "username" and "password" entries'], [
      "gone",
      "it does not exist",
    ]]
  ) {
    await assert.rejects(
      policyStoreURL({ simple: { storeURL: "https://s.example", storeSecret: name } }, "dev", {
        source,
      }),
      (e: unknown) =>
        e instanceof PolicyConfigError &&
        e.message === `Cannot use store Secret "dev/${name}": ${why}`,
    );
  }
});
