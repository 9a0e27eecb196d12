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
  const handler = createHandler();
  return await new Promise((resolve) => {
    const server = Deno.serve({
      hostname: config.hostname,
      port: config.port,
      cert,
      key,
      onListen: ({ hostname, port }) => {
        log({ msg: "listening", address: `${hostname}:${port}` });
        resolve(server);
      },
    }, handler);
  });
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
    log({ level: "error", msg: describeError(error) });
    Deno.exit(error instanceof UsageError ? 2 : 1);
  }
}
