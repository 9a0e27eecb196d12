/**
 * `toolkit image-security setup-signing` in-process: the in-memory API server of
 * `tests/fakes/kube_api.ts` serving Tekton's Tasks and the policy kinds, and the Key Protect and
 * IAM stand-in of `tests/fakes/key_protect_server.ts` (the vault is a cloud service). What each
 * run writes, that a second run changes nothing, rotation, and every kind of bad input failing
 * clearly with nothing half-written. The real API server, Tekton's validation, the signing step
 * and the webhook are in `tests/tekton/sign_task_e2e_test.ts`.
 */
import assert from "node:assert/strict";
import {
  clusterImagePolicies,
  imagePolicies,
  type KubeObject,
  NAMESPACES,
  SECRETS,
} from "../../lib/kube/mod.ts";
import { tektonApisAt } from "../../lib/tekton/mod.ts";
import { readPublicKeys } from "../../lib/signature/mod.ts";
import { secretEntries, signingSetupOf } from "../../lib/signing/mod.ts";
import { createKeyProtectClient } from "../../lib/vault/mod.ts";
import { seedKey } from "../../tests/fakes/key_protect_seed.ts";
import { type FakeCli, fakeCli } from "../../tests/fakes/cli.ts";
import {
  type KeyProtectServer,
  startKeyProtectServer,
} from "../../tests/fakes/key_protect_server.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const API_KEY = "setup-signing-test-api-key-0123456789";
const TOKEN = "static-test-token-for-seeding";
const TASKS = tektonApisAt("v1", "v1beta1").tasks;
const CLUSTER_POLICIES = clusterImagePolicies("toolkit.dev");
const IMAGE_POLICIES = imagePolicies("toolkit.dev");

interface Setup extends AsyncDisposable {
  readonly cli: FakeCli;
  readonly vault: KeyProtectServer;
  readonly args: string[];
  readonly env: Record<string, string>;
}

async function setUp(): Promise<Setup> {
  const cli = await fakeCli({ types: [TASKS, CLUSTER_POLICIES, IMAGE_POLICIES] });
  for (const name of ["tools", "toolkit-system", "dev"]) {
    cli.kube.seed(NAMESPACES, { metadata: { name } });
  }
  const vault = await startKeyProtectServer({
    instanceId: INSTANCE,
    apiKeys: [API_KEY],
    tokens: [TOKEN],
  });
  return {
    cli,
    vault,
    args: [
      "image-security",
      "setup-signing",
      "--repository",
      "us.icr.io/team/*",
      "--kms-url",
      vault.url,
      "--instance-id",
      INSTANCE,
      "--iam-url",
      vault.iamUrl,
      "--key-type",
      "ed25519",
    ],
    env: { IBMCLOUD_API_KEY: API_KEY },
    async [Symbol.asyncDispose]() {
      await vault.stop();
      await cli[Symbol.asyncDispose]();
    },
  };
}

/** `args` with the value of `flag` replaced. */
function withFlag(args: readonly string[], flag: string, value: string): string[] {
  const at = args.indexOf(flag);
  assert.ok(at >= 0, flag);
  return [...args.slice(0, at + 1), value, ...args.slice(at + 2)];
}

function vaultClient(vault: KeyProtectServer) {
  return createKeyProtectClient({
    baseUrl: vault.url,
    instanceId: INSTANCE,
    token: () => Promise.resolve(TOKEN),
  });
}

function entriesOf(secret: KubeObject | undefined): Record<string, string> {
  assert.ok(secret);
  return secretEntries(secret);
}

function policyRequirement(policy: KubeObject | undefined) {
  const repositories = (policy?.spec as {
    repositories: { name: string; policy: Record<string, unknown> }[];
  }).repositories;
  return repositories;
}

Deno.test("setup-signing stores the key in the vault and writes the Secrets, Task and policy, once", async () => {
  await using s = await setUp();
  const { cli, vault, args, env } = s;
  const r = await cli.run([...args, "-o", "json"], { env });
  assert.equal(r.status, 0, r.err);
  const report = JSON.parse(r.out);
  assert.match(report.fingerprint, /^[0-9A-F]{40}$/);
  assert.deepEqual(
    report.steps.map((step: { step: string; outcome: string }) => [step.step, step.outcome]),
    [
      ["key", "made"],
      ["vault", "stored"],
    ],
  );
  assert.deepEqual(
    report.results.map((x: { kind: string; name: string; outcome: string }) =>
      `${x.kind} ${x.name} ${x.outcome}`
    ),
    [
      "Secret image-signing created",
      "Secret image-signing-key created",
      "Task toolkit-image-sign created",
      "ClusterImagePolicy image-signing created",
    ],
  );
  // Each step is said on stderr; the API key never.
  assert.match(
    r.err,
    /Vault: stored the private key as "toolkit-image-signing" \(id [0-9a-f-]{36}, alias toolkit-image-signing, extractable\)/,
  );
  assert.doesNotMatch(r.err + r.out, new RegExp(API_KEY));

  // The vault holds the private key, extractable; its public half is in the key Secret.
  const setup = signingSetupOf(entriesOf(cli.kube.get(SECRETS, "tools", "image-signing")), "s");
  assert.equal(setup.keyId, report.keyId);
  assert.equal(setup.apiKey, API_KEY);
  assert.equal(setup.vaultUrl, vault.url);
  assert.equal(setup.fingerprint, report.fingerprint);
  assert.equal(setup.keySecret, "toolkit-system/image-signing-key");
  // The provenance's builder: toolkit's for the template namespace unless --builder-id says.
  assert.equal(setup.builderId, "https://toolkit.dev/tekton/tools");
  assert.equal(report.builderId, "https://toolkit.dev/tekton/tools");
  const key = await vaultClient(vault).getKey(report.keyId);
  assert.equal(key.extractable, true);
  assert.match(new TextDecoder().decode(key.payload), /BEGIN PGP PRIVATE KEY BLOCK/);
  const publicKeys = await readPublicKeys(
    entriesOf(cli.kube.get(SECRETS, "toolkit-system", "image-signing-key")).key!,
  );
  assert.deepEqual(publicKeys.map((k) => k.getFingerprint().toUpperCase()), [report.fingerprint]);
  // sync copies the Secret: it carries the tool-config grouping label.
  assert.equal(
    cli.kube.get(SECRETS, "tools", "image-signing")?.metadata.labels?.group,
    "catalyst-tools",
  );
  assert.ok(cli.kube.get(TASKS, "tools", "toolkit-image-sign"));
  assert.deepEqual(policyRequirement(cli.kube.get(CLUSTER_POLICIES, undefined, "image-signing")), [{
    name: "us.icr.io/team/*",
    policy: {
      simple: {
        requirements: [{
          type: "signedBy",
          keySecret: "image-signing-key",
          keySecretNamespace: "toolkit-system",
        }],
      },
    },
  }]);

  // Nothing touched the disk: the temp directory (HOME, cwd) holds only the kubeconfig.
  const files = [];
  for await (const entry of Deno.readDir(cli.dir)) files.push(entry.name);
  assert.deepEqual(files.filter((f) => f !== "kubeconfig" && !f.startsWith(".")), []);

  // A second run reuses the key and changes nothing.
  const stored =
    vault.requests.filter((q) => q.method === "POST" && q.path === "/api/v2/keys").length;
  const again = await cli.run([...args, "-o", "json"], { env });
  assert.equal(again.status, 0, again.err);
  const second = JSON.parse(again.out);
  assert.equal(second.fingerprint, report.fingerprint);
  assert.deepEqual(second.steps.map((step: { outcome: string }) => step.outcome), [
    "reused",
    "unchanged",
  ]);
  for (const result of second.results) {
    assert.equal(result.outcome, "unchanged", JSON.stringify(result));
  }
  assert.equal(
    vault.requests.filter((q) => q.method === "POST" && q.path === "/api/v2/keys").length,
    stored,
  );
});

Deno.test("setup-signing --dry-run prints the objects, makes no key and writes nothing", async () => {
  await using s = await setUp();
  const r = await s.cli.run([...s.args, "--dry-run", "-o", "json"], { env: s.env });
  assert.equal(r.status, 0, r.err);
  const list = JSON.parse(r.out) as { items: KubeObject[] };
  assert.deepEqual(list.items.map((o) => `${o.kind} ${o.metadata.name}`), [
    "Secret image-signing",
    "Secret image-signing-key",
    "Task toolkit-image-sign",
    "ClusterImagePolicy image-signing",
  ]);
  assert.doesNotMatch(r.out, new RegExp(API_KEY));
  assert.equal(entriesOf(list.items[0]).apikey, "<redacted>");
  assert.equal(s.cli.kube.get(SECRETS, "tools", "image-signing"), undefined);
  assert.equal(
    s.vault.requests.filter((q) => q.method === "POST" && q.path === "/api/v2/keys").length,
    0,
  );
});

Deno.test("setup-signing -n writes an ImagePolicy and its key Secret in that namespace, mutateImage as told", async () => {
  await using s = await setUp();
  const r = await s.cli.run([
    ...s.args,
    "-n",
    "dev",
    "--no-mutate-image",
    "--repository",
    "us.icr.io/ops/*",
  ], {
    env: s.env,
  });
  assert.equal(r.status, 0, r.err);
  assert.ok(s.cli.kube.get(SECRETS, "dev", "image-signing-key"));
  assert.equal(s.cli.kube.get(CLUSTER_POLICIES, undefined, "image-signing"), undefined);
  assert.deepEqual(
    policyRequirement(s.cli.kube.get(IMAGE_POLICIES, "dev", "image-signing")),
    [
      "us.icr.io/team/*",
      "us.icr.io/ops/*",
    ].map((name) => ({
      name,
      policy: {
        mutateImage: false,
        simple: { requirements: [{ type: "signedBy", keySecret: "image-signing-key" }] },
      },
    })),
  );
});

Deno.test("setup-signing replaces a key only with --replace, keeping the old public key until --retire-old-keys", async () => {
  await using s = await setUp();
  const { cli, args, env } = s;
  const first = JSON.parse((await cli.run([...args, "-o", "json"], { env })).out);
  // Another vault instance is another key: refused without --replace.
  const other = await cli.run(
    withFlag(args, "--instance-id", "0d1c2b3a-4c1d-4e8f-9a7b-1c2d3e4f5a6b"),
    {
      env,
    },
  );
  assert.equal(other.status, 2, "a usage error: --replace on the command line replaces it");
  assert.match(
    other.err,
    /Signing is set up with another key: Secret "tools\/image-signing": it uses the vault .* Pass --replace/,
  );

  const rotated = await cli.run([...args, "--replace", "-o", "json"], { env });
  assert.equal(rotated.status, 0, rotated.err);
  const second = JSON.parse(rotated.out);
  assert.notEqual(second.fingerprint, first.fingerprint);
  assert.notEqual(second.keyId, first.keyId);
  const trusted = async () =>
    (await readPublicKeys(
      entriesOf(cli.kube.get(SECRETS, "toolkit-system", "image-signing-key")).key!,
    ))
      .map((k) => k.getFingerprint().toUpperCase());
  assert.deepEqual(await trusted(), [second.fingerprint, first.fingerprint]);
  // Idempotent with both keys; then the old one is retired.
  const again = JSON.parse((await cli.run([...args, "-o", "json"], { env })).out);
  for (const result of again.results) assert.equal(result.outcome, "unchanged");
  assert.equal((await cli.run([...args, "--retire-old-keys"], { env })).status, 0);
  assert.deepEqual(await trusted(), [second.fingerprint]);
});

Deno.test("setup-signing --vault-key adopts a key the vault already holds (the Cloud-Native Toolkit's)", async () => {
  await using s = await setUp();
  const { makeSigningKeyPair } = await import("../../lib/signing/mod.ts");
  const pair = await makeSigningKeyPair({ format: "simple", keyType: "ed25519", name: "Old" });
  const stored = await vaultClient(s.vault).createKey({
    name: "portieris-image-signing-private-key",
    payload: pair.privateKey,
    extractable: true,
  });
  const r = await s.cli.run(
    [...s.args, "--vault-key", "portieris-image-signing-private-key", "-o", "json"],
    { env: s.env },
  );
  assert.equal(r.status, 0, r.err);
  const report = JSON.parse(r.out);
  assert.equal(report.keyId, stored.id);
  assert.equal(report.fingerprint, pair.fingerprint);
  assert.equal(report.steps[0].outcome, "adopted");
});

Deno.test("setup-signing fails clearly on bad input, leaving no policy behind", async () => {
  await using s = await setUp();
  const { cli, vault, args, env } = s;
  const client = vaultClient(vault);
  const root = await seedKey(vault, { instanceId: INSTANCE, token: TOKEN }, {
    name: "a-root-key",
    extractable: false,
  });
  const junk = await client.createKey({
    name: "not-a-key",
    payload: new TextEncoder().encode("this is no key"),
    extractable: true,
  });
  await client.createKey({
    name: "another-setup",
    payload: new TextEncoder().encode("whatever it holds"),
    extractable: true,
    aliases: ["taken-alias"],
  });
  const cases: [string[], Record<string, string>, number, RegExp][] = [
    [
      ["--builder-id", "our tekton"],
      env,
      2,
      /Invalid --builder-id "our tekton": expected an absolute URI/,
    ],
    [
      ["--key-name", "taken-alias"],
      env,
      2, // --replace or another --key-name on the command line: a usage error
      /has a key with the alias "taken-alias" already \(id [0-9a-f-]{36}\): use it with --vault-key [0-9a-f-]{36}, rotate to a new key with --replace, or name the new key with --key-name/,
    ],
    [
      withFlag(args, "--kms-url", "http://127.0.0.1:1"),
      env,
      1,
      /Cannot (list|fetch|store)|reach|connect/i,
    ],
    [["--repository", "*"], env, 2, /Invalid --repository "\*": name the registry and a namespace/],
    [["--repository", "us.icr.io/*"], env, 2, /Invalid --repository "us.icr.io\/\*"/],
    [["--repository", "us.icr.io/Team/*"], env, 2, /upper case/],
    [[], {}, 2, /Missing the IAM API key the pipelines sign in with/],
    [[], { IBMCLOUD_API_KEY: "wrong-key" }, 1, /IAM token.*400.*BXNIM0415E/],
    [
      ["--vault-key", "0d1c2b3a-4c1d-4e8f-9a7b-000000000000"],
      env,
      1,
      /Cannot fetch key "0d1c2b3a-4c1d-4e8f-9a7b-000000000000": no key has this id in instance/,
    ],
    [
      ["--vault-key", "no-such-name"],
      env,
      1,
      /Cannot fetch key "[a-z-]*": no key has this alias or name in instance/,
    ],
    [
      ["--vault-key", root],
      env,
      1,
      /is a root key, whose material never leaves the vault/,
    ],
    [
      ["--vault-key", junk.id],
      env,
      1,
      /is not a signing key: it holds neither an OpenPGP private key nor a cosign private key/,
    ],
    [["--format", "cosign"], env, 2, /--key-type is for OpenPGP keys/],
    [["-t", "nope"], env, 1, /template namespace "nope"/],
  ];
  for (const [extra, runEnv, status, message] of cases) {
    const r = await cli.run(extra[0] === args[0] ? extra : [...args, ...extra], { env: runEnv });
    assert.equal(r.status, status, `${extra.join(" ")}\n${r.err}`);
    assert.match(r.err, message, `${extra.join(" ")}\n${r.err}`);
    assert.doesNotMatch(r.err, new RegExp(API_KEY));
  }
  assert.equal(cli.kube.list(CLUSTER_POLICIES).length, 0);
  assert.equal(cli.kube.get(SECRETS, "tools", "image-signing"), undefined);

  // The API server refuses the public key Secret: the image-signing Secret was written (so a
  // rerun reuses the key), the policy was not.
  cli.kube.refuse({ method: "PATCH", type: SECRETS, namespace: "toolkit-system" });
  const refused = await cli.run(args, { env });
  assert.equal(refused.status, 1);
  assert.match(refused.err, /Cannot write the public key Secret: .*no policy was applied/);
  assert.equal(cli.kube.list(CLUSTER_POLICIES).length, 0);
  assert.ok(cli.kube.get(SECRETS, "tools", "image-signing"));
});

Deno.test("setup-signing --format cosign: an ECDSA key in the vault, its PEM key, a sigstoreSigned policy", async () => {
  await using s = await setUp();
  const { cli, vault, env } = s;
  // --key-type is for OpenPGP keys: the default stands.
  const args = s.args.filter((a, i) => a !== "--key-type" && s.args[i - 1] !== "--key-type");
  const r = await cli.run([...args, "--format", "cosign", "-o", "json"], { env });
  assert.equal(r.status, 0, r.err);
  const report = JSON.parse(r.out);
  assert.equal(report.format, "cosign");
  assert.match(report.fingerprint, /^[0-9a-f]{64}$/);
  const setup = signingSetupOf(entriesOf(cli.kube.get(SECRETS, "tools", "image-signing")), "s");
  assert.equal(setup.format, "cosign");
  assert.ok(setup.cosignPassword);
  const key = await vaultClient(vault).getKey(report.keyId);
  assert.match(new TextDecoder().decode(key.payload), /BEGIN ENCRYPTED SIGSTORE PRIVATE KEY/);
  assert.match(
    entriesOf(cli.kube.get(SECRETS, "toolkit-system", "image-signing-key")).key!,
    /^-----BEGIN PUBLIC KEY-----\n/,
  );
  assert.deepEqual(policyRequirement(cli.kube.get(CLUSTER_POLICIES, undefined, "image-signing")), [{
    name: "us.icr.io/team/*",
    policy: {
      simple: {
        requirements: [{
          type: "sigstoreSigned",
          keySecret: "image-signing-key",
          keySecretNamespace: "toolkit-system",
        }],
      },
    },
  }]);
  // Again: nothing changes; the dry run redacts the password with the API key.
  const again = await cli.run([...args, "--format", "cosign", "-o", "json"], { env });
  assert.equal(again.status, 0, again.err);
  for (const result of JSON.parse(again.out).results) assert.equal(result.outcome, "unchanged");
  const dry = await cli.run([...args, "--format", "cosign", "--dry-run", "-o", "json"], { env });
  assert.equal(dry.status, 0, dry.err);
  assert.ok(!dry.out.includes(setup.cosignPassword!));
  // A simple setup over it is another key.
  const other = await cli.run(args, { env });
  assert.equal(other.status, 2, "a usage error: --replace on the command line replaces it");
  assert.match(other.err, /its key is a cosign key\. Pass --replace/);
});

Deno.test("setup-signing reads the API key once: from stdin (--api-key -), or a value that warns once", async () => {
  await using s = await setUp();
  const { cli, args } = s;
  const r = await cli.run([...args, "--api-key", "-", "--dry-run"], { stdin: `${API_KEY}\n` });
  assert.equal(r.status, 0, r.err);
  assert.doesNotMatch(r.err, /warning/);
  assert.ok(!(r.out + r.err).includes(API_KEY));
  const value = await cli.run([...args, "--api-key", API_KEY, "--dry-run"]);
  assert.equal(value.status, 0, value.err);
  assert.equal(value.err.match(/warning: the IAM API key given as --api-key's value/g)?.length, 1);
  assert.ok(!(value.out + value.err).includes(API_KEY));
  const both = await cli.run([...args, "--api-key", API_KEY, "--dry-run"], { env: s.env });
  assert.equal(both.status, 2, both.err);
  assert.match(
    both.err,
    /Give the IAM API key once: both --api-key and \$IBMCLOUD_API_KEY give it/,
  );
});
