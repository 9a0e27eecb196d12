import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { parseRegistriesYaml } from "../lookaside/mod.ts";
import type { RegistryClient } from "./client_types.ts";
import { selectSignatureStore } from "./signature_store.ts";

const DIGEST = `sha256:${"a".repeat(64)}`;
const REF = { ...parseReference("reg.example.com/team/app:1"), digest: DIGEST };

/** A client whose registry has the signature extension (or not) and answers every request 404. */
function client(supportsSignatures: boolean): RegistryClient {
  return {
    ping: () => Promise.resolve({ status: 200, supportsSignatures, challenges: [] }),
    request: () =>
      Promise.resolve({
        status: 404,
        statusText: "Not Found",
        headers: new Headers(),
        body: new Uint8Array(0),
      }),
  } as unknown as RegistryClient;
}

const registriesD = parseRegistriesYaml(
  `docker:\n  reg.example.com/team:\n    lookaside: https://sigs.example.com\n    lookaside-staging: file:///srv/sigs\n`,
  "team.yaml",
);

Deno.test("selectSignatureStore(): storeURL, then the extension, then registries.d, else none", async () => {
  const storeURL = { url: new URL("https://store.example.com/sigs") };
  const chosen = (options: Partial<Parameters<typeof selectSignatureStore>[0]>) =>
    selectSignatureStore({ client: client(true), reference: REF, mode: "read", ...options })
      .then((c) => c?.where);
  assert.equal(await chosen({ storeURL, registriesD }), "storeURL https://store.example.com/sigs");
  assert.equal(await chosen({ registriesD }), "the signature extension of reg.example.com");
  assert.equal(
    await chosen({ client: client(false), registriesD }),
    "https://sigs.example.com/ (reg.example.com/team in team.yaml)",
  );
  assert.equal(
    await chosen({ client: client(false), registriesD, mode: "write" }),
    "file:///srv/sigs (reg.example.com/team in team.yaml)",
  );
  assert.equal(await chosen({ client: client(false) }), undefined);
  assert.equal(
    await chosen({
      client: client(false),
      registriesD,
      reference: parseReference(`other.io/x@${DIGEST}`),
    }),
    undefined,
  );
});

Deno.test("selectSignatureStore(): the extension's 404 for a digest means no signatures", async () => {
  const choice = await selectSignatureStore({ client: client(true), reference: REF, mode: "read" });
  assert.deepEqual(await choice?.store.readSignatures(REF, DIGEST), []);
});
