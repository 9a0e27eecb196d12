/**
 * Processes of the test environment: start a binary with its output in a log file, find free
 * ports, wait for readiness, and stop by process id (SIGTERM, then SIGKILL). Every process
 * started here is also stopped when the test process exits, so a failing test leaves nothing
 * behind.
 *
 * @module
 */

/** A process started by the test environment. */
export interface ManagedProcess {
  /** The process id. */
  readonly pid: number;
  /** The file that receives its stdout and stderr. */
  readonly logFile: string;
  /** Resolves with the exit status when the process ends. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Stops it: SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Map<number, Deno.ChildProcess>();

function killAll(): void {
  for (const [pid, child] of running) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    running.delete(pid);
  }
}

let interruptHandler: (() => void) | undefined;

/**
 * Replaces the reaction to Ctrl-C and SIGTERM, which by default kills every process started here
 * and exits with 130 (a program that tears down on its own, such as the demo, sets its own).
 */
export function onInterrupt(handler: () => void): void {
  interruptHandler = handler;
}

globalThis.addEventListener("unload", killAll);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  try {
    Deno.addSignalListener(signal, () => {
      if (interruptHandler) return interruptHandler();
      killAll();
      Deno.exit(130);
    });
  } catch {
    // signals are not available on every platform
  }
}

/** Starts `command` with `args`, its output appended to `logFile`. */
export async function startProcess(
  command: string,
  args: string[],
  options: { logFile: string; env?: Record<string, string>; cwd?: string },
): Promise<ManagedProcess> {
  const log = await Deno.open(options.logFile, { create: true, append: true });
  const child = new Deno.Command(command, {
    args,
    env: options.env ?? {},
    cwd: options.cwd ?? Deno.cwd(),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  running.set(child.pid, child);
  // Each chunk is written to the file as it comes (a writer of `log.writable` held the output
  // back until much later), so the log can be read while the process runs.
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      try {
        for (let done = 0; done < chunk.length;) done += await log.write(chunk.subarray(done));
      } catch {
        // the log is gone: keep draining the pipe
      }
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const status = child.status.then(async (s) => {
    running.delete(child.pid);
    await pumps.catch(() => {});
    try {
      log.close();
    } catch {
      // already closed
    }
    return s;
  });
  return {
    pid: child.pid,
    logFile: options.logFile,
    status,
    async stop(graceMs = 5000) {
      if (!running.has(child.pid)) {
        await status;
        return;
      }
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const killed = await Promise.race([
        status.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
      ]);
      clearTimeout(timer);
      if (killed) {
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
      await status;
    },
  };
}

/** Returns a TCP port on 127.0.0.1 that is free now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Waits until `check` resolves true, or fails with the tail of the log after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs?: number; process?: ManagedProcess } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let exited = false;
  options.process?.status.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      if (await check()) return;
    } catch {
      // not ready yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const tail = options.process ? await logTail(options.process.logFile) : "";
  throw new Error(
    `${what} did not become ready${exited ? " (the process exited)" : ""}${
      tail ? `; last log lines:\n${tail}` : ""
    }`,
  );
}

async function logTail(file: string, lines = 20): Promise<string> {
  try {
    return (await Deno.readTextFile(file)).trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** Runs a command to completion and returns its status and output as text. */
export async function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string | Uint8Array; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(command, {
    args,
    env: options.env ?? {},
    cwd: options.cwd ?? Deno.cwd(),
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(
      typeof options.stdin === "string" ? new TextEncoder().encode(options.stdin) : options.stdin,
    );
    await writer.close();
  }
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** Runs a command and throws with its stderr when it fails. */
export async function runOk(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string | Uint8Array; cwd?: string } = {},
): Promise<string> {
  const r = await run(command, args, options);
  if (r.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  }
  return r.stdout;
}

/**
 * Whether `https://127.0.0.1:<port>/readyz` answers `ok`, trusting only `caPem` (the webhook's
 * readiness once its policies are loaded).
 */
export async function webhookReady(port: number, caPem: string): Promise<boolean> {
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  try {
    const response = await fetch(`https://127.0.0.1:${port}/readyz`, { client });
    return (await response.text()) === "ok\n";
  } catch {
    return false;
  } finally {
    client.close();
  }
}
