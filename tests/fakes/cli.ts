/**
 * Runs toolkit commands in-process against fakes, for the commands' unit tests: the command line
 * goes through `runCli` (parsing, option resolution, exit statuses) with a context whose cluster
 * is a {@linkcode FakeKubeApi} (reached through a real kubeconfig in a temp directory, so
 * `--kubeconfig` and `--context` resolve as they do for users), whose clock is a
 * {@linkcode fakeClock} and whose terminal, when the run is interactive, a
 * {@linkcode scriptedTerminal}. Git hosts and Jenkins are the loopback stand-ins of this folder,
 * reached over HTTP as the real ones are.
 *
 * @module
 */
import { runCli } from "../../cli/app.ts";
import type { CommandContext } from "../../cli/command.ts";
import { commandContext, type ContextOverrides } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { promptTerminal } from "../../cli/terminal.ts";
import { type FakeClock, fakeClock } from "./clock.ts";
import { FakeKubeApi, type FakeKubeOptions, writeKubeconfig } from "./kube_api.ts";
import { type ScriptedAnswer, type ScriptedTerminal, scriptedTerminal } from "./terminal.ts";

/** What a run printed and returned. */
export interface CliRun {
  readonly status: number;
  readonly out: string;
  readonly err: string;
  /** The questions asked (interactive runs). */
  readonly asked: readonly string[];
}

/** How one run goes. */
export interface RunOptions {
  /** Answers of a terminal: the run is interactive when given. */
  readonly answers?: readonly ScriptedAnswer[];
  /** Environment variables besides `KUBECONFIG` (and `HOME`, the temp directory). */
  readonly env?: Readonly<Record<string, string>>;
  /** The working directory (default: the temp directory). */
  readonly cwd?: string;
  /** What standard input holds (default: nothing). */
  readonly stdin?: string;
  /** Standard input is a terminal (default: when the run is interactive). */
  readonly stdinIsTerminal?: boolean;
  /** Replaces more of the context (the git host connection, the vault, …). */
  readonly context?: ContextOverrides;
}

/** A temp directory with a kubeconfig for a fake cluster, and a way to run commands on it. */
export interface FakeCli extends AsyncDisposable {
  /** The temp directory (also `HOME` and the working directory of runs). */
  readonly dir: string;
  /** The fake cluster. */
  readonly kube: FakeKubeApi;
  /** The kubeconfig file (`$KUBECONFIG` of runs). */
  readonly kubeconfig: string;
  /** The clock of runs. */
  readonly clock: FakeClock;
  /** Runs `toolkit ARGS`. */
  run(args: readonly string[], options?: RunOptions): Promise<CliRun>;
}

/** Makes a {@linkcode FakeCli}; `contexts` are the kubeconfig's contexts (the first current). */
export async function fakeCli(
  options: FakeKubeOptions & {
    readonly contexts?: readonly { readonly name: string; readonly namespace?: string }[];
  } = {},
): Promise<FakeCli> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit_cli_" });
  const kube = new FakeKubeApi(options);
  const kubeconfig = await writeKubeconfig(dir, options.contexts, kube.server);
  const clock = fakeClock();
  return {
    dir,
    kube,
    kubeconfig,
    clock,
    async run(args, runOptions = {}) {
      const interactive = runOptions.answers !== undefined;
      const io = bufferedIO({
        env: { KUBECONFIG: kubeconfig, HOME: dir, ...runOptions.env },
        interactive,
        cwd: runOptions.cwd ?? dir,
        ...(runOptions.stdin !== undefined ? { stdin: runOptions.stdin } : {}),
        ...(runOptions.stdinIsTerminal !== undefined
          ? { stdinIsTerminal: runOptions.stdinIsTerminal }
          : {}),
      });
      const terminal: ScriptedTerminal | undefined = runOptions.answers
        ? scriptedTerminal(runOptions.answers)
        : undefined;
      const ctx: CommandContext = commandContext(io, "toolkit", {
        kube: kube.connector(io),
        clock,
        terminal: terminal ?? promptTerminal(io),
        ...runOptions.context,
      });
      const status = await runCli(args, ctx);
      return { status, out: io.out(), err: io.err(), asked: terminal?.asked ?? [] };
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}
