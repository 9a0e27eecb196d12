/**
 * Starting other programs (`git`, `gpg`, `skopeo`, `ibmcloud`, the browser) through one
 * interface, so that what starts them is passed in and a test can see or replace every process:
 * the CLI's command context carries a {@linkcode ProcessRunner} (`cli/context.ts` wires
 * {@linkcode systemProcessRunner}), and no command builds a `Deno.Command` itself
 * (`tools/layering.ts` checks).
 *
 * @module
 */

/** How to start a program. */
export interface ProcessOptions {
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Its working directory (default: this process's). */
  readonly cwd?: string;
  /** Variables added to the environment, or, with `clearEnv`, the whole environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Starts it with `env` alone. */
  readonly clearEnv?: boolean;
  /** What its standard input holds (default: nothing, stdin is null). */
  readonly stdin?: Uint8Array;
}

/** What a program that ran to its end printed and returned. */
export interface ProcessOutput {
  readonly code: number;
  readonly success: boolean;
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
}

/** A program started without waiting for it (a browser), its streams closed. */
export interface StartedProcess {
  /** Resolves when it exits. */
  readonly status: Promise<{ readonly success: boolean; readonly code: number }>;
  /** Lets this process exit without waiting for it. */
  unref(): void;
}

/**
 * Starts programs. A program that is not installed rejects (or throws) with
 * `Deno.errors.NotFound`, as `Deno.Command` does.
 */
export interface ProcessRunner {
  /** Runs `program` to its end and returns its status and output. */
  output(program: string, options?: ProcessOptions): Promise<ProcessOutput>;
  /** Starts `program` with its standard streams closed, without waiting for it. */
  start(program: string, options?: ProcessOptions): StartedProcess;
}

function definedEnv(
  env: Readonly<Record<string, string | undefined>> | undefined,
): Record<string, string> | undefined {
  if (env === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

function commandOptions(options: ProcessOptions): Deno.CommandOptions {
  const env = definedEnv(options.env);
  return {
    args: [...(options.args ?? [])],
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(env !== undefined ? { env } : {}),
    ...(options.clearEnv ? { clearEnv: true } : {}),
  };
}

/** The real programs of this machine, started with `Deno.Command`. */
export function systemProcessRunner(): ProcessRunner {
  return {
    async output(program, options = {}) {
      const base = commandOptions(options);
      if (options.stdin === undefined) {
        return await new Deno.Command(program, {
          ...base,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
      }
      const child = new Deno.Command(program, {
        ...base,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(options.stdin).catch(() => {}); // it may exit early; its status says why
      await writer.close().catch(() => {});
      return await child.output();
    },
    start(program, options = {}) {
      const child = new Deno.Command(program, {
        ...commandOptions(options),
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      return { status: child.status, unref: () => child.unref() };
    },
  };
}
