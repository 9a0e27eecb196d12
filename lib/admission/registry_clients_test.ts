import assert from "node:assert/strict";
import type { PullCredentials } from "./credentials.ts";
import { RegistryClients } from "./registry_clients.ts";

const credentials = (id: string) =>
  ({ id, store: { get: () => undefined } }) as never as PullCredentials;

Deno.test("RegistryClients makes one client per credentials, and reports both caches", () => {
  const clients = new RegistryClients({ now: () => 0 });
  const a = clients.clientFor(credentials("a"));
  assert.equal(clients.clientFor(credentials("a")), a);
  assert.notEqual(clients.clientFor(credentials("b")), a);
  const [made, tokens] = clients.stats();
  assert.equal(made?.name, "registry-client");
  assert.equal(made?.entries, 2);
  assert.ok(tokens !== undefined);
});
