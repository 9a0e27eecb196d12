import assert from "node:assert/strict";
import type { RegistryAuth } from "./auth.ts";
import type { AuthChallenge } from "./challenge.ts";
import { RegistryError } from "./errors.ts";
import { createRegistryPing } from "./ping.ts";
import type { HttpRequest, HttpResponse, Transport } from "./transport.ts";

/** A transport answering every request with `answer`, recording the URLs. */
function fakeTransport(answer: () => HttpResponse | Error) {
  const urls: string[] = [];
  const transport: Transport = {
    send: (request: HttpRequest) => {
      urls.push(request.url);
      const a = answer();
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
    },
    requestCount: 0,
    close: () => {},
    [Symbol.dispose]: () => {},
  };
  return { transport, urls };
}

function answer(status: number, headers: Record<string, string> = {}): HttpResponse {
  return { status, statusText: "", headers: new Headers(headers), body: new Uint8Array(), url: "" };
}

function recordingAuth() {
  const learned: [string, readonly AuthChallenge[]][] = [];
  const auth: RegistryAuth = {
    send: () => Promise.reject(new Error("not used")),
    learn: (registry, challenges) => learned.push([registry, challenges]),
  };
  return { auth, learned };
}

const registryUrl = (registry: string) => `https://${registry.toLowerCase()}`;

Deno.test("createRegistryPing() tells the auth layer the challenges, once per registry spelling", async () => {
  const { transport, urls } = fakeTransport(() =>
    answer(401, {
      "www-authenticate": 'Bearer realm="https://auth.example/token",service="reg"',
      "x-registry-supports-signatures": "1",
    })
  );
  const { auth, learned } = recordingAuth();
  const ping = createRegistryPing({ transport, auth, registryUrl, now: () => 0 });
  const result = await ping("Reg.Example");
  assert.equal(result.status, 401);
  assert.equal(result.supportsSignatures, true);
  assert.equal(result.challenges[0]?.scheme, "bearer");
  assert.equal(learned[0]![0], "reg.example");
  await ping("REG.example");
  assert.deepEqual(urls, ["https://reg.example/v2/"]);
});

Deno.test("createRegistryPing() forgets a failed ping and names the registry", async () => {
  let status = 500;
  const { transport, urls } = fakeTransport(() => answer(status));
  const ping = createRegistryPing({
    transport,
    auth: recordingAuth().auth,
    registryUrl,
    now: () => 0,
  });
  await assert.rejects(
    ping("reg"),
    (e: unknown) =>
      e instanceof RegistryError && e.message === 'Cannot reach registry "reg": HTTP 500',
  );
  status = 200;
  assert.equal((await ping("reg")).supportsSignatures, false);
  assert.equal(urls.length, 2);
});
