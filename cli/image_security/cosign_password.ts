/**
 * The password of a cosign private key, found where cosign looks for it and in toolkit's flag:
 * `--passphrase-file` first, then `$COSIGN_PASSWORD` (set, even empty, it is the password, as for
 * cosign), then a question on the terminal (twice for a new key). Without any of them the caller
 * decides: `keygen` encrypts with an empty password and says so, `sign` fails naming the flag.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { readPassphrase } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";

/** Where the password came from, for messages. */
export type PasswordSource = "--passphrase-file" | "COSIGN_PASSWORD" | "terminal";

/** Finds the password of a cosign key; undefined when nothing gives one. */
export async function cosignPassword(
  ctx: Pick<CommandContext, "io" | "terminal">,
  options: { readonly passphraseFile: string | undefined },
  question: { readonly message: string; readonly confirm?: boolean },
): Promise<{ password: string; source: PasswordSource } | undefined> {
  const { io, terminal } = ctx;
  const fromFile = await readPassphrase(io.cwd, options);
  if (fromFile !== undefined) return { password: fromFile, source: "--passphrase-file" };
  const fromEnv = io.env.COSIGN_PASSWORD;
  if (fromEnv !== undefined) return { password: fromEnv, source: "COSIGN_PASSWORD" };
  if (!io.interactive) return undefined;
  const missing = "Pass --passphrase-file or set COSIGN_PASSWORD";
  const password = await terminal.askText({ message: question.message, missing, secret: true });
  if (question.confirm) {
    const again = await terminal.askText({
      message: "The same password again",
      missing,
      secret: true,
    });
    if (again !== password) throw new UsageError("The two passwords differ: nothing was written");
  }
  return { password, source: "terminal" };
}
