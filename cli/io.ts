/**
 * The streams and environment a command works with, passed in so that commands can be run
 * and tested without touching the process's globals.
 *
 * @module
 */

/** Somewhere text can be written: stdout, stderr, or a buffer in tests. */
export interface TextSink {
  /** Writes the text as it is (no newline is added). */
  write(text: string): void;
}

/** What a command may read and write besides the cluster. */
export interface CliIO {
  /** Data: what scripts read (`-o json`, URLs, manifests). */
  readonly stdout: TextSink;
  /** Messages: progress, warnings, errors. */
  readonly stderr: TextSink;
  /** Environment variables (`KUBECONFIG`, `NO_COLOR`, …). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** True when stdin and stderr are terminals, so a prompt or a menu may be shown. */
  readonly interactive: boolean;
  /** True when stdin is a terminal (a secret is then asked without echo, never read as typed). */
  readonly stdinIsTerminal: boolean;
  /** True when messages may be coloured (a terminal and no `NO_COLOR`). */
  readonly color: boolean;
  /** The working directory. */
  readonly cwd: string;
  /** Reads all of standard input (for commands that take data there, as `yq r -`). */
  readonly readStdin: () => Promise<string>;
}

/**
 * `text` in the colour of the SGR `code` (`31` red, `33` yellow, `2` dim) when the IO may be
 * coloured (a terminal without `NO_COLOR`), else as it is.
 */
export function paint(io: Pick<CliIO, "color">, code: string, text: string): string {
  return io.color ? `\x1b[${code}m${text}\x1b[0m` : text;
}

const encoder = new TextEncoder();

function fileSink(file: { writeSync(p: Uint8Array): number }): TextSink {
  return {
    write(text: string) {
      let bytes = encoder.encode(text);
      while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
    },
  };
}

/** The IO of the running process. */
export function processIO(): CliIO {
  const env = Deno.env.toObject();
  const stdinIsTerminal = Deno.stdin.isTerminal();
  const interactive = stdinIsTerminal && Deno.stderr.isTerminal();
  return {
    stdout: fileSink(Deno.stdout),
    stderr: fileSink(Deno.stderr),
    env,
    interactive,
    stdinIsTerminal,
    color: Deno.stderr.isTerminal() && !("NO_COLOR" in env && env.NO_COLOR !== ""),
    cwd: Deno.cwd(),
    readStdin: () => new Response(Deno.stdin.readable).text(),
  };
}

/** An IO whose output is kept in memory, for tests. */
export interface BufferedIO extends CliIO {
  /** Everything written to stdout so far. */
  out(): string;
  /** Everything written to stderr so far. */
  err(): string;
}

/** Makes an in-memory IO for tests. */
export function bufferedIO(
  options: {
    env?: Record<string, string>;
    interactive?: boolean;
    /** Default: `interactive`. */
    stdinIsTerminal?: boolean;
    cwd?: string;
    stdin?: string;
  } = {},
): BufferedIO {
  let out = "";
  let err = "";
  return {
    stdout: { write: (t) => void (out += t) },
    stderr: { write: (t) => void (err += t) },
    env: options.env ?? {},
    interactive: options.interactive ?? false,
    stdinIsTerminal: options.stdinIsTerminal ?? options.interactive ?? false,
    color: false,
    cwd: options.cwd ?? Deno.cwd(),
    readStdin: () => Promise.resolve(options.stdin ?? ""),
    out: () => out,
    err: () => err,
  };
}
