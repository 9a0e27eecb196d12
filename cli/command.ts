/**
 * The shape of a toolkit command. Each command declares itself once, in a small module beside
 * its implementation (`sync_command.ts` beside `sync.ts`), with {@link defineCommand}: its usage
 * line, aliases, help text, examples, positionals and flags. From that one declaration come the
 * parser's configuration, the help, the completion words and the TypeScript type of the options
 * object its implementation receives ({@link OptionsOf} in `options.ts`). `cli/commands.ts` lists
 * the declarations with {@link command} and {@link group}; a declaration is cheap to load, and the
 * implementation is imported only when its command runs, so `toolkit --version` and `--help`
 * stay fast.
 *
 * A run goes parse (`parse.ts`, strict, from the declaration) → resolve and validate
 * ({@link resolveOptions} in `options.ts`: environment defaults, types, choices, numbers,
 * durations) → the command's own checks and work, on a typed object: no command reads untyped
 * arguments.
 *
 * @module
 */
import type { KubeClient } from "../lib/kube/mod.ts";
import type { GitHost, GitHostOptions, GitUrl } from "../lib/githost/mod.ts";
import type { KeyProtectClient, KeyProtectClientOptions } from "../lib/vault/mod.ts";
import type { RegistryClient, RegistryClientOptions } from "../lib/registry/mod.ts";
import type { FetchFunction } from "../lib/fetch.ts";
import type { ProcessRunner } from "../lib/process.ts";
import type { CliIO } from "./io.ts";
import { type OptionsOf, type OptionsSpec, resolveOptions } from "./options.ts";
import type { Terminal } from "./terminal.ts";

/**
 * `--kubeconfig`, `--context`, `--request-timeout` (ms, 0: no limit) and, where a command has
 * it, `--throttle`; `-v` tells each request.
 */
export interface KubeOptions {
  readonly kubeconfig: string | undefined;
  readonly context: string | undefined;
  readonly throttle?: boolean;
  readonly requestTimeout?: number;
  readonly verbose?: boolean;
}

/** Time, for the waits of a command (both are called unbound, as `lib/poll.ts` does). */
export interface Clock {
  /** The current time in ms (as `Date.now()`). */
  readonly now: () => number;
  /** Resolves after `ms`. */
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * What a command's implementation receives besides its options: its streams, and everything it
 * reaches outside the process through, so that a test can pass fakes (`cli/context.ts` wires the
 * real ones; `cli/main.ts` does it once). No command reaches the network, starts a program or
 * reads the time any other way (`tools/layering.ts` checks: no global `fetch`, no
 * `Deno.Command`, no `Date.now()` or `new Date()`, no registry client built by a command).
 */
export interface CommandContext {
  /** Streams and environment. */
  readonly io: CliIO;
  /** How the user invoked toolkit: `toolkit` or `kubectl toolkit`. */
  readonly programName: string;
  /**
   * Connects to the cluster of `--kubeconfig`/`--context` (else `$KUBECONFIG` of `io.env` and
   * its current context); `--throttle` limits requests to 2 a second.
   */
  readonly kube: (options: KubeOptions) => Promise<KubeClient>;
  /** Connects to the git host of a repository (its flavour detected unless given). */
  readonly gitHost: (git: GitUrl, options: GitHostOptions) => Promise<GitHost>;
  /** Makes the client of a Key Protect compatible vault. */
  readonly vault: (options: KeyProtectClientOptions) => Promise<KeyProtectClient>;
  /** Makes a registry client (`sign`, `verify`, `check` and the registry work of others). */
  readonly registry: (options: RegistryClientOptions) => Promise<RegistryClient>;
  /**
   * Every other request: Jenkins, IAM, the pipeline repository, the verifier's registries
   * (`network.ts` adds `--request-timeout` and `-v` to it).
   */
  readonly fetch: FetchFunction;
  /** Starts programs: `git`, `gpg`, `skopeo`, `ibmcloud`, the browser. */
  readonly processes: ProcessRunner;
  /** The time and the sleep of every wait, and the time a command writes (`new Date(now())`). */
  readonly clock: Clock;
  /** Where questions are asked. */
  readonly terminal: Terminal;
}

/** The implementation of a command. Returns the exit status (0 when nothing is returned). */
export type CommandRun<S extends OptionsSpec> = (
  options: OptionsOf<S>,
  ctx: CommandContext,
) => Promise<number | void>;

/**
 * A command ready to run: it takes what the parser produced, resolves and validates it against
 * its declaration, and calls the typed implementation. Made by {@link command}.
 */
export type ParsedRun = (
  parsed: Readonly<Record<string, unknown>>,
  ctx: CommandContext,
) => Promise<number | void>;

/** What a command is, as `--help` shows it: its names, help text, examples and options. */
export interface CommandDeclaration extends OptionsSpec {
  /** The usage line without the program name, e.g. `sync [namespace]`. */
  readonly usage: string;
  /** Other names of the command. */
  readonly aliases?: readonly string[];
  /** One line of help. */
  readonly describe: string;
  /** Examples shown in help: [command line, what it does]. */
  readonly examples?: readonly (readonly [string, string])[];
  /**
   * Why the command takes no `-o json|yaml`: every command (or group) without this has `-o` with
   * both, since it changes objects or prints data (`app_test.ts` checks, from the command list).
   * Not shown in help.
   */
  readonly withoutOutput?: string;
  /**
   * Rewrites the words that follow this command's name before they are parsed, for commands
   * that keep another program's spellings (`yq`: cobra's `-d*`, `-ppv`, `-c=false`). Words
   * after `--` are never passed.
   */
  readonly rewriteArgs?: (args: readonly string[]) => string[];
}

/** A command of the CLI: a declaration with its implementation, or a group of commands. */
export interface CommandSpec extends CommandDeclaration {
  /** Subcommands (for groups such as `image-security`). */
  readonly subcommands?: readonly CommandSpec[];
  /** Loads the implementation. Absent for groups. */
  readonly load?: () => Promise<ParsedRun>;
}

/**
 * Declares a command. The literal types are kept (`const`), so that {@link OptionsOf} can type
 * the options object from it.
 */
export function defineCommand<const D extends CommandDeclaration>(declaration: D): D {
  return declaration;
}

/**
 * A command from its declaration and the import of its implementation: the implementation is
 * typed by the declaration, and receives options resolved and validated by
 * {@link resolveOptions}.
 */
export function command<const D extends CommandDeclaration>(
  declaration: D,
  load: () => Promise<CommandRun<NoInfer<D>>>,
): CommandSpec {
  return { ...declaration, load: async () => bindOptions(declaration, await load()) };
}

/** A group of commands (`yq`, `image-security`): a declaration without options, and its commands. */
export function group(
  declaration: CommandDeclaration,
  subcommands: readonly CommandSpec[],
): CommandSpec {
  return { ...declaration, subcommands };
}

/**
 * The implementation `run` of a command declared with `options`, taking parsed arguments (by
 * flag name or its camelCase) and resolving them first, as the CLI does.
 */
export function bindOptions<const S extends OptionsSpec>(
  options: S,
  run: CommandRun<NoInfer<S>>,
): ParsedRun {
  return (parsed, ctx) => run(resolveOptions(options, parsed, ctx.io.env), ctx);
}

/** The name of a command: the first word of its usage. */
export function commandName(spec: CommandSpec): string {
  return spec.usage.split(" ")[0] ?? spec.usage;
}
