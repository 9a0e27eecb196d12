/**
 * `toolkit image-security vault store|fetch` run in-process against the Key Protect stand-in,
 * for their tests (`cli/image_security/vault_store_test.ts`, `vault_fetch_test.ts`): the commands bound to their
 * options, a command context with a fake clock, and a temporary directory.
 *
 * @module
 */
import { join } from "node:path";
import * as vault from "../../cli/image_security/vault.ts";
import { bindOptions, type CommandContext } from "../../cli/command.ts";
import { VAULT_FETCH, VAULT_STORE } from "../../cli/image_security/vault_command.ts";
import { type BufferedIO, bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";
import { fakeClock } from "./clock.ts";
import { scriptedTerminal } from "./terminal.ts";

/** The Key Protect instance of the stand-in the tests start. */
export const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
/** The bearer token the stand-in accepts. */
export const TOKEN = "static-test-token-1234";

/** `vault store`, bound to its declared options. */
export const runVaultStore = bindOptions(VAULT_STORE, vault.runVaultStore);
/** `vault fetch`, bound to its declared options. */
export const runVaultFetch = bindOptions(VAULT_FETCH, vault.runVaultFetch);

/** A command context with a fake clock (retries and waits take no time). */
export function context(
  options: { cwd: string; env?: Record<string, string>; answers?: (string | boolean)[] },
): CommandContext & { readonly io: BufferedIO; clock: ReturnType<typeof fakeClock> } {
  const io = bufferedIO({
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
    interactive: options.answers !== undefined,
  });
  const clock = fakeClock();
  return {
    ...commandContext(io, "toolkit", {
      clock,
      ...(options.answers ? { terminal: scriptedTerminal(options.answers) } : {}),
    }),
    clock,
  };
}

/** A temporary directory removed (with anything in it) when disposed. */
export async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "vault_test_" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

/** The flags that reach the stand-in at `url`, with `extra`. */
export function vaultArgs(url: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { kmsUrl: url, instanceId: INSTANCE, token: TOKEN, ...extra };
}

/** Stores "secret material" as key "signing" (from key.asc in `dir`). */
export async function storeSigningKey(dir: string, url: string): Promise<void> {
  await Deno.writeFile(join(dir, "key.asc"), new TextEncoder().encode("secret material"));
  await runVaultStore(vaultArgs(url, { name: "signing", key: "key.asc" }), context({ cwd: dir }));
}
