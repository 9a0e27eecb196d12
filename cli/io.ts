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
  /**
   * Reads all of standard input (for commands that take data there, as `yq r -`); with
   * `maxBytes`, stops after one byte more than that (a caller that refuses more never holds it).
   */
  readonly readStdin: (maxBytes?: number) => Promise<string>;
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

/** The first `limit` bytes of `stream` (or all of it, when shorter) as text. */
async function readAtMost(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = stream.getReader();
  try {
    while (length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, limit - length);
      chunks.push(part);
      length += part.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
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
    readStdin: (maxBytes) =>
      maxBytes === undefined
        ? new Response(Deno.stdin.readable).text()
        : readAtMost(Deno.stdin.readable, maxBytes + 1),
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
    readStdin: (maxBytes) => {
      const text = options.stdin ?? "";
      if (maxBytes === undefined) return Promise.resolve(text);
      const bytes = new TextEncoder().encode(text);
      return Promise.resolve(new TextDecoder().decode(bytes.subarray(0, maxBytes + 1)));
    },
    out: () => out,
    err: () => err,
  };
}
