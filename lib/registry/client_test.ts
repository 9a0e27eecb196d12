import assert from "node:assert/strict";
import { e2eSkipReason, startRegistry, type TestRegistry } from "../../tests/env/mod.ts";
import { formatReference, parseReference } from "../image/mod.ts";
import {
  buildOciLayout,
  type OciLayout,
  skopeoInspectDigest,
  skopeoPush,
  skopeoRawSha256,
} from "../../tests/env/oci_layout.ts";
import { fakeSleep, serve } from "../../tests/fakes/loopback_server.ts";
import { MAX_REGISTRY_HOSTS } from "./auth.ts";
import { createRegistryClient } from "./client.ts";
import { insecureRegistryEntry } from "./registry_url.ts";
import { credentialsFromSecret, type SecretLike } from "./credentials.ts";
import { computeDigest } from "./digest.ts";
import {
  DigestMismatchError,
  RegistryError,
  ResponseTooLargeError,
  TransportError,
} from "./errors.ts";
import { createKeyring } from "./keyring.ts";
import {
  DOCKER_MANIFEST,
  DOCKER_MANIFEST_LIST,
  DOCKER_SCHEMA1_SIGNED,
  OCI_INDEX,
  OCI_MANIFEST,
} from "./media_types.ts";

const ignore = e2eSkipReason(["docker-registry", "skopeo", "htpasswd", "openssl", "tar"]) !==
  undefined;

/** A pull secret as the Kubernetes API returns it. */
function pullSecret(name: string, auths: Record<string, { auth: string }>): SecretLike {
  return {
    metadata: { name, namespace: "team" },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": btoa(JSON.stringify({ auths })) },
  };
}

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-registry-client-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "createRegistryClient() reads OCI, Docker v2s2 and multi-arch images like skopeo does",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry();
      const single = await buildOciLayout(home, { name: "single" });
      const multi = await buildOciLayout(home, { name: "multi", platforms: ["amd64", "arm64"] });
      const images: { tag: string; layout: OciLayout; format?: "v2s2"; mediaType: string }[] = [
        { tag: "oci", layout: single, mediaType: OCI_MANIFEST },
        { tag: "v2s2", layout: single, format: "v2s2", mediaType: DOCKER_MANIFEST },
        { tag: "multi", layout: multi, mediaType: OCI_INDEX },
        { tag: "multi-v2s2", layout: multi, format: "v2s2", mediaType: DOCKER_MANIFEST_LIST },
      ];
      using client = createRegistryClient({ insecureRegistries: [registry.host] });
      for (const image of images) {
        const name = `${registry.host}/demo/app:${image.tag}`;
        const pushed = await skopeoPush(image.layout, name, { home, format: image.format });
        const ref = parseReference(name);
        const before = client.requestCount;
        const digest = await client.resolveDigest(ref);
        assert.equal(client.requestCount - before, 1, "one HEAD resolves a tag");
        assert.equal(digest, pushed, `${image.tag}: skopeo's --digestfile`);
        assert.equal(digest, await skopeoRawSha256(name, { home }), `${image.tag}: sha256sum`);
        assert.equal(digest, await skopeoInspectDigest(name, { home }), `${image.tag}: inspect`);

        const manifest = await client.getManifest(ref);
        assert.equal(manifest.digest, digest);
        assert.equal(await computeDigest(manifest.bytes), digest);
        assert.equal(manifest.mediaType, image.mediaType);
        assert.equal(manifest.size, manifest.bytes.byteLength);
        const head = await client.headManifest(ref);
        assert.deepEqual(head, { digest, mediaType: image.mediaType, size: manifest.size });

        const byDigest = parseReference(`${registry.host}/demo/app@${digest}`);
        assert.equal(await client.resolveDigest(byDigest), digest);
        assert.deepEqual((await client.getManifest(byDigest)).bytes, manifest.bytes);
      }
      assert.equal(
        single.digest,
        await client.resolveDigest(parseReference(`${registry.host}/demo/app:oci`)),
      );
    }),
});

Deno.test({
  name: "createRegistryClient() reports the registry's error code and message",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry();
      const layout = await buildOciLayout(home);
      await skopeoPush(layout, `${registry.host}/demo/app:1`, { home });
      using client = createRegistryClient({ insecureRegistries: [registry.host] });

      const missing = parseReference(`${registry.host}/demo/app:nope`);
      await assert.rejects(client.getManifest(missing), (error: unknown) => {
        assert.ok(error instanceof RegistryError);
        assert.equal(
          error.message,
          `Cannot read manifest of "${registry.host}/demo/app:nope": MANIFEST_UNKNOWN: manifest unknown`,
        );
        assert.equal(error.code, "MANIFEST_UNKNOWN");
        assert.equal(error.status, 404);
        assert.equal(error.registry, registry.host);
        assert.equal(error.repository, "demo/app");
        return true;
      });
      // HEAD answers carry no body: headManifest has the status only, resolveDigest asks GET.
      await assert.rejects(client.headManifest(missing), (error: unknown) =>
        error instanceof RegistryError && error.status === 404 && error.code === undefined &&
        /HTTP 404/.test(error.message));
      await assert.rejects(client.resolveDigest(missing), (error: unknown) =>
        error instanceof RegistryError && error.code === "MANIFEST_UNKNOWN");

      // distribution 2.8 answers MANIFEST_UNKNOWN for a repository it has never seen too
      const unknownRepo = parseReference(`${registry.host}/nobody/here:1`);
      await assert.rejects(client.getManifest(unknownRepo), (error: unknown) =>
        error instanceof RegistryError && error.repository === "nobody/here" &&
        error.code === "MANIFEST_UNKNOWN");

      const absentDigest = parseReference(`${registry.host}/demo/app@sha256:${"0".repeat(64)}`);
      await assert.rejects(client.resolveDigest(absentDigest), (error: unknown) =>
        error instanceof RegistryError && error.status === 404);
    }),
});

Deno.test({
  name: "createRegistryClient() fails clearly when a manifest is larger than the limit",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry();
      await skopeoPush(await buildOciLayout(home), `${registry.host}/demo/app:1`, { home });
      using client = createRegistryClient({
        insecureRegistries: [registry.host],
        maxManifestBytes: 100,
      });
      await assert.rejects(
        client.getManifest(parseReference(`${registry.host}/demo/app:1`)),
        (error: unknown) => {
          assert.ok(error instanceof RegistryError);
          assert.ok(error.cause instanceof ResponseTooLargeError);
          assert.match(
            error.message,
            /^Cannot read manifest of ".*demo\/app:1": .* larger than the limit of 100 bytes$/,
          );
          return true;
        },
      );
    }),
});

/** Pushes one image to an htpasswd registry and returns its digest. */
async function pushWithAuth(registry: TestRegistry, home: string, creds: string): Promise<string> {
  return await skopeoPush(await buildOciLayout(home), `${registry.host}/demo/app:1`, {
    home,
    creds,
  });
}

Deno.test({
  name: "createRegistryClient() uses Basic credentials from a dockerconfigjson Secret",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry({
        auth: { username: "alice", password: "s3cret" },
      });
      const pushed = await pushWithAuth(registry, home, "alice:s3cret");
      const ref = parseReference(`${registry.host}/demo/app:1`);
      const secret = pullSecret("regcred", {
        [`http://${registry.host}`]: { auth: btoa("alice:s3cret") },
      });
      using client = createRegistryClient({
        insecureRegistries: [registry.host],
        credentials: createKeyring(credentialsFromSecret(secret)),
      });
      assert.equal(await client.resolveDigest(ref), pushed);
      assert.equal(client.requestCount, 1, "Basic is sent proactively");
      assert.equal((await client.getManifest(ref)).digest, pushed);
    }),
});

Deno.test({
  name: "createRegistryClient() without credentials fails with UNAUTHORIZED and says why",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry({
        auth: { username: "alice", password: "s3cret" },
      });
      await pushWithAuth(registry, home, "alice:s3cret");
      const ref = parseReference(`${registry.host}/demo/app:1`);
      using client = createRegistryClient({ insecureRegistries: [registry.host] });
      await assert.rejects(client.getManifest(ref), (error: unknown) => {
        assert.ok(error instanceof RegistryError);
        assert.equal(error.status, 401);
        assert.equal(error.code, "UNAUTHORIZED");
        assert.equal(
          error.message,
          `Cannot read manifest of "${
            formatReference(ref)
          }": UNAUTHORIZED: authentication required (no credentials are configured for ${registry.host})`,
        );
        return true;
      });
    }),
});

Deno.test({
  name: "createRegistryClient() names the secret whose password is wrong, never the password",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry({
        auth: { username: "alice", password: "s3cret" },
      });
      await pushWithAuth(registry, home, "alice:s3cret");
      const ref = parseReference(`${registry.host}/demo/app:1`);
      const wrong = btoa("alice:not-the-password");
      using client = createRegistryClient({
        insecureRegistries: [registry.host],
        credentials: createKeyring(
          credentialsFromSecret(pullSecret("stale", { [registry.host]: { auth: wrong } })),
        ),
      });
      await assert.rejects(client.resolveDigest(ref), (error: unknown) => {
        assert.ok(error instanceof RegistryError);
        assert.equal(error.code, "UNAUTHORIZED");
        assert.match(
          error.message,
          /the registry rejected the credentials from secret "team\/stale"/,
        );
        assert.ok(!error.message.includes("not-the-password"));
        assert.ok(!error.message.includes(wrong));
        return true;
      });
    }),
});

Deno.test({
  name: "createRegistryClient() tries the matching credentials in order and remembers the good one",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry({
        auth: { username: "alice", password: "s3cret" },
      });
      const pushed = await pushWithAuth(registry, home, "alice:s3cret");
      const keyring = createKeyring([
        ...credentialsFromSecret(
          pullSecret("old", { [`${registry.host}/demo`]: { auth: btoa("alice:old") } }),
        ),
        ...credentialsFromSecret(
          pullSecret("current", { [registry.host]: { auth: btoa("alice:s3cret") } }),
        ),
      ]);
      using client = createRegistryClient({
        insecureRegistries: [registry.host],
        credentials: keyring,
      });
      const ref = parseReference(`${registry.host}/demo/app:1`);
      assert.equal(await client.resolveDigest(ref), pushed);
      assert.equal(client.requestCount, 2, "the more specific (wrong) key first, then the host's");
      assert.equal(await client.resolveDigest(ref), pushed);
      assert.equal(client.requestCount, 3, "the credential that worked goes first");
    }),
});

Deno.test({
  name: "createRegistryClient() reaches a TLS registry with its CA, and fails without it",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry({
        tls: true,
        auth: { username: "alice", password: "s3cret" },
      });
      const certDir = `${home}/certs`;
      await Deno.mkdir(certDir);
      await Deno.writeTextFile(`${certDir}/ca.crt`, registry.caCertPem!);
      const name = `${registry.host}/demo/app:1`;
      const pushed = await skopeoPush(await buildOciLayout(home), name, {
        home,
        tls: true,
        certDir,
        creds: "alice:s3cret",
      });
      const credentials = createKeyring([{
        key: registry.host,
        credential: { username: "alice", password: "s3cret", source: "test" },
      }]);
      using client = createRegistryClient({ caCerts: [registry.caCertPem!], credentials });
      assert.equal(client.registryUrl(registry.host), registry.url);
      assert.equal(await client.resolveDigest(parseReference(name)), pushed);

      using untrusting = createRegistryClient({ credentials, sleep: fakeSleep().sleep });
      await assert.rejects(untrusting.resolveDigest(parseReference(name)), (error: unknown) => {
        assert.ok(error instanceof RegistryError);
        assert.ok(error.cause instanceof TransportError);
        assert.match(
          error.message,
          new RegExp(
            `^Cannot read manifest of "${name}": https://${registry.host}/v2/demo/app/manifests/1: `,
          ),
        );
        return true;
      });
    }),
});

Deno.test({
  name: "createRegistryClient() reaches an insecure registry over plain HTTP only when listed",
  ignore,
  fn: () =>
    withTempDir(async (home) => {
      await using registry = await startRegistry();
      const name = `${registry.host}/demo/app:1`;
      const pushed = await skopeoPush(await buildOciLayout(home), name, { home });
      using plain = createRegistryClient({ insecureRegistries: ["127.0.0.1"] });
      assert.equal(plain.registryUrl(registry.host), `http://${registry.host}`);
      assert.equal(await plain.resolveDigest(parseReference(name)), pushed);
      using strict = createRegistryClient({ sleep: fakeSleep().sleep });
      assert.equal(strict.registryUrl(registry.host), `https://${registry.host}`);
      await assert.rejects(strict.resolveDigest(parseReference(name)), RegistryError);
    }),
});

Deno.test("registryUrl() serves docker.io at registry-1.docker.io and rejects bad hosts", () => {
  using client = createRegistryClient({ insecureRegistries: ["localhost:5000", "[::1]"] });
  assert.equal(client.registryUrl("docker.io"), "https://registry-1.docker.io");
  assert.equal(client.registryUrl("index.docker.io"), "https://registry-1.docker.io");
  assert.equal(client.registryUrl("quay.io"), "https://quay.io");
  assert.equal(client.registryUrl("localhost:5000"), "http://localhost:5000");
  assert.equal(client.registryUrl("localhost:5001"), "https://localhost:5001");
  assert.equal(client.registryUrl("[::1]:5000"), "http://[::1]:5000");
  assert.throws(() => client.registryUrl("evil.com/x@y"), /not a valid registry host/);
});

Deno.test("registryUrl() reaches every spelling of a registry at the same URL", () => {
  using client = createRegistryClient({
    insecureRegistries: ["LOCALHOST:05000", "Plain.Example.COM", "MYREG"],
  });
  const cases: Array<[string, string]> = [
    ["localhost:5000", "http://localhost:5000"],
    ["LocalHost:005000", "http://localhost:5000"],
    ["localhost:5001", "https://localhost:5001"],
    ["REG.EXAMPLE.COM", "https://reg.example.com"],
    ["reg.example.com:443", "https://reg.example.com"],
    ["reg.example.com:0443", "https://reg.example.com"],
    ["Registry-1.Docker.IO", "https://registry-1.docker.io"],
    ["DOCKER.IO:443", "https://registry-1.docker.io"],
    ["plain.example.com", "http://plain.example.com"],
    ["PLAIN.example.com:8080", "http://plain.example.com:8080"],
    ["myreg:443", "http://myreg"],
    ["MyReg", "http://myreg"],
    ["0177.0.0.1:5000", "https://127.0.0.1:5000"],
  ];
  for (const [registry, url] of cases) assert.equal(client.registryUrl(registry), url, registry);
});

Deno.test("insecureRegistryEntry() refuses port 443, which image references leave out", () => {
  for (const entry of ["reg.example.com:443", "REG.example.com:0443", "[::1]:443"]) {
    assert.throws(() => insecureRegistryEntry(entry), (e: unknown) => {
      assert.ok(e instanceof RegistryError);
      assert.match(e.message, /port 443 is the HTTPS port/);
      return true;
    });
    assert.throws(() => createRegistryClient({ insecureRegistries: [entry] }), RegistryError);
  }
  assert.deepEqual(insecureRegistryEntry("REG.example.com:05000"), {
    hostPort: "reg.example.com:5000",
  });
  assert.deepEqual(insecureRegistryEntry("Reg.Example.com"), { host: "reg.example.com" });
  assert.deepEqual(insecureRegistryEntry("[FC00::1]"), { host: "[fc00::1]" });
});

// The servers below return what a real registry does not: wrong bytes, missing headers,
// schema 1, stalls and transient errors.

const MANIFEST = new TextEncoder().encode(JSON.stringify({
  schemaVersion: 2,
  mediaType: OCI_MANIFEST,
  config: {
    mediaType: "application/vnd.oci.image.config.v1+json",
    digest: "sha256:" + "a".repeat(64),
    size: 2,
  },
  layers: [],
}));

Deno.test("getManifest() rejects bytes that do not match the requested digest", async () => {
  const tampered = new TextEncoder().encode('{"schemaVersion":2,"tampered":true}');
  const digest = await computeDigest(MANIFEST);
  const actual = await computeDigest(tampered);
  await using server = serve(() =>
    new Response(tampered, { headers: { "content-type": OCI_MANIFEST } })
  );
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app@${digest}`);
  await assert.rejects(client.getManifest(ref), (error: unknown) => {
    assert.ok(error instanceof DigestMismatchError);
    assert.equal(error.expected, digest);
    assert.equal(error.actual, actual);
    assert.match(
      error.message,
      new RegExp(
        `^Cannot read manifest of "${server.host}/team/app@${digest}": the registry returned content with digest ${actual}, expected ${digest}$`,
      ),
    );
    return true;
  });
  assert.equal(server.requests[0]!.path, `/v2/team/app/manifests/${digest}`);
});

Deno.test("getManifest() rejects bytes that do not match Docker-Content-Digest", async () => {
  const announced = `sha256:${"b".repeat(64)}`;
  await using server = serve(() =>
    new Response(MANIFEST, {
      headers: { "content-type": OCI_MANIFEST, "docker-content-digest": announced },
    })
  );
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  await assert.rejects(
    client.getManifest(parseReference(`${server.host}/team/app:1`)),
    (error: unknown) => error instanceof DigestMismatchError && error.expected === announced,
  );
});

Deno.test("headManifest() rejects a Docker-Content-Digest other than the requested digest", async () => {
  await using server = serve(() =>
    new Response(null, {
      headers: {
        "content-type": OCI_MANIFEST,
        "docker-content-digest": `sha256:${"c".repeat(64)}`,
      },
    })
  );
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app@sha256:${"d".repeat(64)}`);
  await assert.rejects(client.headManifest(ref), DigestMismatchError);
});

Deno.test("resolveDigest() falls back to GET when HEAD has no Docker-Content-Digest", async () => {
  await using server = serve((request) =>
    new Response(request.method === "HEAD" ? null : MANIFEST, {
      headers: { "content-type": OCI_MANIFEST },
    })
  );
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const digest = await client.resolveDigest(parseReference(`${server.host}/team/app:1`));
  assert.equal(digest, await computeDigest(MANIFEST));
  assert.deepEqual(server.requests.map((r) => r.method), ["HEAD", "GET"]);
  for (const request of server.requests) {
    assert.equal(
      request.headers.get("accept"),
      [OCI_INDEX, OCI_MANIFEST, DOCKER_MANIFEST_LIST, DOCKER_MANIFEST].join(", "),
    );
  }
});

Deno.test("getManifest() refuses a Docker schema 1 manifest", async () => {
  await using server = serve(() =>
    new Response('{"schemaVersion":1}', { headers: { "content-type": DOCKER_SCHEMA1_SIGNED } })
  );
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  await assert.rejects(
    client.getManifest(parseReference(`${server.host}/team/app:1`)),
    /Docker schema 1 manifest .* is not supported/,
  );
});

Deno.test("createRegistryClient() retries a 503 and counts every request", async () => {
  await using server = serve((_, i) =>
    i === 0 ? new Response(null, { status: 503 }) : new Response(MANIFEST, {
      headers: { "content-type": OCI_MANIFEST },
    })
  );
  const { sleep, waits } = fakeSleep();
  using client = createRegistryClient({ insecureRegistries: [server.host], sleep });
  const manifest = await client.getManifest(parseReference(`${server.host}/team/app:1`));
  assert.equal(manifest.digest, await computeDigest(MANIFEST));
  assert.equal(waits.length, 1);
  assert.equal(client.requestCount, 2);
});

Deno.test("createRegistryClient() reports a timeout as a RegistryError", async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  await using server = serve(async () => {
    await release;
    return new Response(null);
  });
  try {
    using client = createRegistryClient({ insecureRegistries: [server.host], timeoutMs: 100 });
    await assert.rejects(
      client.resolveDigest(parseReference(`${server.host}/team/app:1`)),
      (error: unknown) =>
        error instanceof RegistryError && error.cause instanceof TransportError &&
        error.cause.timedOut && /no answer within 100 ms$/.test(error.message),
    );
  } finally {
    resolve();
  }
});

Deno.test("createRegistryClient() rejects references it cannot put in a URL", async () => {
  using client = createRegistryClient();
  await assert.rejects(
    client.getManifest({ domain: "quay.io", path: "team/../admin", tag: "1" }),
    /invalid repository path/,
  );
  await assert.rejects(
    client.getManifest({ domain: "quay.io", path: "team/app", tag: "1/../../x" }),
    /invalid tag/,
  );
  await assert.rejects(
    client.getManifest({ domain: "quay.io", path: "team/app", digest: "sha256:../x" }),
    /invalid digest/,
  );
  assert.equal(client.requestCount, 0);
});

Deno.test("createRegistryClient() remembers the pings of at most MAX_REGISTRY_HOSTS hosts", async () => {
  const asked: string[] = [];
  using client = createRegistryClient({
    fetch: (input) => {
      asked.push(new URL(input instanceof Request ? input.url : input).host);
      return Promise.resolve(new Response("{}", { status: 200 }));
    },
  });
  const hosts = Array.from({ length: MAX_REGISTRY_HOSTS + 10 }, (_, i) => `r${i}.example`);
  for (const host of hosts) await client.ping(host);
  await client.ping(hosts.at(-1)!);
  assert.equal(asked.length, hosts.length, "a remembered ping is not sent again");
  await client.ping(hosts[0]!);
  assert.equal(asked.length, hosts.length + 1, "the oldest host was forgotten");
});

Deno.test("getReferrers() asks for an artifact type, reports whether the registry applied it, and keeps what select keeps of each page", async () => {
  const digest = `sha256:${"ab".repeat(32)}`;
  const entry = (i: number, artifactType: string) => ({
    mediaType: OCI_MANIFEST,
    digest: `sha256:${i.toString(16).padStart(64, "0")}`,
    size: 10,
    artifactType,
  });
  let applied = true;
  await using server = serve((request) => {
    const url = new URL(request.url);
    const page = Number(url.searchParams.get("page") ?? "0");
    const headers: Record<string, string> = { "content-type": OCI_INDEX };
    if (applied) headers["oci-filters-applied"] = "artifactType";
    if (page === 0) headers.link = `<${url.pathname}?page=1>; rel="next"`;
    return Response.json(
      { manifests: [entry(page * 2, "a/b"), entry(page * 2 + 1, "c/d")] },
      { headers },
    );
  });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app`);
  const read = () =>
    client.getReferrers(ref, digest, {
      maxBytes: 64 * 1024,
      maxValues: 1000,
      artifactType: "a/b",
      select: (d) => {
        const { artifactType, digest } = d as { artifactType: string; digest: string };
        return artifactType === "a/b" ? digest.slice(-1) : undefined;
      },
    });
  const first = await read();
  assert.deepEqual(first?.manifests, ["0", "2"]);
  assert.equal(first?.listed, 4);
  assert.equal(first?.filtered, true);
  assert.equal(server.requests[0]!.path, `/v2/team/app/referrers/${digest}?artifactType=a%2Fb`);
  applied = false;
  assert.equal((await read())?.filtered, false);
});

Deno.test("getReferrers() counts the JSON values of all pages before parsing each, and refuses past maxValues", async () => {
  const digest = `sha256:${"ab".repeat(32)}`;
  await using server = serve((request) => {
    const url = new URL(request.url);
    const page = Number(url.searchParams.get("page") ?? "0");
    // 3 + 100 values a page.
    const body = `{"manifests":[${Array(100).fill("{}").join(",")}]}`;
    return new Response(body, {
      headers: {
        "content-type": OCI_INDEX,
        ...(page < 7 ? { link: `<${url.pathname}?page=${page + 1}>; rel="next"` } : {}),
      },
    });
  });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app`);
  const read = (maxValues: number) =>
    client.getReferrers(ref, digest, { maxBytes: 64 * 1024, maxValues, select: () => 1 });
  assert.equal((await read(8 * 103))?.manifests.length, 800);
  await assert.rejects(
    read(5 * 103),
    /Cannot read referrers of .*: the referrers answer holds more than 515 JSON values \(6 pages\)/,
  );
  await assert.rejects(
    client.getReferrers(ref, digest, { maxBytes: 64 * 1024, maxValues: 50, select: () => 1 }),
    /the referrers answer holds more than 50 JSON values$/,
  );
});
