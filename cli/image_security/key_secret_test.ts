/**
 * `toolkit image-security key-secret` in-process, against the in-memory API server: the key
 * Secret enforcement trusts is never replaced without `--replace` (or a yes on a terminal), and
 * a `-n` without its value writes nothing. The end-to-end test against a real API server is
 * `tests/image_security/key_secret_test.ts`.
 */
import assert from "node:assert/strict";
import { NAMESPACES, SECRETS } from "../../lib/kube/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { generateKeyPair } from "../../lib/signing/mod.ts";
import { fakeCli } from "../../tests/fakes/cli.ts";

async function setUp() {
  const cli = await fakeCli({ contexts: [{ name: "ctx", namespace: "shop" }] });
  for (const name of ["shop", "dev"]) cli.kube.seed(NAMESPACES, { metadata: { name } });
  const first = await generateKeyPair({ name: "First", type: "ed25519" });
  const second = await generateKeyPair({ name: "Second", type: "ed25519" });
  await Deno.writeTextFile(`${cli.dir}/first.asc`, first.publicKeyArmored);
  await Deno.writeTextFile(`${cli.dir}/second.asc`, second.publicKeyArmored);
  return { cli, first, second };
}

function heldKey(cli: Awaited<ReturnType<typeof setUp>>["cli"], ns: string, name: string) {
  const data = cli.kube.get(SECRETS, ns, name)?.data as Record<string, string> | undefined;
  return data?.key === undefined ? undefined : decodeBase64Text(data.key);
}

Deno.test("key-secret replaces a Secret holding other keys only with --replace", async () => {
  const { cli, first, second } = await setUp();
  await using _ = cli;
  const created = await cli.run(["image-security", "key-secret", "s", "--key", "first.asc"]);
  assert.equal(created.status, 0, created.err);
  assert.match(created.err, /Secret "shop\/s" created with 1 key/);
  const same = await cli.run(["image-security", "key-secret", "s", "--key", "first.asc"]);
  assert.equal(same.status, 0, same.err);
  assert.match(same.err, /Secret "shop\/s" unchanged/);

  const refused = await cli.run(["image-security", "key-secret", "s", "--key", "second.asc"]);
  assert.equal(refused.status, 2, refused.err);
  assert.match(
    refused.err,
    new RegExp(
      `Secret "shop/s" already holds other keys \\(${first.fingerprint}\\); pass --replace to replace it`,
    ),
  );
  assert.match(refused.err, /Run 'toolkit image-security key-secret --help' for usage/);
  assert.match(heldKey(cli, "shop", "s") ?? "", /BEGIN PGP PUBLIC KEY BLOCK/);
  const kept = heldKey(cli, "shop", "s");

  const declined = await cli.run(
    ["image-security", "key-secret", "s", "--key", "second.asc"],
    { answers: [false] },
  );
  assert.equal(declined.status, 2, declined.err);
  assert.match(declined.err, /was left as it is: nothing was changed \(--replace replaces it\)/);
  assert.match(declined.asked[0]!, /Secret "shop\/s" already holds other keys .*Replace it\?/);
  assert.equal(heldKey(cli, "shop", "s"), kept, "nothing changed");

  const confirmed = await cli.run(
    ["image-security", "key-secret", "s", "--key", "second.asc"],
    { answers: [true] },
  );
  assert.equal(confirmed.status, 0, confirmed.err);
  assert.match(
    confirmed.err,
    new RegExp(`Secret "shop/s" updated with 1 key: ${second.fingerprint}`),
  );

  const replaced = await cli.run(
    ["image-security", "key-secret", "s", "--key", "first.asc", "--replace"],
  );
  assert.equal(replaced.status, 0, replaced.err);
  assert.equal(heldKey(cli, "shop", "s"), kept);
});

Deno.test("key-secret does not take over a Secret that is not a key Secret", async () => {
  const { cli } = await setUp();
  await using _ = cli;
  cli.kube.seed(SECRETS, {
    metadata: { name: "db", namespace: "shop" },
    data: { password: btoa("hunter2") },
  });
  const r = await cli.run(["image-security", "key-secret", "db", "--key", "first.asc"]);
  assert.equal(r.status, 2, r.err);
  assert.match(
    r.err,
    /Secret "shop\/db" already exists and is not a key Secret \(entries: password\)/,
  );
  assert.deepEqual(cli.kube.get(SECRETS, "shop", "db")?.data, { password: btoa("hunter2") });
});

Deno.test("key-secret with -n and no value writes nothing", async () => {
  const { cli } = await setUp();
  await using _ = cli;
  for (const args of [["-n"], ["-n", "--dry-run"]]) {
    const r = await cli.run(["image-security", "key-secret", "s", "--key", "first.asc", ...args]);
    assert.equal(r.status, 2, r.err);
    assert.match(r.err, /Flag -n \(--namespace\) needs a value/);
    assert.equal(cli.kube.get(SECRETS, "shop", "s"), undefined);
    assert.equal(r.out, "");
  }
});
