import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { commandContext } from "../context.ts";
import { bufferedIO } from "../io.ts";
import { generateCosignKeyPair } from "../../lib/signature/cosign_keys.ts";
import { generateKeyPair } from "../../lib/signature/mod.ts";

async function sign(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferedIO({ cwd, env });
  const status = await runCli(
    ["image-security", "sign", "127.0.0.1:1/demo/app:1", "--tls-verify=false", ...args],
    commandContext(io),
  );
  return { status, out: io.out(), err: io.err() };
}

Deno.test("sign refuses a format that does not fit the key, before reaching the registry", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cosign = await generateCosignKeyPair({ password: "pw" });
    await Deno.writeTextFile(`${dir}/cosign.key`, cosign.privateKeyPem);
    const gpg = await generateKeyPair({ name: "CI", type: "ed25519" });
    await Deno.writeTextFile(`${dir}/ci.key.asc`, gpg.privateKeyArmored);
    const env = { COSIGN_PASSWORD: "pw" };
    const cases: [string[], RegExp][] = [
      [
        ["--key", "cosign.key", "--format", "simple"],
        /Cannot make a simple signature with the cosign key/,
      ],
      [["--key", "ci.key.asc", "--format", "bundle"], /it is not a cosign private key/],
      [["--key", "ci.key.asc", "--format", "cosign"], /it is not a cosign private key/],
      [["--key", "cosign.key", "--identity", "x/y"], /Cannot use --identity with --format bundle/],
    ];
    for (const [args, message] of cases) {
      const r = await sign(dir, args, env);
      assert.equal(r.status, 2, r.err);
      assert.match(r.err, message);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sign with a cosign key needs its password, and names a wrong one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cosign = await generateCosignKeyPair({ password: "pw" });
    await Deno.writeTextFile(`${dir}/cosign.key`, cosign.privateKeyPem);
    const missing = await sign(dir, ["--key", "cosign.key"]);
    assert.equal(missing.status, 2);
    assert.match(missing.err, /needs its password: pass --passphrase-file or set COSIGN_PASSWORD/);
    const wrong = await sign(dir, ["--key", "cosign.key"], { COSIGN_PASSWORD: "nope" });
    assert.equal(wrong.status, 1);
    assert.match(wrong.err, /the password is wrong/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
