import assert from "node:assert/strict";
import { registryFlags } from "./registry_access.ts";
import { parseReference } from "../../lib/image/mod.ts";

const OPTIONS = {
  "registries.d": "/nonexistent/registries.d",
  tlsVerify: true,
  creds: undefined,
  authfile: undefined,
  certDir: undefined,
} as const;

Deno.test("--registry-secret-dir reads a mounted registry Secret of either kind; an empty one is anonymous", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ref = parseReference("us.icr.io/team/app:1");
    await Deno.mkdir(`${dir}/dockerconfigjson`);
    await Deno.writeTextFile(
      `${dir}/dockerconfigjson/.dockerconfigjson`,
      JSON.stringify({ auths: { "us.icr.io": { username: "iamapikey", password: "pushes" } } }),
    );
    const json = await registryFlags(ref, OPTIONS, dir, {
      registrySecretDir: "dockerconfigjson",
    });
    assert.deepEqual(
      json.credentials?.lookup("us.icr.io", "team/app").map((c) => [c.username, c.password]),
      [["iamapikey", "pushes"]],
    );
    // The Cloud-Native Toolkit's registry-access Secret: for the image's registry.
    await Deno.mkdir(`${dir}/access`);
    await Deno.writeTextFile(`${dir}/access/REGISTRY_USER`, "ci");
    await Deno.writeTextFile(`${dir}/access/REGISTRY_PASSWORD`, "secret\n");
    const access = await registryFlags(ref, OPTIONS, dir, { registrySecretDir: "access" });
    assert.deepEqual(
      access.credentials?.lookup("us.icr.io", "team/app").map((c) => [c.username, c.password]),
      [["ci", "secret"]],
    );
    assert.deepEqual(access.credentials?.lookup("quay.io", "team/app"), []);
    await Deno.mkdir(`${dir}/empty`);
    const none = await registryFlags(ref, OPTIONS, dir, { registrySecretDir: "empty" });
    assert.equal(none.credentials, undefined);
    await Deno.writeTextFile(`${dir}/empty/.dockerconfigjson`, "{not json");
    await assert.rejects(
      () => registryFlags(ref, OPTIONS, dir, { registrySecretDir: "empty" }),
      /the registry Secret mounted at/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--lookaside-staging stages every image's signatures in the directory", async () => {
  const ref = parseReference("127.0.0.1:5000/team/app:1");
  const flags = await registryFlags(ref, OPTIONS, "/work", { lookasideStaging: "sigs" });
  assert.equal(flags.registriesD.defaultDocker?.lookasideStaging, "file:///work/sigs/");
  assert.equal(flags.registriesD.defaultDocker?.source, "--lookaside-staging");
  // An empty value (Tekton's unbound optional workspace) means none.
  const unset = await registryFlags(ref, OPTIONS, "/work", { lookasideStaging: "" });
  assert.equal(unset.registriesD.defaultDocker, undefined);
});
