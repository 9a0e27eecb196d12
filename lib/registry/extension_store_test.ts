import assert from "node:assert/strict";
import { e2eSkipReason, startRegistry } from "../../tests/env/mod.ts";
import { type ImageReference, parseReference } from "../image/mod.ts";
import { startExtensionRegistry } from "../../tests/fakes/signature_extension_registry.ts";
import { buildOciLayout, skopeoPush } from "../../tests/env/oci_layout.ts";
import { createRegistryClient } from "./client.ts";
import { RegistryError } from "./errors.ts";
import { createExtensionSignatureStore, supportsSignatureExtension } from "./extension_store.ts";
import { staticCredentials } from "./keyring.ts";

const ignore = e2eSkipReason(["docker-registry", "skopeo", "htpasswd", "openssl", "tar"]) !==
  undefined;

const encoder = new TextEncoder();

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-extension-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "supportsSignatureExtension() reads X-Registry-Supports-Signatures from the ping",
  ignore,
  fn: async () => {
    await using registry = await startRegistry();
    await using front = startExtensionRegistry(registry.url);
    using client = createRegistryClient({ insecureRegistries: ["127.0.0.1"] });
    assert.equal(await supportsSignatureExtension(client, front.host), true);
    assert.equal(await supportsSignatureExtension(client, registry.host), false);
    assert.equal(await supportsSignatureExtension(client, front.host), true);
    assert.equal(client.requestCount, 2, "one ping per registry");
  },
});

Deno.test({
  name: "createExtensionSignatureStore() writes signatures and reads them back",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry();
      const digest = await skopeoPush(await buildOciLayout(home), `${registry.host}/demo/app:1`, {
        home,
      });
      await using front = startExtensionRegistry(registry.url);
      using client = createRegistryClient({ insecureRegistries: [front.host] });
      const ref = parseReference(`${front.host}/demo/app:1`);
      assert.equal(await client.resolveDigest(ref), digest);
      const store = createExtensionSignatureStore(client);

      assert.deepEqual(await store.readSignatures(ref, digest), []);
      const first = new Uint8Array([...encoder.encode("first signature"), 0x00, 0xff, 0x80]);
      await store.writeSignature(ref, digest, first);
      assert.deepEqual(await store.readSignatures(ref, digest), [first]);

      const stored = front.signatures.get(`demo/app@${digest}`)!;
      assert.equal(stored.length, 1);
      assert.equal(stored[0]!.schemaVersion, 2);
      assert.equal(stored[0]!.type, "atomic");
      assert.match(stored[0]!.name, new RegExp(`^${digest}@[0-9a-f]{32}$`));
      assert.deepEqual(Uint8Array.from(atob(stored[0]!.content), (c) => c.charCodeAt(0)), first);
      const put = front.server.requests.find((r) => r.method === "PUT")!;
      assert.equal(put.path, `/extensions/v2/demo/app/signatures/${digest}`);
      assert.equal(put.headers.get("content-type"), "application/json");

      const puts = () => front.server.requests.filter((r) => r.method === "PUT").length;
      await store.writeSignature(ref, digest, first);
      assert.equal(puts(), 1, "a signature already stored is not written again");
      const second = encoder.encode("second signature");
      await store.writeSignature(ref, digest, second);
      assert.equal(puts(), 2);
      assert.deepEqual(await store.readSignatures(ref, digest), [first, second]);
    }),
});

Deno.test({
  name: "readSignatures() keeps only schemaVersion 2 atomic signatures",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry();
      const digest = await skopeoPush(await buildOciLayout(home), `${registry.host}/demo/app:1`, {
        home,
      });
      await using front = startExtensionRegistry(registry.url);
      front.signatures.set(`demo/app@${digest}`, [
        { schemaVersion: 2, name: `${digest}@1`, type: "atomic", content: btoa("kept") },
        { schemaVersion: 1, name: `${digest}@2`, type: "atomic", content: btoa("old schema") },
        {
          schemaVersion: 2,
          name: `${digest}@3`,
          type: "AtomicImageV1",
          content: btoa("other type"),
        },
      ]);
      using client = createRegistryClient({ insecureRegistries: [front.host] });
      const store = createExtensionSignatureStore(client);
      const signatures = await store.readSignatures(
        parseReference(`${front.host}/demo/app`),
        digest,
      );
      assert.deepEqual(signatures, [encoder.encode("kept")]);
    }),
});

Deno.test({
  name: "createExtensionSignatureStore() uses the registry credentials and fails clearly without",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry({
        auth: { username: "alice", password: "s3cret" },
      });
      const digest = await skopeoPush(await buildOciLayout(home), `${registry.host}/demo/app:1`, {
        home,
        creds: "alice:s3cret",
      });
      await using front = startExtensionRegistry(registry.url);
      const ref: ImageReference = parseReference(`${front.host}/demo/app:1`);

      using client = createRegistryClient({
        insecureRegistries: [front.host],
        credentials: staticCredentials({ username: "alice", password: "s3cret", source: "test" }),
      });
      const store = createExtensionSignatureStore(client);
      await store.writeSignature(ref, digest, encoder.encode("sig"));
      assert.deepEqual(await store.readSignatures(ref, digest), [encoder.encode("sig")]);

      using anonymous = createRegistryClient({ insecureRegistries: [front.host] });
      await assert.rejects(
        createExtensionSignatureStore(anonymous).readSignatures(ref, digest),
        (error: unknown) =>
          error instanceof RegistryError && error.status === 401 && error.code === "UNAUTHORIZED" &&
          error.message.startsWith(
            `Cannot read signatures of "${front.host}/demo/app@${digest}"`,
          ) &&
          error.message.endsWith(`(no credentials are configured for ${front.host})`),
      );
    }),
});

Deno.test({
  name: "readSignatures() reports an unknown manifest and rejects an invalid digest",
  ignore,
  fn: async () => {
    await using registry = await startRegistry();
    await using front = startExtensionRegistry(registry.url);
    using client = createRegistryClient({ insecureRegistries: [front.host] });
    const store = createExtensionSignatureStore(client);
    const ref = parseReference(`${front.host}/demo/app:1`);
    const absent = `sha256:${"0".repeat(64)}`;
    await assert.rejects(
      store.readSignatures(ref, absent),
      (error: unknown) =>
        error instanceof RegistryError && error.status === 404 &&
        error.message ===
          `Cannot read signatures of "${front.host}/demo/app@${absent}": HTTP 404 Not Found`,
    );
    const before = client.requestCount;
    await assert.rejects(
      store.writeSignature(ref, "sha256:../../x", encoder.encode("s")),
      /"sha256:..\/..\/x" is not a valid digest/,
    );
    assert.equal(client.requestCount, before);
  },
});
