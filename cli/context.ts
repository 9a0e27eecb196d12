/**
 * The real {@linkcode CommandContext}: the Kubernetes client of the kubeconfig (honouring
 * `--kubeconfig`, `--context`, `--throttle`, `--request-timeout`, `-v` (each request told) and
 * the environment of the command's IO, never
 * `Deno.env`), the git host, vault and registry clients, the global `fetch`, the programs of the
 * machine (`Deno.Command`), the system clock and the terminal. `cli/main.ts` makes it once for
 * the process; tests make it with their own IO and replace what they fake. This is the one file
 * of `cli/` that touches those globals (`tools/layering.ts` checks). Each client's module is
 * imported only when a command asks for one, so `--help` stays fast.
 *
 * @module
 */
import type { CommandContext } from "./command.ts";
import type { CliIO } from "./io.ts";
import { promptTerminal } from "./terminal.ts";
import { clientTimeoutMs, requestObserver } from "./network.ts";
import { systemProcessRunner } from "../lib/process.ts";

/** The parts of a context a caller may replace. */
export type ContextOverrides = Partial<Omit<CommandContext, "io" | "programName">>;

/** The context of commands run with `io` as `programName`, with the real clients unless replaced. */
export function commandContext<IO extends CliIO>(
  io: IO,
  programName = "toolkit",
  overrides: ContextOverrides = {},
): CommandContext & { readonly io: IO } {
  return {
    io,
    programName,
    kube: async (options) => {
      const { connectCluster } = await import("../lib/kube/mod.ts");
      const onRequest = requestObserver(io, options);
      return await connectCluster({
        kubeconfig: options.kubeconfig || undefined,
        context: options.context || undefined,
        env: io.env,
        cwd: io.cwd,
        ...(options.throttle === true ? { requestsPerSecond: 2 } : {}),
        requestTimeoutMs: clientTimeoutMs(options),
        ...(onRequest ? { onRequest } : {}),
      });
    },
    gitHost: async (git, options) => {
      const { connectGitHost } = await import("../lib/githost/mod.ts");
      return await connectGitHost(git, options);
    },
    vault: async (options) => {
      const { createKeyProtectClient } = await import("../lib/vault/mod.ts");
      return createKeyProtectClient(options);
    },
    registry: async (options) => {
      const { createRegistryClient } = await import("../lib/registry/mod.ts");
      return createRegistryClient(options);
    },
    fetch: (input, init) => fetch(input, init),
    processes: systemProcessRunner(),
    clock: {
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    },
    terminal: promptTerminal(io),
    ...overrides,
  };
}
