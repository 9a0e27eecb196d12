/**
 * The webhook's command-line configuration: raw flags resolved once into a typed config,
 * failing loudly on bad values.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { UsageError } from "../lib/errors.ts";

/** The resolved configuration of the webhook server. */
export interface WebhookConfig {
  /** The address to listen on. */
  readonly hostname: string;
  /** The port to listen on (0: any free port). */
  readonly port: number;
  /** PEM certificate chain file. */
  readonly tlsCertFile: string;
  /** PEM private key file. */
  readonly tlsKeyFile: string;
}

/** The text of `toolkit-webhook --help`. */
export const WEBHOOK_USAGE = `toolkit-webhook: the toolkit image signature admission webhook

Usage: toolkit-webhook --tls-cert-file FILE --tls-key-file FILE [--port N] [--host ADDR]

Options:
  --port N              HTTPS port (default 8443; 0 picks a free port)
  --host ADDR           Address to listen on (default 0.0.0.0)
  --tls-cert-file FILE  PEM certificate chain (required)
  --tls-key-file FILE   PEM private key (required)
  -h, --help            Show this help
`;

/** Parses the webhook's flags. Throws {@link UsageError} for bad input. */
export function parseWebhookArgs(args: readonly string[]): WebhookConfig | "help" {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: "string", default: "8443" },
        host: { type: "string", default: "0.0.0.0" },
        "tls-cert-file": { type: "string" },
        "tls-key-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  if (values.help) return "help";
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`Cannot use port "${values.port}": expected a number from 0 to 65535`);
  }
  const tlsCertFile = values["tls-cert-file"];
  const tlsKeyFile = values["tls-key-file"];
  if (!tlsCertFile || !tlsKeyFile) {
    throw new UsageError("Both --tls-cert-file and --tls-key-file are required");
  }
  return { hostname: values.host ?? "0.0.0.0", port, tlsCertFile, tlsKeyFile };
}
