/**
 * The webhook as the benchmarks run it (not a benchmark itself: `main.ts` skips `_` files):
 * `webhook/main.ts` as a process on a free loopback port, with TLS from the bench's CA, its
 * policies from files, `--v8-flags=--max-semi-space-size=4` as recommended, its
 * log written to a file; resolves once `/readyz` answers.
 *
 * @module
 */
import { freePort, type ManagedProcess, startProcess, waitFor } from "../env/mod.ts";

const root = new URL("../../", import.meta.url).pathname;

/** How to start it. */
export interface PolicyWebhookOptions {
  /** Where its log and harness log go. */
  readonly dir: string;
  /** A name for its files and messages. */
  readonly name: string;
  /** The serving certificate and key files. */
  readonly certFile: string;
  readonly keyFile: string;
  /** An HTTP client trusting the serving certificate's CA. */
  readonly client: Deno.HttpClient;
  /** Every flag after the serving ones (`--policies`, `--insecure-registry`, …). */
  readonly args: readonly string[];
}

/** Starts the webhook; its process is stopped by the caller. */
export async function startPolicyWebhook(
  options: PolicyWebhookOptions,
): Promise<{ process: ManagedProcess; url: string }> {
  const port = freePort();
  const command = [
    Deno.execPath(),
    "run",
    "--allow-net",
    "--allow-read",
    "--allow-env",
    "--allow-sys",
    // A small young generation: the same throughput, and 50 MB less memory under sustained
    // load (the recommended setting, see docs/admission.md).
    "--v8-flags=--max-semi-space-size=4",
    `${root}webhook/main.ts`,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--tls-cert-file",
    options.certFile,
    "--tls-key-file",
    options.keyFile,
    ...options.args,
  ].map((a) => `'${a}'`).join(" ");
  const log = `${options.dir}/${options.name}.log`;
  const process = await startProcess("/bin/sh", ["-c", `exec ${command} >>'${log}' 2>&1`], {
    logFile: `${options.dir}/${options.name}.harness.log`,
  });
  await waitFor(`the ${options.name} webhook`, async () => {
    const r = await fetch(`https://127.0.0.1:${port}/readyz`, { client: options.client });
    return (await r.text()) === "ok\n";
  }, { process });
  return { process, url: `https://127.0.0.1:${port}/admit` };
}
