/**
 * The Key Protect stand-in checked by a client nobody here wrote: IBM's Go SDK for Key Protect
 * (`github.com/IBM/keyprotect-go-client` v0.15.1, `keyprotect-sdk`). Whatever the SDK sends —
 * a create without a content type, `GET …/metadata`, list filters, aliases, key rings, `DELETE`,
 * retries with the same `correlation-id` — the stand-in must take as the service does, and its
 * errors must reach the SDK's error type intact. Then toolkit and the SDK each read the keys the
 * other stored, by id, alias and name, byte for byte.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startKeyProtectServer } from "../fakes/key_protect_server.ts";
import { fakeClock } from "../fakes/clock.ts";
import { e2eSkipReason } from "../env/tools.ts";
import { startGpg } from "../env/gpg.ts";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { resourcesOf, sdk, sdkSkipReason } from "./_sdk.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const OTHER_INSTANCE = "00000000-1111-4222-8333-444444444444";
const API_KEY = "sdk-test-api-key-0123456789";
const TOKEN = "sdk-static-token-1234";
const ignore = sdkSkipReason !== undefined;

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "kp_sdk_test_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test({
  name: "IBM's Go SDK stores, reads, lists, aliases and deletes keys on the stand-in",
  ignore,
  async fn() {
    await using dir = await tempDir();
    await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
    const auth = { apiKey: API_KEY };
    const material = new Uint8Array([0, 1, 2, 0xfe, 0xff, ...new TextEncoder().encode("key\n")]);
    await Deno.writeFile(join(dir.path, "in.bin"), material);

    const created = await sdk(kp, INSTANCE, auth, [
      "create",
      "sdk-key",
      "-payload-file",
      join(dir.path, "in.bin"),
      "-alias",
      "sdk-alias",
      "-description",
      "made by the SDK",
    ]);
    assert.equal(created.code, 0, created.stderr);
    const id = created.json.id as string;
    assert.deepEqual(created.json.aliases, ["sdk-alias"]);
    assert.equal(created.json.extractable, true);
    assert.equal(created.json.payload, undefined, "no material without return=representation");
    const create = kp.requests.find((r) => r.method === "POST" && r.path === "/api/v2/keys")!;
    assert.equal(create.contentType, undefined, "the SDK sends no content type, and is served");
    assert.match(create.correlationId ?? "", /^[0-9a-f-]{36}$/);

    for (const ref of [id, "sdk-alias"]) {
      const out = join(dir.path, `out-${ref}.bin`);
      const got = await sdk(kp, INSTANCE, auth, ["get", ref, "-payload-out", out]);
      assert.equal(got.code, 0, got.stderr);
      assert.deepEqual(await Deno.readFile(out), material, `byte for byte by ${ref}`);
      const metadata = await sdk(kp, INSTANCE, auth, ["metadata", ref]);
      assert.equal(metadata.json.id, id);
      assert.equal(metadata.json.payload, undefined, "metadata carries no material");
    }

    // Paging and filters, as ListKeysOptions sends them.
    for (const name of ["second", "third"]) {
      await sdk(kp, INSTANCE, auth, ["create", name, "-payload-file", join(dir.path, "in.bin")]);
    }
    const page = await sdk(kp, INSTANCE, auth, ["list", "-limit", "2", "-offset", "1"]);
    assert.deepEqual(resourcesOf(page).map((k) => k.name), ["second", "third"]);
    assert.equal((page.json.metadata as Record<string, unknown>).collectionTotal, 2);
    const roots = await sdk(kp, INSTANCE, auth, ["list", "-extractable", "false"]);
    assert.deepEqual(resourcesOf(roots), []);
    const lastRequest = kp.requests.at(-1)!;
    assert.equal(lastRequest.search, "?extractable=false");

    // Aliases: one more, one less; GET by the new one.
    assert.equal((await sdk(kp, INSTANCE, auth, ["alias-create", "extra", id])).code, 0);
    assert.equal((await sdk(kp, INSTANCE, auth, ["metadata", "extra"])).json.id, id);
    assert.equal((await sdk(kp, INSTANCE, auth, ["alias-delete", "extra", id])).code, 0);
    const gone = await sdk(kp, INSTANCE, auth, ["metadata", "extra"]);
    assert.equal(gone.json.status, 404);

    // Delete: destroyed (state 5), still readable, keeps its aliases; a second delete is 410.
    const deleted = await sdk(kp, INSTANCE, auth, ["delete", "sdk-alias"]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.json.state, 5);
    const destroyed = await sdk(kp, INSTANCE, auth, ["metadata", id]);
    assert.equal(destroyed.json.state, 5);
    assert.deepEqual(destroyed.json.aliases, ["sdk-alias"]);
    const listed = await sdk(kp, INSTANCE, auth, ["list"]);
    assert.deepEqual(resourcesOf(listed).map((k) => k.name), ["second", "third"]);
    const withDeleted = await sdk(kp, INSTANCE, auth, ["list", "-state", "1,5"]);
    assert.equal(resourcesOf(withDeleted).length, 3);
    const again = await sdk(kp, INSTANCE, auth, ["delete", id]);
    assert.equal(again.code, 1);
    assert.equal(again.json.status, 410);
    assert.equal((again.json.reasons as { code: string }[])[0]!.code, "KEY_DELETED_ERR");
  },
});

Deno.test({
  name: "IBM's Go SDK gets the stand-in's errors with their reasons and its correlation id",
  ignore,
  async fn() {
    await using kp = await startKeyProtectServer({
      instanceId: INSTANCE,
      apiKeys: [API_KEY],
      tokens: [TOKEN],
    });
    const missing = await sdk(kp, INSTANCE, { token: TOKEN }, [
      "get",
      "6f0c8e0e-0000-4000-8000-000000000000",
    ]);
    assert.equal(missing.code, 1);
    assert.equal(missing.json.status, 404);
    assert.equal((missing.json.reasons as { code: string }[])[0]!.code, "KEY_NOT_FOUND_ERR");
    assert.equal(missing.json.correlationId, kp.requests.at(-1)!.correlationId);
    assert.match(missing.stderr, /kp\.Error: correlation_id='[0-9a-f-]{36}'/);

    const otherInstance = await sdk(kp, OTHER_INSTANCE, { token: TOKEN }, ["list"]);
    assert.equal(otherInstance.json.status, 401);
    assert.match(otherInstance.stderr, /Unauthorized: The user does not have access/);

    const wrongKey = await sdk(kp, INSTANCE, { apiKey: "wrong-api-key-98765" }, ["list"]);
    assert.equal(wrongKey.code, 1);
    assert.equal(wrongKey.json.status, 400);
    assert.equal(wrongKey.json.iamCode, "BXNIM0415E");
    assert.match(wrongKey.stderr, /iam\.Error: HTTP 400 requestId='\w+'.*BXNIM0415E/);
    assert.ok(!wrongKey.stderr.includes("wrong-api-key-98765"));

    const standard = await sdk(kp, INSTANCE, { token: TOKEN }, ["key-rings"]);
    assert.deepEqual(resourcesOf(standard).map((r) => r.id), ["default"]);
  },
});

Deno.test({
  name: "IBM's Go SDK works in key rings on the stand-in, and an unknown ring is refused",
  ignore,
  async fn() {
    await using dir = await tempDir();
    await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
    const auth = { token: TOKEN };
    await Deno.writeTextFile(join(dir.path, "k"), "material");
    assert.equal((await sdk(kp, INSTANCE, auth, ["key-ring-create", "team-a"])).code, 0);
    const inRing = await sdk(
      kp,
      INSTANCE,
      auth,
      ["create", "ringed", "-payload-file", join(dir.path, "k"), "-alias", "ringed"],
      { keyRing: "team-a" },
    );
    assert.equal(inRing.json.keyRingID, "team-a");
    await sdk(kp, INSTANCE, auth, ["create", "plain", "-payload-file", join(dir.path, "k")]);
    assert.equal(kp.requests.at(-1)!.keyRing, undefined);

    const ringList = await sdk(kp, INSTANCE, auth, ["list"], { keyRing: "team-a" });
    assert.deepEqual(resourcesOf(ringList).map((k) => k.name), ["ringed"]);
    const all = await sdk(kp, INSTANCE, auth, ["list"]);
    assert.deepEqual(resourcesOf(all).map((k) => k.name), ["ringed", "plain"]);
    const wrongRing = await sdk(kp, INSTANCE, auth, ["metadata", "ringed"], { keyRing: "default" });
    assert.equal(wrongRing.json.status, 404);

    const unknown = await sdk(kp, INSTANCE, auth, ["list"], { keyRing: "no-such-ring" });
    assert.equal(unknown.code, 1);
    assert.equal(unknown.json.status, 404);
    assert.equal((unknown.json.reasons as { code: string }[])[0]!.code, "KEY_RING_NOT_FOUND_ERR");
  },
});

Deno.test({
  name: "IBM's Go SDK retries the stand-in's 429 and 503 with one correlation id, not a 501",
  ignore,
  async fn() {
    await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
    kp.failNext({ status: 429, retryAfter: "0" }, { status: 503, retryAfter: "0" });
    const listed = await sdk(kp, INSTANCE, { token: TOKEN }, ["list"]);
    assert.equal(listed.code, 0, listed.stderr);
    const attempts = kp.requests.filter((r) => r.path === "/api/v2/keys");
    assert.deepEqual(attempts.map((r) => r.status), [429, 503, 200]);
    assert.equal(new Set(attempts.map((r) => r.correlationId)).size, 1);

    kp.failNext({ status: 501 });
    const notImplemented = await sdk(kp, INSTANCE, { token: TOKEN }, ["list"]);
    assert.equal(notImplemented.json.status, 501);
    assert.equal(kp.requests.filter((r) => r.path === "/api/v2/keys").length, 4, "no retry");
  },
});

// ---- toolkit and IBM's SDK, each reading the other's keys -------------------------------------

/** Runs `toolkit image-security vault ARGS` in-process, with a fake clock (no real waits). */
async function toolkit(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferedIO({ cwd, env });
  const status = await runCli(
    ["image-security", "vault", ...args],
    commandContext(io, "toolkit", { clock: fakeClock() }),
  );
  return { status, out: io.out(), err: io.err() };
}

const gpgIgnore = ignore || e2eSkipReason(["gpg", "gpgconf"]) !== undefined;

Deno.test({
  name: "keys IBM's SDK stores, toolkit fetches by id, alias and name, byte for byte, into gpg",
  ignore: gpgIgnore,
  async fn() {
    await using dir = await tempDir();
    await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
    await using source = await startGpg();
    await using target = await startGpg();
    const { fingerprint, privateKeyArmored: armoured } = await source.generateKey({
      type: "ed25519",
    });
    await Deno.writeTextFile(join(dir.path, "secret.asc"), armoured);
    const created = await sdk(kp, INSTANCE, { apiKey: API_KEY }, [
      "create",
      "sdk signing key",
      "-payload-file",
      join(dir.path, "secret.asc"),
      "-alias",
      "sdk-signing",
    ]);
    assert.equal(created.code, 0, created.stderr);
    const id = created.json.id as string;

    const env = {
      KMS_URL: kp.url,
      KMS_INSTANCE_ID: INSTANCE,
      IBMCLOUD_API_KEY: API_KEY,
    };
    const iam = ["--iam-url", kp.iamUrl];
    for (const [ref, via] of [[id, "id"], ["sdk-signing", "alias"], ["sdk signing key", "name"]]) {
      const file = `${via}.asc`;
      const run = await toolkit(dir.path, ["fetch", ref!, "--key", file, ...iam], env);
      assert.equal(run.status, 0, run.err);
      assert.equal(
        await Deno.readTextFile(join(dir.path, file)),
        armoured,
        `byte for byte by ${via}`,
      );
      assert.match(run.err, new RegExp(`Using key ${id} .*, found by ${via}`));
    }
    const imported = await toolkit(
      dir.path,
      ["fetch", "sdk-signing", "--import", ...iam],
      { ...env, GNUPGHOME: target.home },
    );
    assert.equal(imported.status, 0, imported.err);
    assert.equal(imported.out.trim(), fingerprint);
    const secrets = await target.run("gpg", ["--batch", "--with-colons", "--list-secret-keys"]);
    assert.match(secrets.stdout, new RegExp(`^fpr:+${fingerprint}:`, "m"));
  },
});

Deno.test({
  name: "keys toolkit stores, IBM's SDK reads by id and alias, byte for byte, rotation included",
  ignore,
  async fn() {
    await using dir = await tempDir();
    await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
    const material = new Uint8Array(4096).map((_, i) => (i * 7 + 3) % 256);
    await Deno.writeFile(join(dir.path, "v1.bin"), material);
    const env = { KMS_URL: kp.url, KMS_INSTANCE_ID: INSTANCE, KMS_TOKEN: TOKEN };
    const stored = await toolkit(
      dir.path,
      [
        "store",
        "signing",
        "--key",
        "v1.bin",
        "--alias",
        "signing",
        "--alias",
        "prod",
        "-o",
        "json",
      ],
      env,
    );
    assert.equal(stored.status, 0, stored.err);
    const { id } = JSON.parse(stored.out);
    for (const ref of [id, "signing", "prod"]) {
      const out = join(dir.path, `sdk-${ref}.bin`);
      const got = await sdk(kp, INSTANCE, { token: TOKEN }, ["get", ref, "-payload-out", out]);
      assert.equal(got.code, 0, got.stderr);
      assert.equal(got.json.extractable, true);
      assert.deepEqual(got.json.aliases, ["signing", "prod"]);
      assert.deepEqual(await Deno.readFile(out), material, `byte for byte by ${ref}`);
    }

    // Rotation: the SDK's GetKey(alias) follows to the new key; the old one is destroyed.
    const v2 = material.map((b) => 255 - b);
    await Deno.writeFile(join(dir.path, "v2.bin"), v2);
    const rotated = await toolkit(
      dir.path,
      [
        "store",
        "signing",
        "--key",
        "v2.bin",
        "--alias",
        "signing",
        "--alias",
        "prod",
        "--replace",
        "--old-key",
        "delete",
      ],
      env,
    );
    assert.equal(rotated.status, 0, rotated.err);
    const [newId, aliases] = rotated.out.trim().split(" ");
    assert.notEqual(newId, id);
    assert.equal(aliases, "signing,prod");
    const out = join(dir.path, "sdk-v2.bin");
    assert.equal(
      (await sdk(kp, INSTANCE, { token: TOKEN }, ["get", "prod", "-payload-out", out])).json.id,
      newId,
    );
    assert.deepEqual(await Deno.readFile(out), v2);
    const old = await sdk(kp, INSTANCE, { token: TOKEN }, ["metadata", id]);
    assert.equal(old.json.state, 5);
  },
});

Deno.test({
  name:
    "toolkit pages past the 200 keys the SDK's plain ListKeys stops at, and finds a key by name",
  ignore,
  async fn() {
    await using dir = await tempDir();
    await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
    const headers = { "authorization": `Bearer ${TOKEN}`, "bluemix-instance": INSTANCE };
    for (let i = 0; i < 205; i++) {
      const response = await fetch(`${kp.url}/api/v2/keys`, {
        method: "POST",
        headers,
        body: new TextEncoder().encode(JSON.stringify({
          metadata: { collectionType: "application/vnd.ibm.kms.key+json", collectionTotal: 1 },
          resources: [{
            type: "application/vnd.ibm.kms.key+json",
            name: `key-${i}`,
            extractable: true,
            payload: btoa(`material ${i}`),
          }],
        })),
      });
      assert.equal(response.status, 201);
      await response.body?.cancel();
    }
    const listed = await sdk(kp, INSTANCE, { token: TOKEN }, ["list"]);
    assert.equal(resourcesOf(listed).length, 200);
    const env = { KMS_URL: kp.url, KMS_INSTANCE_ID: INSTANCE, KMS_TOKEN: TOKEN };
    const run = await toolkit(dir.path, ["fetch", "key-204", "--key", "k"], env);
    assert.equal(run.status, 0, run.err);
    assert.equal(await Deno.readTextFile(join(dir.path, "k")), "material 204");
    assert.match(run.err, /found by name/);
  },
});

Deno.test({
  name: "a key the SDK stores in a key ring: toolkit finds it in that ring, or in every ring",
  ignore,
  async fn() {
    await using dir = await tempDir();
    await using kp = await startKeyProtectServer({
      instanceId: INSTANCE,
      tokens: [TOKEN],
      keyRings: ["signing-keys"],
    });
    await Deno.writeTextFile(join(dir.path, "k"), "ringed material");
    const created = await sdk(
      kp,
      INSTANCE,
      { token: TOKEN },
      ["create", "ringed", "-payload-file", join(dir.path, "k"), "-alias", "ringed"],
      { keyRing: "signing-keys" },
    );
    assert.equal(created.json.keyRingID, "signing-keys");
    const env = { KMS_URL: kp.url, KMS_INSTANCE_ID: INSTANCE, KMS_TOKEN: TOKEN };
    for (const ring of [["--key-ring", "signing-keys"], []]) {
      const run = await toolkit(
        dir.path,
        ["fetch", "ringed", "--key", "out", "--force", ...ring],
        env,
      );
      assert.equal(run.status, 0, run.err);
      assert.equal(await Deno.readTextFile(join(dir.path, "out")), "ringed material");
    }
    const wrong = await toolkit(dir.path, [
      "fetch",
      "ringed",
      "--key",
      "x",
      "--key-ring",
      "default",
    ], env);
    assert.equal(wrong.status, 1);
    assert.match(wrong.err, /no key has this alias or name in key ring "default"/);
  },
});
