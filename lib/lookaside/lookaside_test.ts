import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { e2eSkipReason, startGpg, startRegistry } from "../../tests/env/mod.ts";
import { serveDirectory } from "../../tests/fakes/static_file_server.ts";
import { BudgetExceededError, readBudget } from "../read_budget.ts";
import {
  collectSignatures,
  lookasideSignatureURL,
  lookasideStore,
  lookasideStoreFor,
  SignatureStoreError,
} from "./lookaside.ts";
import { loadRegistriesD, parseRegistriesYaml } from "./registries_d.ts";
import { namesIn, readOnlyDir } from "../../tests/env/files.ts";

const HEX = "0123456789abcdef".repeat(4);
const DIGEST = `sha256:${HEX}`;
const REF = parseReference("registry.example.com:5000/team/app:1");
const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** Creates a temp dir, gives it to `fn` and removes it. */
async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-lookaside-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes signature files `signature-<n>` with content `sig <n>` for each n. */
async function writeSignatures(base: string, path: string, indexes: number[]): Promise<string> {
  const dir = `${base}/${path}@sha256=${HEX}`;
  await Deno.mkdir(dir, { recursive: true });
  for (const n of indexes) await Deno.writeTextFile(`${dir}/signature-${n}`, `sig ${n}`);
  return dir;
}

Deno.test("lookasideSignatureURL() follows the layout <base>/<path>@<algo>=<hex>/signature-N", () => {
  assert.equal(
    lookasideSignatureURL(new URL("file:///srv/sigstore"), REF, DIGEST, 1).href,
    `file:///srv/sigstore/team/app@sha256=${HEX}/signature-1`,
  );
  assert.equal(
    lookasideSignatureURL(
      new URL("https://sigs.example.com/look/aside?x=1"),
      parseReference("busybox"),
      DIGEST,
      12,
    )
      .href,
    `https://sigs.example.com/look/aside/library/busybox@sha256=${HEX}/signature-12?x=1`,
  );
  const sha512 = `sha512:${"ab".repeat(64)}`;
  assert.equal(
    lookasideSignatureURL(new URL("file:///s"), REF, sha512, 2).pathname,
    `/s/team/app@sha512=${"ab".repeat(64)}/signature-2`,
  );
});

Deno.test("lookasideSignatureURL() rejects bad digests, paths and indexes", () => {
  const base = new URL("file:///s");
  for (
    const digest of ["sha256:abc", `SHA256:${HEX}`, `sha256:${HEX.toUpperCase()}`, HEX, "../x"]
  ) {
    assert.throws(() => lookasideSignatureURL(base, REF, digest, 1), SignatureStoreError);
  }
  const escaping = { domain: "r.io", path: "../../etc" };
  assert.throws(() => lookasideSignatureURL(base, escaping, DIGEST, 1), /not a valid repository/);
  assert.throws(() => lookasideSignatureURL(base, REF, DIGEST, 0), /index starts at 1/);
});

Deno.test("lookasideStore() reads file:// signatures until the first missing one", async () => {
  await withTempDir(async (dir) => {
    await writeSignatures(dir, "team/app", [1, 2, 4]);
    const store = lookasideStore({ readBase: new URL(`file://${dir}`) });
    const signatures = await store.readSignatures(REF, DIGEST);
    assert.deepEqual(signatures.map(text), ["sig 1", "sig 2"]);
    assert.deepEqual(await store.readSignatures(REF, `sha256:${"f".repeat(64)}`), []);
    assert.deepEqual(await store.readSignatures(parseReference("r.io/other"), DIGEST), []);
  });
});

Deno.test("lookasideStore() writes file:// signatures at the next free index", async () => {
  await withTempDir(async (dir) => {
    const store = lookasideStore({
      readBase: new URL("https://unused.example.com/"),
      writeBase: new URL(`file://${dir}/staging`),
    });
    await store.writeSignature(REF, DIGEST, bytes("first"));
    await store.writeSignature(REF, DIGEST, bytes("second"));
    await store.writeSignature(REF, DIGEST, bytes("first")); // already stored: skipped
    const sigDir = `${dir}/staging/team/app@sha256=${HEX}`;
    const names = [];
    for await (const entry of Deno.readDir(sigDir)) names.push(entry.name);
    assert.deepEqual(names.sort(), ["signature-1", "signature-2"]);
    assert.equal(await Deno.readTextFile(`${sigDir}/signature-1`), "first");
    assert.equal(await Deno.readTextFile(`${sigDir}/signature-2`), "second");
    const reader = lookasideStore({ readBase: new URL(`file://${dir}/staging`) });
    assert.deepEqual((await reader.readSignatures(REF, DIGEST)).map(text), ["first", "second"]);
  });
});

Deno.test("lookasideStore() never overwrites an existing signature file", async () => {
  await withTempDir(async (dir) => {
    // signature-1 is missing, so readers see nothing; a writer must still not replace 2.
    const sigDir = await writeSignatures(dir, "team/app", [2]);
    const store = lookasideStore({ readBase: new URL(`file://${dir}`) });
    await store.writeSignature(REF, DIGEST, bytes("new one"));
    await store.writeSignature(REF, DIGEST, bytes("another"));
    assert.equal(await Deno.readTextFile(`${sigDir}/signature-1`), "new one");
    assert.equal(await Deno.readTextFile(`${sigDir}/signature-2`), "sig 2");
    assert.equal(await Deno.readTextFile(`${sigDir}/signature-3`), "another");
  });
});

Deno.test("lookasideStore() refuses to write to an http(s) base or an empty signature", async () => {
  const store = lookasideStore({ readBase: new URL("https://sigs.example.com/lookaside") });
  await assert.rejects(
    store.writeSignature(REF, DIGEST, bytes("x")),
    /Cannot write signature to "https:\/\/sigs.example.com\/lookaside": only file:\/\//,
  );
  await withTempDir(async (dir) => {
    const fileStore = lookasideStore({ readBase: new URL(`file://${dir}`) });
    await assert.rejects(fileStore.writeSignature(REF, DIGEST, new Uint8Array()), /it is empty/);
  });
});

Deno.test("lookasideStore() enforces the size limit on file:// signatures", async () => {
  await withTempDir(async (dir) => {
    const sigDir = await writeSignatures(dir, "team/app", [1]);
    await Deno.writeFile(`${sigDir}/signature-2`, new Uint8Array(11));
    const store = lookasideStore({ readBase: new URL(`file://${dir}`), maxBytes: 10 });
    await assert.rejects(store.readSignatures(REF, DIGEST), (e) => {
      assert.ok(e instanceof SignatureStoreError);
      assert.match(e.message, /signature-2": larger than the limit of 10 bytes/);
      return true;
    });
  });
});

Deno.test("lookasideStore() stops after maxSignatures signatures", async () => {
  await withTempDir(async (dir) => {
    await writeSignatures(dir, "team/app", [1, 2, 3]);
    const store = lookasideStore({ readBase: new URL(`file://${dir}`), maxSignatures: 2 });
    await assert.rejects(store.readSignatures(REF, DIGEST), /more than 2 signatures/);
  });
});

Deno.test("lookasideStore() reads http:// signatures until the first 404", async () => {
  await withTempDir(async (dir) => {
    await writeSignatures(`${dir}/lookaside`, "team/app", [1, 2, 3, 5]);
    await using server = serveDirectory(dir);
    const store = lookasideStore({ readBase: new URL(`${server.url}/lookaside`) });
    const signatures = await store.readSignatures(REF, DIGEST);
    assert.deepEqual(signatures.map(text), ["sig 1", "sig 2", "sig 3"]);
    assert.deepEqual(
      server.requests,
      [1, 2, 3, 4].map((n) => `/lookaside/team/app@sha256=${HEX}/signature-${n}`),
    );
    assert.deepEqual(await store.readSignatures(parseReference("r.io/none"), DIGEST), []);
  });
});

Deno.test("lookasideStore() fails on an HTTP status other than 200 and 404", async () => {
  await withTempDir(async (dir) => {
    const sigDir = await writeSignatures(dir, "team/app", [1]);
    await Deno.mkdir(`${sigDir}/signature-2`); // the server answers 403 for a directory
    await using server = serveDirectory(dir);
    const store = lookasideStore({ readBase: new URL(server.url) });
    await assert.rejects(store.readSignatures(REF, DIGEST), (e) => {
      assert.ok(e instanceof SignatureStoreError);
      assert.match(
        e.message,
        /^Cannot read signature "http:\/\/127.0.0.1:\d+\/team\/app@sha256=.*\/signature-2": HTTP 403/,
      );
      return true;
    });
  });
});

Deno.test("lookasideStore() enforces the size limit on http:// signatures", async () => {
  await withTempDir(async (dir) => {
    const sigDir = await writeSignatures(dir, "team/app", [1]);
    await Deno.writeFile(`${sigDir}/signature-2`, new Uint8Array(4096));
    await using server = serveDirectory(dir);
    const store = lookasideStore({ readBase: new URL(server.url), maxBytes: 1024 });
    await assert.rejects(store.readSignatures(REF, DIGEST), /larger than the limit of 1024 bytes/);
  });
  // Without a Content-Length, the limit applies while reading the body.
  const streaming: typeof fetch = () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 512;
        controller.enqueue(new Uint8Array(512));
        if (sent >= 8192) controller.close();
      },
    });
    return Promise.resolve(new Response(body, { status: 200 }));
  };
  const store = lookasideStore({
    readBase: new URL("http://sigs.invalid/"),
    fetch: streaming,
    maxBytes: 2000,
  });
  await assert.rejects(store.readSignatures(REF, DIGEST), /larger than the limit of 2000 bytes/);
});

Deno.test("lookasideStore() gives up on an HTTP request after timeoutMs", async () => {
  const hanging: typeof fetch = (_input, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
    });
  const store = lookasideStore({
    readBase: new URL("https://user:secret@sigs.invalid/base"),
    fetch: hanging,
    timeoutMs: 50,
  });
  await assert.rejects(store.readSignatures(REF, DIGEST), (e) => {
    assert.ok(e instanceof SignatureStoreError);
    assert.match(
      e.message,
      /^Cannot read signature "https:\/\/sigs.invalid\/base\/team\/app@.*": no answer within 50 ms$/,
    );
    assert.doesNotMatch(e.message, /secret/);
    return true;
  });
});

Deno.test("lookasideStore() warns about text/html signatures and wraps fetch failures", async () => {
  await withTempDir(async (dir) => {
    await writeSignatures(dir, "team/app", [1]);
    await using server = serveDirectory(dir, { contentType: "text/html; charset=utf-8" });
    const warnings: string[] = [];
    const store = lookasideStore({
      readBase: new URL(server.url),
      onWarning: (w) => warnings.push(w),
    });
    assert.equal((await store.readSignatures(REF, DIGEST)).length, 1);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? "", /has Content-Type "text\/html; charset=utf-8"/);
  });
  const failing: typeof fetch = () => Promise.reject(new TypeError("connection refused"));
  const store = lookasideStore({ readBase: new URL("http://sigs.invalid/"), fetch: failing });
  await assert.rejects(store.readSignatures(REF, DIGEST), (e) => {
    assert.ok(e instanceof SignatureStoreError);
    assert.match(e.message, /: connection refused$/);
    assert.ok(e.cause instanceof TypeError);
    return true;
  });
});

Deno.test("lookasideStoreFor() reads from lookaside and writes to lookaside-staging", async () => {
  await withTempDir(async (dir) => {
    const config = parseRegistriesYaml(
      [
        "docker:",
        "  registry.example.com:5000/team:",
        `    lookaside: file://${dir}/published`,
        `    lookaside-staging: file://${dir}/staging`,
      ].join("\n"),
      "team.yaml",
    );
    const store = lookasideStoreFor(config, REF);
    assert.ok(store);
    await store.writeSignature(REF, DIGEST, bytes("staged"));
    assert.deepEqual(await store.readSignatures(REF, DIGEST), []);
    await Deno.rename(`${dir}/staging`, `${dir}/published`);
    assert.deepEqual((await store.readSignatures(REF, DIGEST)).map(text), ["staged"]);

    assert.equal(lookasideStoreFor(config, parseReference("other.io/x")), undefined);
    const fallback = lookasideStoreFor(config, parseReference("other.io/x"), {
      defaultBase: new URL(`file://${dir}/default`),
    });
    assert.ok(fallback);
    assert.deepEqual(await fallback.readSignatures(parseReference("other.io/x"), DIGEST), []);
  });
});

Deno.test({
  name: "lookasideStore() reads the signatures skopeo copy --sign-by wrote, and skopeo ours",
  ignore: e2eSkipReason(["gpg", "gpgconf", "skopeo", "docker-registry"]) !== undefined,
  fn: async () => {
    await using registry = await startRegistry();
    await using gpg = await startGpg();
    const key = await gpg.generateKey({ type: "ed25519" });
    const image = `${registry.host}/demo/app:1`;
    const digest = await gpg.pushImage(image, { signBy: key.fingerprint });

    const config = await loadRegistriesD(gpg.registriesD);
    const ref = parseReference(image);
    const store = lookasideStoreFor(config, ref);
    assert.ok(store);
    const signatures = await store.readSignatures(ref, digest);
    assert.equal(signatures.length, 1);
    // A binary OpenPGP message whose signed literal data names the image and its digest.
    const decrypted = await gpg.run("gpg", ["--batch", "--decrypt"], { stdin: signatures[0] });
    assert.equal(decrypted.code, 0, decrypted.stderr);
    const payload = JSON.parse(decrypted.stdout);
    assert.equal(payload.critical.identity["docker-reference"], image);
    assert.equal(payload.critical.image["docker-manifest-digest"], digest);

    // Served over HTTP from the same directory, the store reads the same bytes.
    await using server = serveDirectory(gpg.sigstore);
    const overHttp = lookasideStore({ readBase: new URL(server.url) });
    assert.deepEqual(await overHttp.readSignatures(ref, digest), signatures);

    // What the store writes, skopeo finds: copy the signature into a fresh lookaside and let
    // skopeo verify the image against a signedBy policy that reads from there.
    const work = await Deno.makeTempDir({ prefix: "toolkit-lookaside-e2e-" });
    try {
      const fresh = lookasideStore({ readBase: new URL(`file://${work}/sigstore`) });
      // (Only real signatures: skopeo fails outright on a blob it cannot parse.)
      await fresh.writeSignature(ref, digest, signatures[0]!);
      await fresh.writeSignature(ref, digest, signatures[0]!); // already there: skipped
      assert.equal((await fresh.readSignatures(ref, digest)).length, 1);
      await Deno.mkdir(`${work}/registries.d`);
      await Deno.writeTextFile(
        `${work}/registries.d/default.yaml`,
        `default-docker:\n  lookaside: file://${work}/sigstore\n`,
      );
      await Deno.writeTextFile(`${work}/key.asc`, key.publicKeyArmored);
      await Deno.writeTextFile(
        `${work}/policy.json`,
        JSON.stringify({
          default: [{ type: "reject" }],
          transports: {
            docker: {
              [registry.host]: [{
                type: "signedBy",
                keyType: "GPGKeys",
                keyPath: `${work}/key.asc`,
              }],
            },
            dir: { "": [{ type: "insecureAcceptAnything" }] },
          },
        }),
      );
      const copy = (registriesD: string) =>
        gpg.run("skopeo", [
          "--policy",
          `${work}/policy.json`,
          "--registries.d",
          registriesD,
          "copy",
          "--src-tls-verify=false",
          `docker://${image}`,
          `dir:${work}/out-${crypto.randomUUID()}`,
        ]);
      const accepted = await copy(`${work}/registries.d`);
      assert.equal(accepted.code, 0, accepted.stderr);
      // Without a lookaside that holds the signature, the same policy rejects the image.
      await Deno.mkdir(`${work}/empty.d`);
      await Deno.writeTextFile(
        `${work}/empty.d/default.yaml`,
        `default-docker:\n  lookaside: file://${work}/nothing\n`,
      );
      const rejected = await copy(`${work}/empty.d`);
      assert.notEqual(rejected.code, 0);
      assert.match(rejected.stderr, /signature/i);
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});

Deno.test("lookasideSignatureURL() ignores trailing slashes of the base", () => {
  for (const base of ["https://h", "https://h/", "https://h//"]) {
    assert.equal(
      lookasideSignatureURL(new URL(base), REF, DIGEST, 1).href,
      `https://h/team/app@sha256=${HEX}/signature-1`,
    );
  }
  assert.equal(
    lookasideSignatureURL(new URL("file:///srv/s/"), REF, DIGEST, 3).pathname,
    `/srv/s/team/app@sha256=${HEX}/signature-3`,
  );
});

Deno.test("lookasideStore() writes through a symbolic link to the store, and fails clearly when read-only", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/disk/team/app@sha256=${HEX}`, { recursive: true });
    await Deno.symlink("disk", `${dir}/staging`);
    const store = lookasideStore({
      readBase: new URL("https://unused.example.com/"),
      writeBase: new URL(`file://${dir}/staging`),
    });
    await store.writeSignature(REF, DIGEST, bytes("first"));
    assert.ok((await Deno.lstat(`${dir}/staging`)).isSymlink, "the link stays a link");
    const sigDir = `${dir}/disk/team/app@sha256=${HEX}`;
    assert.equal(await Deno.readTextFile(`${sigDir}/signature-1`), "first");

    {
      await using _ = await readOnlyDir(sigDir);
      await assert.rejects(
        store.writeSignature(REF, DIGEST, bytes("second")),
        (e: unknown) =>
          e instanceof SignatureStoreError &&
          /^Cannot write signature to ".*": Cannot write ".*signature-2": its directory/.test(
            e.message,
          ),
      );
    }
    assert.deepEqual(await namesIn(sigDir), ["signature-1"]);
  });
});

Deno.test("lookasideStore().signatures() reads one signature at a time, only as far as asked", async () => {
  const asked: string[] = [];
  const fetchFn: typeof fetch = (input) => {
    const url = String(input);
    asked.push(url.slice(url.lastIndexOf("/") + 1));
    return Promise.resolve(new Response(new Uint8Array(100), { status: 200 }));
  };
  const store = lookasideStore({ readBase: new URL("http://sigs.invalid/"), fetch: fetchFn });
  for await (const _ of store.signatures(REF, DIGEST)) {
    if (asked.length === 2) break;
  }
  assert.deepEqual(asked, ["signature-1", "signature-2"]);
});

Deno.test("lookasideStore() charges every byte to the budget and stops at it", async () => {
  let served = 0;
  const endless: typeof fetch = () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        served += 4096;
        controller.enqueue(new Uint8Array(4096));
      },
    });
    return Promise.resolve(new Response(body, { status: 200 }));
  };
  const store = lookasideStore({
    readBase: new URL("http://sigs.invalid/"),
    fetch: endless,
    maxBytes: 1024 * 1024,
  });
  const budget = readBudget(64 * 1024);
  await assert.rejects(
    collectSignatures(store.signatures(REF, DIGEST, { budget })),
    BudgetExceededError,
  );
  assert.equal(budget.used, budget.limit);
  assert.ok(served <= 64 * 1024 + 3 * 4096, `${served} bytes served before the reader stopped`);
});
