/**
 * The `toolkit-webhook` executable: an HTTPS server on `Deno.serve`.
 *
 * @module
 */
import { parseWebhookArgs, WEBHOOK_USAGE } from "./config.ts";
import { createHandler } from "./handler.ts";
import { describeError, UsageError } from "../lib/errors.ts";

/** Starts the server and returns it; resolves once it listens. */
export async function startWebhook(args: readonly string[]): Promise<Deno.HttpServer | undefined> {
  const config = parseWebhookArgs(args);
  if (config === "help") {
    await Deno.stdout.write(new TextEncoder().encode(WEBHOOK_USAGE));
    return undefined;
  }
  const [cert, key] = await Promise.all([
    Deno.readTextFile(config.tlsCertFile),
    Deno.readTextFile(config.tlsKeyFile),
  ]);
  return Deno.serve({
    hostname: config.hostname,
    port: config.port,
    cert,
    key,
    onListen: ({ hostname, port }) => log({ msg: "listening", address: `${hostname}:${port}` }),
  }, createHandler());
}

function log(fields: Record<string, unknown>): void {
  // deno-lint-ignore no-console
  console.error(JSON.stringify({ time: new Date().toISOString(), ...fields }));
}

if (import.meta.main) {
  try {
    const server = await startWebhook(Deno.args);
    if (server) {
      const stop = () => void server.shutdown();
      Deno.addSignalListener("SIGTERM", stop);
      Deno.addSignalListener("SIGINT", stop);
      await server.finished;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      await Deno.stderr.write(
        new TextEncoder().encode(`error: ${describeError(error)}\n\n${WEBHOOK_USAGE}`),
      );
      Deno.exit(2);
    }
    log({ level: "error", msg: describeError(error) });
    Deno.exit(1);
  }
}
