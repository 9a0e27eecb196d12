import assert from "node:assert/strict";
import { fakeKubeClient } from "../../tests/fakes/kube_transport.ts";
import { SECRETS } from "../kube/mod.ts";
import type { TransportRequest } from "../kube/transport.ts";
import { PolicySourceError } from "./errors.ts";
import { OnDemandReads, stripSecret } from "./object_reads.ts";
import { ObjectTooLargeError, type SecretData, secretDataBytes } from "./source.ts";

const CHUNK = 16 * 1024;

/** An answer streamed in 16 KiB chunks, counting the chunks the reader pulled. */
function streamed(text: string, pulled: { chunks: number }, status = 200): Response {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      pulled.chunks++;
      controller.enqueue(bytes.slice(offset, offset + CHUNK));
      offset += CHUNK;
    },
  }, { highWaterMark: 0 });
  return new Response(body, { status });
}

function secretAnswer(name: string, dataBytes: number, annotationBytes = 0): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name,
      namespace: "dev",
      resourceVersion: "5",
      annotations: {
        "kubectl.kubernetes.io/last-applied-configuration": "a".repeat(annotationBytes),
      },
      managedFields: [{ manager: "kubectl" }],
    },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": "e".repeat(dataBytes) },
  });
}

function secretReader(
  answer: (request: TransportRequest) => Response | Promise<Response>,
  options: { poolBytes?: number; now?: () => number } = {},
) {
  const reads = new OnDemandReads(fakeKubeClient(answer), 10_000, options);
  const secrets = reads.kind<SecretData>({
    name: "secret",
    type: SECRETS,
    maxEntries: 16,
    maxBytes: 4 * 1024 * 1024,
    strip: stripSecret,
    sizeOf: secretDataBytes,
  });
  return { reads, secrets };
}

Deno.test("a Secret is read, cut down to its data, and kept counted by its data's bytes", async () => {
  let requests = 0;
  let fresh = 0;
  const { secrets } = secretReader((request) => {
    requests++;
    assert.equal(request.url, "https://api.test/api/v1/namespaces/dev/secrets/pull");
    return new Response(secretAnswer("pull", 1000, 5000));
  });
  const secret = await secrets.read("dev", "pull", 64 * 1024, () => fresh++);
  assert.deepEqual(secret, {
    metadata: { name: "pull", namespace: "dev", resourceVersion: "5" },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": "e".repeat(1000) },
  });
  assert.equal(await secrets.read("dev", "pull", 64 * 1024, () => fresh++), secret);
  assert.equal(requests, 1);
  assert.equal(fresh, 1);
  // The data and the entry's own cost; not the annotation the answer carried.
  const stats = secrets.stats();
  assert.equal(stats.bytes, ".dockerconfigjson".length + 1000 + "dev/pull".length + 128);
});

Deno.test("a Secret larger than the reader's limit is refused before it is all read, and remembered so", async () => {
  const pulled = { chunks: 0 };
  let requests = 0;
  const { secrets, reads } = secretReader(() => {
    requests++;
    return streamed(secretAnswer("big", 1024 * 1024), pulled);
  });
  await assert.rejects(
    secrets.read("dev", "big", 64 * 1024),
    (error: Error) => {
      assert.ok(error instanceof ObjectTooLargeError);
      assert.equal(error.message, `Cannot read Secret "dev/big": it is larger than 64 KiB`);
      return true;
    },
  );
  assert.ok(pulled.chunks <= 64 / 16 + 2, `pulled ${pulled.chunks} chunks of 16 KiB`);
  assert.equal(reads.poolStats().reserved, 0);
  // Remembered: refused again without a request, for this limit or a smaller one.
  await assert.rejects(secrets.read("dev", "big", 64 * 1024), ObjectTooLargeError);
  await assert.rejects(secrets.read("dev", "big", 1024), ObjectTooLargeError);
  assert.equal(requests, 1);
  // A larger limit reads it again; a smaller limit then refuses the Secret kept.
  assert.equal(
    (await secrets.read("dev", "big", 2 * 1024 * 1024))?.data?.[".dockerconfigjson"]?.length,
    1024 * 1024,
  );
  assert.equal(requests, 2);
  await assert.rejects(secrets.read("dev", "big", 64 * 1024), ObjectTooLargeError);
  assert.equal(requests, 2);
});

Deno.test("reads on demand hold at most the pool's bytes at once", async () => {
  let open = 0;
  let mostOpen = 0;
  const { secrets, reads } = secretReader(async (request) => {
    mostOpen = Math.max(mostOpen, ++open);
    await new Promise((resolve) => setTimeout(resolve, 5));
    open--;
    const name = request.url.split("/").pop()!;
    return new Response(secretAnswer(name, 100));
  }, { poolBytes: 2 * 64 * 1024 });
  const names = Array.from({ length: 8 }, (_, i) => `s${i}`);
  const read = await Promise.all(names.map((name) => secrets.read("dev", name, 64 * 1024)));
  assert.deepEqual(read.map((s) => s?.metadata?.name), names);
  assert.equal(mostOpen, 2);
  assert.equal(reads.poolStats().peakReserved, 2 * 64 * 1024);
  assert.equal(reads.poolStats().reserved, 0);
});

Deno.test("reads of one object at once share one request; a missing one is undefined", async () => {
  let requests = 0;
  const { secrets } = secretReader(async () => {
    requests++;
    await new Promise((resolve) => setTimeout(resolve, 2));
    return Response.json({ kind: "Status", code: 404, reason: "NotFound" }, { status: 404 });
  });
  const both = await Promise.all([
    secrets.read("dev", "gone", 1024),
    secrets.read("dev", "gone", 1024),
  ]);
  assert.deepEqual(both, [undefined, undefined]);
  assert.equal(await secrets.read("dev", "gone", 1024), undefined);
  assert.equal(requests, 1);
});

Deno.test("a refusal says what was read, is not remembered, and an oversized error answer is not kept", async () => {
  let requests = 0;
  const pulled = { chunks: 0 };
  const { secrets } = secretReader(() => {
    requests++;
    if (requests === 1) {
      return Response.json({ kind: "Status", code: 403, message: 'secrets "pull" is forbidden' }, {
        status: 403,
      });
    }
    return streamed("x".repeat(1024 * 1024), pulled, 500);
  });
  await assert.rejects(
    secrets.read("dev", "pull", 64 * 1024),
    (error: Error) => error instanceof PolicySourceError && /forbidden/.test(error.message),
  );
  await assert.rejects(
    secrets.read("dev", "pull", 64 * 1024),
    (error: Error) =>
      error instanceof PolicySourceError && !(error instanceof ObjectTooLargeError) &&
      /status 500\) is larger than 65536 bytes/.test(error.message),
  );
  assert.equal(requests, 2);
  assert.ok(pulled.chunks <= 6);
});
