/**
 * Running the `ibmcloud` CLI the user is logged in with, always with `--output json` so that no
 * text is parsed. A region or resource group other than the target's is used without changing the
 * user's target: the commands then run in a copy of the CLI's configuration (`IBMCLOUD_HOME`)
 * whose target is switched.
 *
 * @module
 */
import { ToolkitError } from "../../lib/errors.ts";
import type { ProcessRunner } from "../../lib/process.ts";

/** What a command printed and returned. */
export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `ibmcloud` with arguments and environment. */
export type IbmcloudRunner = (
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
) => Promise<CommandResult>;

/** `ibmcloud` is not installed, not logged in, or failed. */
export class IbmcloudError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "IbmcloudError";
  }
}

/** Runs `ibmcloud` through `processes` (the command context's), with `env` alone. */
export function ibmcloudRunner(processes: ProcessRunner): IbmcloudRunner {
  return async (args, env) => {
    try {
      const out = await processes.output("ibmcloud", { args, env, clearEnv: true });
      const decode = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new IbmcloudError(
          "Cannot find the ibmcloud CLI on PATH: install it (https://cloud.ibm.com/docs/cli) and log in with ibmcloud login",
        );
      }
      throw new IbmcloudError(
        `Cannot run ibmcloud: ${error instanceof Error ? error.message : error}`,
        {
          cause: error,
        },
      );
    }
  };
}

/** Runs `ibmcloud ARGS --output json` and parses what it prints. */
export async function ibmcloudJson<T>(
  runner: IbmcloudRunner,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<T> {
  const r = await runner([...args, "--output", "json"], env);
  const said = `${r.stdout}\n${r.stderr}`;
  if (r.code !== 0) {
    if (/not logged in|log in|ibmcloud login/i.test(said)) {
      throw new IbmcloudError("ibmcloud is not logged in: run ibmcloud login first");
    }
    const why = said.replace(/\s+/g, " ").trim().slice(0, 300);
    throw new IbmcloudError(`"ibmcloud ${args.join(" ")}" failed (exit ${r.code}): ${why}`);
  }
  try {
    return JSON.parse(r.stdout) as T;
  } catch (error) {
    throw new IbmcloudError(`"ibmcloud ${args.join(" ")}" did not print JSON`, { cause: error });
  }
}
