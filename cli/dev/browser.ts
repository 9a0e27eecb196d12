/**
 * Opening a URL in the default browser: the first command of `$BROWSER` (a `:`-separated
 * list; `%s` stands for the URL, else it is appended) found on the `PATH`, else `xdg-open`
 * (Linux and BSD), `open` (macOS) or `cmd /c start` (Windows). When there is none, or it fails,
 * or `--print` is given, the URL is printed to stdout instead. The command and the environment
 * come from the command's IO, and the program is started by the context's process runner, so
 * tests see exactly what would run.
 *
 * @module
 */
import type { CliIO } from "../io.ts";
import type { CommandContext } from "../command.ts";

/** What {@linkcode openUrl} did. */
export type OpenOutcome =
  | { readonly opened: true; readonly command: readonly string[] }
  | { readonly opened: false; readonly reason: string };

/** How to open a URL. */
export interface OpenOptions {
  /** Print the URL instead of opening it. */
  readonly print?: boolean;
  /** What the URL is, for the message (`dashboard`). */
  readonly label?: string;
  /** The operating system (default: the one running). */
  readonly os?: typeof Deno.build.os;
  /** The caller has printed the URL already: do not print it again when it cannot be opened. */
  readonly printed?: boolean;
}

function isExecutable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

/** The path of `command` on `PATH` (or the command itself when it holds a `/`). */
export function findExecutable(command: string, path: string | undefined): string | undefined {
  if (command.includes("/")) return isExecutable(command) ? command : undefined;
  for (const dir of (path ?? "").split(":")) {
    if (dir && isExecutable(`${dir}/${command}`)) return `${dir}/${command}`;
  }
  return undefined;
}

/**
 * The command line that opens `url`, or undefined when there is no browser command.
 * Exported for tests and for `--print` diagnostics.
 */
export function browserCommand(
  url: string,
  env: CliIO["env"],
  os: typeof Deno.build.os = Deno.build.os,
): string[] | undefined {
  const candidates: string[][] = [];
  for (const entry of (env.BROWSER ?? "").split(":")) {
    const words = entry.trim().split(/\s+/).filter((w) => w !== "");
    if (words.length === 0) continue;
    const hasPlaceholder = words.some((w) => w.includes("%s"));
    candidates.push(
      hasPlaceholder ? words.map((w) => w.replaceAll("%s", url)) : [...words, url],
    );
  }
  if (os === "darwin") candidates.push(["open", url]);
  else if (os === "windows") candidates.push(["cmd", "/c", "start", '""', url]);
  else candidates.push(["xdg-open", url]);
  for (const [command, ...rest] of candidates) {
    if (os === "windows" && command === "cmd") return [command, ...rest];
    const found = command ? findExecutable(command, env.PATH) : undefined;
    if (found) return [found, ...rest];
  }
  return undefined;
}

/**
 * Opens `url` in the default browser, or prints it to stdout when asked to (`print`), when
 * there is no browser, or when the browser command fails. Messages go to stderr.
 */
export async function openUrl(
  ctx: Pick<CommandContext, "io" | "processes">,
  url: string,
  options: OpenOptions = {},
): Promise<OpenOutcome> {
  const { io } = ctx;
  const label = options.label ? `${options.label}: ` : "";
  const print = () => options.printed || io.stdout.write(`${url}\n`);
  if (options.print) {
    io.stdout.write(`${url}\n`);
    return { opened: false, reason: "--print" };
  }
  const command = browserCommand(url, io.env, options.os);
  if (!command) {
    io.stderr.write(`No browser to open ${label}${url} (set $BROWSER to choose one)\n`);
    print();
    return { opened: false, reason: "no browser command" };
  }
  io.stderr.write(`Opening ${label}${url}\n`);
  const [program, ...args] = command;
  try {
    const child = ctx.processes.start(program!, {
      args,
      env: io.env,
      clearEnv: true,
      cwd: io.cwd,
    });
    // xdg-open and open return at once; a browser started directly keeps running, so wait a
    // little for a failure and then let it be.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const status = await Promise.race([
      child.status,
      new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), 3000)),
    ]);
    clearTimeout(timer);
    if (status === undefined) {
      child.unref();
      return { opened: true, command };
    }
    if (!status.success) {
      io.stderr.write(`The browser command ${program} failed (exit ${status.code})\n`);
      print();
      return { opened: false, reason: `exit ${status.code}` };
    }
    return { opened: true, command };
  } catch (error) {
    io.stderr.write(`Cannot run ${program}: ${error instanceof Error ? error.message : error}\n`);
    print();
    return { opened: false, reason: "spawn failed" };
  }
}
