import assert from "node:assert/strict";
import { encodeBase64 } from "../base64.ts";
import { PolicySet } from "../policy/mod.ts";
import {
  MAX_PULL_SECRET_BYTES,
  MAX_PULL_SECRETS,
  pullCredentials,
  PullSecretLimitError,
} from "./credentials.ts";
import {
  ObjectTooLargeError,
  type PolicySource,
  type SecretData,
  type ServiceAccountData,
} from "./source.ts";

function dockerConfig(name: string, padding = 0): SecretData {
  const config = JSON.stringify({
    auths: { [`${name}.example.com`]: { auth: encodeBase64("user:password") } },
    padding: "x".repeat(padding),
  });
  return {
    metadata: { name, namespace: "dev", resourceVersion: "1" },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": encodeBase64(config) },
  };
}

/** A source of Secrets that records what was read, and how many reads overlapped. */
function recordingSource(
  secrets: Record<string, SecretData | Error>,
  account: ServiceAccountData | undefined = undefined,
) {
  const reads: { name: string; maxBytes: number | undefined }[] = [];
  let open = 0;
  let mostOpen = 0;
  const source: PolicySource = {
    ready: () => true,
    policies: () => new PolicySet([]),
    exemptNamespaces: () => new Set(),
    async secret(_namespace, name, options) {
      reads.push({ name, maxBytes: options?.maxBytes });
      mostOpen = Math.max(mostOpen, ++open);
      await new Promise((resolve) => setTimeout(resolve, 1));
      open--;
      const found = secrets[name];
      if (found instanceof Error) throw found;
      return found;
    },
    configMap: () => Promise.resolve(undefined),
    serviceAccount: () => Promise.resolve(account),
  };
  return { source, reads, mostOpen: () => mostOpen };
}

Deno.test("pullCredentials() reads the Pod's and the ServiceAccount's pull Secrets, one at a time", async () => {
  const { source, reads, mostOpen } = recordingSource(
    { a: dockerConfig("a"), b: dockerConfig("b"), c: dockerConfig("c") },
    { imagePullSecrets: [{ name: "c" }, { name: "a" }] },
  );
  const credentials = await pullCredentials(source, "dev", ["a", "b", "a", "missing"], "default");
  assert.deepEqual(reads.map((r) => r.name), ["a", "b", "missing", "c"]);
  assert.ok(reads.every((r) => r.maxBytes === MAX_PULL_SECRET_BYTES));
  assert.equal(mostOpen(), 1);
  assert.deepEqual(credentials.secrets, ["dev/a", "dev/b", "dev/c"]);
  assert.deepEqual(credentials.skipped, ["dev/missing: does not exist"]);
  assert.equal(credentials.store.lookup("b.example.com", "team/app").length, 1);
});

Deno.test("pullCredentials() reads nothing when the Pod names more pull Secrets than the bound", async () => {
  const names = Array.from({ length: 100 }, (_, i) => `pull-${i}`);
  const { source, reads } = recordingSource({});
  await assert.rejects(
    pullCredentials(source, "dev", names, "default"),
    (error: Error) => {
      assert.ok(error instanceof PullSecretLimitError);
      assert.equal(
        error.message,
        `Cannot read the image pull Secrets of namespace "dev": the Pod names 100 image pull ` +
          `Secrets; at most ${MAX_PULL_SECRETS} are read per request`,
      );
      return true;
    },
  );
  assert.equal(reads.length, 0);
});

Deno.test("pullCredentials() counts the ServiceAccount's pull Secrets in the bound", async () => {
  const pod = Array.from({ length: 10 }, (_, i) => `pod-${i}`);
  const account = { imagePullSecrets: Array.from({ length: 10 }, (_, i) => ({ name: `sa-${i}` })) };
  const { source, reads } = recordingSource({}, account);
  await assert.rejects(
    pullCredentials(source, "dev", pod, "builder"),
    /the Pod and its ServiceAccount "builder" name 20 image pull Secrets; at most 16 are read/,
  );
  assert.equal(reads.length, 0);
  // Repeats count once: 16 distinct names are read.
  const again = recordingSource({}, { imagePullSecrets: [{ name: "pod-1" }, { name: "x" }] });
  await pullCredentials(again.source, "dev", [...pod, "a", "b", "c", "d", "e"], "default");
  assert.equal(again.reads.length, MAX_PULL_SECRETS);
});

Deno.test("pullCredentials() stops reading once the pull Secrets' data passes the byte bound", async () => {
  const big = 70 * 1024; // about 96 KB of base64: the third one passes 256 KiB
  const { source, reads } = recordingSource({
    a: dockerConfig("a", big),
    b: dockerConfig("b", big),
    c: dockerConfig("c", big),
    d: dockerConfig("d"),
  });
  await assert.rejects(
    pullCredentials(source, "dev", ["a", "b", "c", "d"], "default"),
    (error: Error) => {
      assert.ok(error instanceof PullSecretLimitError);
      assert.match(
        error.message,
        /^Cannot read the image pull Secrets of namespace "dev": the image pull Secrets read up to "c" add up to \d+ bytes; at most 262144 bytes \(256 KiB\) are read per request$/,
      );
      return true;
    },
  );
  assert.deepEqual(reads.map((r) => r.name), ["a", "b", "c"]);
});

Deno.test("pullCredentials() names the bound when one pull Secret is too large to be read", async () => {
  const { source } = recordingSource({
    a: dockerConfig("a"),
    huge: new ObjectTooLargeError(`Secret "dev/huge"`, MAX_PULL_SECRET_BYTES),
  });
  await assert.rejects(
    pullCredentials(source, "dev", ["a", "huge"], "default"),
    (error: Error) => {
      assert.ok(error instanceof PullSecretLimitError);
      assert.equal(
        error.message,
        `Cannot read the image pull Secret "dev/huge": it is larger than 256 KiB; at most ` +
          `256 KiB of image pull Secrets are read per request`,
      );
      return true;
    },
  );
});

Deno.test("pullCredentials() takes its bounds from the caller", async () => {
  const { source } = recordingSource({ a: dockerConfig("a"), b: dockerConfig("b") });
  await assert.rejects(
    pullCredentials(source, "dev", ["a", "b"], "default", { maxSecrets: 1 }),
    /the Pod names 2 image pull Secrets; at most 1 are read per request/,
  );
  await assert.rejects(
    pullCredentials(source, "dev", ["a", "b"], "default", { maxBytes: 100 }),
    /add up to \d+ bytes; at most 100 bytes \(100 bytes\) are read per request/,
  );
});
