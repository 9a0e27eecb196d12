import assert from "node:assert/strict";
import type { AuthTarget, RegistryAuth } from "./auth.ts";
import { createRegistryRequester } from "./authenticated_request.ts";
import type { RegistryRequest } from "./client_types.ts";
import { RegistryError, TransportError } from "./errors.ts";
import type { HttpRequest } from "./transport.ts";

const REQUEST: RegistryRequest = {
  method: "GET",
  path: "/v2/team/app/tags/list",
  registry: "REG.example",
  repository: "team/app",
  actions: ["pull"],
  headers: { accept: "application/json" },
  maxBytes: 100,
  action: "list tags of",
  subject: "reg.example/team/app",
};

/** An auth layer that answers `send` with `outcome`, recording what it was asked. */
function fakeAuth(outcome: () => Promise<Awaited<ReturnType<RegistryAuth["send"]>>>) {
  const sent: { target: AuthTarget; built: HttpRequest }[] = [];
  const auth: RegistryAuth = {
    send: (target, build) => {
      sent.push({ target, built: build("Bearer t") });
      return outcome();
    },
    learn: () => {},
  };
  return { auth, sent };
}

const registryUrl = (registry: string) => `https://${registry.toLowerCase()}`;

Deno.test("createRegistryRequester() sends the path below the registry's URL with the authorization", async () => {
  const response = {
    status: 200,
    statusText: "OK",
    headers: new Headers(),
    body: new Uint8Array(),
    url: "",
  };
  const { auth, sent } = fakeAuth(() => Promise.resolve({ response, failure: "why" }));
  const answer = await createRegistryRequester({ auth, registryUrl })(REQUEST);
  assert.equal(answer.status, 200);
  assert.equal(answer.authFailure, "why");
  assert.deepEqual(sent[0]!.target, {
    registry: "reg.example",
    repository: "team/app",
    actions: ["pull"],
  });
  const built = sent[0]!.built;
  assert.equal(built.url, "https://reg.example/v2/team/app/tags/list");
  assert.equal(built.maxBytes, 100);
  assert.equal(new Headers(built.headers).get("authorization"), "Bearer t");
  assert.equal(new Headers(built.headers).get("accept"), "application/json");
});

Deno.test("createRegistryRequester() names the call in a transport failure and an auth failure", async () => {
  const down = fakeAuth(() =>
    Promise.reject(new TransportError("https://reg.example/v2/", "refused", { timedOut: false }))
  );
  await assert.rejects(
    createRegistryRequester({ auth: down.auth, registryUrl })(REQUEST),
    (e: unknown) =>
      e instanceof RegistryError &&
      e.message === 'Cannot list tags of "reg.example/team/app": https://reg.example/v2/: refused',
  );
  const refused = fakeAuth(() =>
    Promise.resolve({ failure: "no credentials", failureStatus: 401 })
  );
  await assert.rejects(
    createRegistryRequester({ auth: refused.auth, registryUrl })(REQUEST),
    (e: unknown) =>
      e instanceof RegistryError && e.code === "UNAUTHORIZED" && e.status === 401 &&
      e.message.endsWith(": no credentials"),
  );
});

Deno.test("createRegistryRequester() lets an abort through as the signal's reason", async () => {
  const controller = new AbortController();
  const reason = new Error("gone");
  controller.abort(reason);
  const { auth } = fakeAuth(() => Promise.reject(reason));
  await assert.rejects(
    createRegistryRequester({ auth, registryUrl })({ ...REQUEST, signal: controller.signal }),
    (e: unknown) => e === reason,
  );
});
