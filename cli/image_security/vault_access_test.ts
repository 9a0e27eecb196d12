/**
 * The vault's credentials as `vaultCredentials` reads them (`cli/secret_flag.ts`): the bearer
 * token and the IAM API key, each from its file, its environment variable, stdin or the flag (which
 * warns), one source each; `setup-signing`, which needs the API key twice, reads it once.
 */
import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { promptTerminal } from "../terminal.ts";
import { vaultCredentials, type VaultOptions } from "./vault_access.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { assertNoCanary, canary, rejection } from "../../tests/fakes/secret_canary.ts";

function options(given: Partial<VaultOptions>): VaultOptions {
  return { verbose: false, ...given } as VaultOptions;
}

Deno.test("vaultCredentials: the token and the API key from a file, the environment, stdin or a flag", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit_vault_access_" });
  try {
    const secret = canary();
    await Deno.writeTextFile(`${dir}/secret`, `${secret}\n`);
    const cases: [Partial<VaultOptions>, Record<string, string>, string, "token" | "apiKey"][] = [
      [{ tokenFile: "secret" }, {}, "", "token"],
      [{}, { KMS_TOKEN: secret }, "", "token"],
      [{ token: "-" }, {}, `${secret}\n`, "token"],
      [{ apiKeyFile: "secret" }, {}, "", "apiKey"],
      [{}, { IBMCLOUD_API_KEY: secret }, "", "apiKey"],
      [{ apiKey: "-" }, {}, secret, "apiKey"],
    ];
    for (const [given, env, stdin, which] of cases) {
      const io = bufferedIO({ env, cwd: dir, stdin });
      const got = await vaultCredentials(options(given), { io, terminal: promptTerminal(io) });
      assert.equal(got[which], secret, JSON.stringify(given));
      assert.equal(got[which === "token" ? "apiKey" : "token"], undefined);
      assert.equal(io.err(), "", "no warning");
    }
    const io = bufferedIO();
    const got = await vaultCredentials(options({ token: secret, apiKey: secret }), {
      io,
      terminal: promptTerminal(io),
    });
    assert.deepEqual(got, { token: secret, apiKey: secret });
    assert.equal(
      io.err().match(/^warning: the bearer token given as --token's value/gm)?.length,
      1,
    );
    assert.match(
      io.err(),
      /^warning: the IAM API key given as --api-key's value .* pass --api-key-file FILE, set IBMCLOUD_API_KEY, or give --api-key -/m,
    );
    assert.ok(!io.err().includes(secret));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("vaultCredentials: two sources of one secret, or stdin for both, are usage errors; an empty file fails", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit_vault_access_" });
  try {
    const secret = canary();
    await Deno.writeTextFile(`${dir}/secret`, secret);
    await Deno.writeTextFile(`${dir}/empty`, "");
    const cases: [Partial<VaultOptions>, Record<string, string>, RegExp, boolean][] = [
      [
        { apiKey: secret },
        { IBMCLOUD_API_KEY: secret },
        /both --api-key and \$IBMCLOUD_API_KEY/,
        true,
      ],
      [
        { apiKeyFile: "secret" },
        { IBMCLOUD_API_KEY: secret },
        /both --api-key-file and \$IBMCLOUD_API_KEY/,
        true,
      ],
      [{ token: secret, tokenFile: "secret" }, {}, /both --token and --token-file/, true],
      [
        { token: "-", apiKey: "-" },
        {},
        /Only one of --token and --api-key can be read from stdin/,
        true,
      ],
      [{ apiKeyFile: "empty" }, {}, /^Cannot use --api-key-file "empty": it is empty$/, false],
    ];
    for (const [given, env, says, usage] of cases) {
      const io = bufferedIO({ env, cwd: dir });
      const error = await rejection(
        vaultCredentials(options(given), { io, terminal: promptTerminal(io) }),
      );
      assert.ok(error instanceof ToolkitError, String(error));
      assert.equal(error instanceof UsageError, usage, String(error));
      assert.match(error.message, says);
      assertNoCanary(error, secret);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
