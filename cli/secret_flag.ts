/**
 * A secret a command takes (a git token, a password): from a file (`--git-token-file FILE`), an
 * environment variable (`TOOLKIT_GIT_TOKEN`), standard input (`-P -`: one line, or a question
 * without echo when stdin is a terminal) or, still, the flag's own value, which works but warns
 * once, since an argument is visible to every user of the machine (`ps`) and kept in the shell's
 * history. One source at a time: two are a usage error (exit 2). A file that cannot be read, or
 * an empty secret, is a failure (exit 1) naming the file. No message ever holds the secret.
 *
 * Each command declares the file flag beside the value flag (`cli/flags.ts`: `GIT_TOKEN_FILE`,
 * `PASSWORD_FILE`) and resolves them here once, before it reaches anything.
 *
 * @module
 */
import type { CommandContext } from "./command.ts";
import { type CliIO, paint } from "./io.ts";
import { ToolkitError, UsageError } from "../lib/errors.ts";

/** Where a command's secret may come from. */
export interface SecretFlag {
  /** What the secret is, for messages: `git token`. */
  readonly what: string;
  /** The flag that takes the value (or `-` for stdin), as messages name it: `-P/--password`. */
  readonly flag: string;
  /** The flag's value as given. */
  readonly value: string | undefined;
  /** The flag naming a file that holds the secret: `--git-token-file`. */
  readonly fileFlag: string;
  /** That file, as given (relative to the working directory). */
  readonly file: string | undefined;
  /** Environment variables that may hold the secret (at most one may be set). */
  readonly env: readonly string[];
}

/** A secret and where it came from (never the secret itself in `source`). */
export interface ResolvedSecret {
  readonly value: string;
  /** `--git-token-file "t.txt"`, `TOOLKIT_GIT_TOKEN`, `standard input`, `terminal`, `-P/--password`. */
  readonly source: string;
}

/** The most a secret may take (a file or stdin of more is refused, never read whole). */
export const MAX_SECRET_BYTES = 64 * 1024;

/** The environment variable of the git token, for `pipeline`, `git-secret`, `gitops`, `create-webhook`. */
export const GIT_TOKEN_ENV = "TOOLKIT_GIT_TOKEN";

/**
 * The secret of `flag` from its one source, or undefined when none is given (the caller then uses
 * what is stored, or asks). Reads the file, stdin or the terminal; warns once on stderr when the
 * secret is an argument.
 *
 * @throws {UsageError} when two sources are given, or `-` names a terminal no question can be
 *   asked on.
 * @throws {ToolkitError} when the file or stdin cannot be read, is empty, or holds more than one
 *   line.
 */
export async function resolveSecret(
  flag: SecretFlag,
  ctx: Pick<CommandContext, "io" | "terminal">,
): Promise<ResolvedSecret | undefined> {
  const { io } = ctx;
  const value = flag.value === "" ? undefined : flag.value;
  const file = flag.file === "" ? undefined : flag.file;
  const envSet = flag.env.filter((name) => (io.env[name] ?? "") !== "");
  const given = [
    ...(value === "-" ? [`${flag.flag} -`] : value !== undefined ? [flag.flag] : []),
    ...(file !== undefined ? [flag.fileFlag] : []),
    ...envSet.map((name) => `$${name}`),
  ];
  if (given.length > 1) {
    throw new UsageError(
      `Give the ${flag.what} once: ${given.length === 2 ? "both " : ""}${
        given.join(" and ")
      } give it (keep one of ${flag.fileFlag} ` +
        `FILE, ${flag.env.map((n) => `$${n}`).join(", ")} or ${flag.flag.split("/")[0]} -)`,
    );
  }
  if (file !== undefined) {
    const source = `${flag.fileFlag} "${file}"`;
    return { value: oneLine(await readSecretFile(io.cwd, file, source), source), source };
  }
  if (envSet.length === 1) {
    const name = envSet[0]!;
    return { value: oneLine(io.env[name]!, `$${name}`), source: `$${name}` };
  }
  if (value === "-") return await fromStdin(flag, ctx);
  if (value === undefined) return undefined;
  const short = flag.flag.split("/")[0];
  warnSecretArgument(
    io,
    flag.what,
    `${flag.flag}'s value`,
    `pass ${flag.fileFlag} FILE, set ${
      flag.env[0]
    }, or give ${short} - to read it from standard input`,
  );
  return { value, source: flag.flag };
}

/**
 * Says on stderr that the secret `what`, given as `given` (`-P/--password's value`, `the URL's
 * user:token@`), is visible to every user of the machine and kept in the shell's history, and what
 * to do `instead`. Never the secret itself.
 */
export function warnSecretArgument(
  io: Pick<CliIO, "stderr" | "color">,
  what: string,
  given: string,
  instead: string,
): void {
  io.stderr.write(
    `${paint(io, "33", "warning:")} the ${what} given as ${given} can be read by every user of ` +
      `this machine (ps) and stays in your shell's history: ${instead}\n`,
  );
}

async function fromStdin(
  flag: SecretFlag,
  ctx: Pick<CommandContext, "io" | "terminal">,
): Promise<ResolvedSecret> {
  const { io } = ctx;
  const short = flag.flag.split("/")[0];
  if (io.stdinIsTerminal) {
    if (!io.interactive) {
      throw new UsageError(
        `${short} - reads the ${flag.what} from standard input, which is a terminal, and there is ` +
          `no terminal to ask on without echo: pipe it in (${short} - < FILE), or pass ${flag.fileFlag} FILE`,
      );
    }
    const value = await ctx.terminal.askText({
      message: `The ${flag.what}:`,
      missing: `Pass ${flag.fileFlag} FILE`,
      secret: true,
    });
    return { value: oneLine(value, "the terminal"), source: "terminal" };
  }
  const text = await io.readStdin(MAX_SECRET_BYTES);
  if (new TextEncoder().encode(text).length > MAX_SECRET_BYTES) {
    throw new ToolkitError(
      `Cannot use ${short} -: standard input holds more than ${MAX_SECRET_BYTES} bytes; give the ${flag.what} alone`,
    );
  }
  return { value: oneLine(text, "standard input"), source: "standard input" };
}

/** The text without its final line ends; empty or several lines are an error naming `where`. */
function oneLine(text: string, where: string): string {
  const value = text.replace(/[\r\n]+$/, "");
  if (value.trim() === "") throw new ToolkitError(`Cannot use ${where}: it is empty`);
  if (/[\r\n]/.test(value)) {
    throw new ToolkitError(`Cannot use ${where}: it holds more than one line`);
  }
  return value;
}

/** The bytes of `path` (at most {@linkcode MAX_SECRET_BYTES}) as text; any failure names `source`. */
async function readSecretFile(cwd: string, path: string, source: string): Promise<string> {
  const full = path.startsWith("/") ? path : `${cwd}/${path}`;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(full, { read: true });
  } catch (error) {
    throw new ToolkitError(`Cannot read ${source}`, { cause: error });
  }
  try {
    const buffer = new Uint8Array(MAX_SECRET_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = await file.read(buffer.subarray(length));
      if (n === null) break;
      length += n;
    }
    if (length > MAX_SECRET_BYTES) {
      throw new ToolkitError(
        `Cannot use ${source}: it holds more than ${MAX_SECRET_BYTES} bytes, not one secret`,
      );
    }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, length));
    } catch {
      throw new ToolkitError(`Cannot use ${source}: it is not UTF-8 text`);
    }
  } catch (error) {
    if (error instanceof ToolkitError) throw error;
    throw new ToolkitError(`Cannot read ${source}`, { cause: error });
  } finally {
    file.close();
  }
}
