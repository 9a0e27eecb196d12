/**
 * Shell completion: the bash and zsh scripts, and the words they ask for
 * (`toolkit __complete WORDS…` prints one candidate per line).
 *
 * @module
 */
import { commandName, type CommandSpec } from "./command.ts";
import { COMMON_FLAGS } from "./options.ts";

function flagWords(spec: CommandSpec): string[] {
  const words: string[] = ["--help"];
  const flags = spec.load ? { ...spec.flags, ...COMMON_FLAGS } : spec.flags ?? {};
  for (const [name, flag] of Object.entries(flags)) {
    if (flag.hidden) continue;
    words.push(`--${name}`);
    const aliases = flag.alias === undefined ? [] : [flag.alias].flat();
    for (const alias of aliases) words.push(alias.length === 1 ? `-${alias}` : `--${alias}`);
  }
  return words;
}

/**
 * The candidates for the last of `words` (the words typed after the program name; the last
 * one is the word being completed, possibly empty).
 */
export function completions(commands: readonly CommandSpec[], words: readonly string[]): string[] {
  const current = words.at(-1) ?? "";
  let level: readonly CommandSpec[] = commands;
  let spec: CommandSpec | undefined;
  for (const word of words.slice(0, -1)) {
    if (word.startsWith("-")) continue;
    const next = level.find((c) => commandName(c) === word || c.aliases?.includes(word));
    if (!next) break;
    spec = next;
    level = next.subcommands ?? [];
  }
  if (current.startsWith("-")) {
    const flags = spec ? flagWords(spec) : ["--help", "--version"];
    return flags.filter((f) => f.startsWith(current));
  }
  if (spec && !spec.subcommands) {
    const last = words.at(-2);
    const flagName = last?.replace(/^--?/, "");
    const flag = flagName ? spec.flags?.[flagName] : undefined;
    if (flag && flag.type !== "boolean") {
      return flag.choices ? flag.choices.filter((c) => c.startsWith(current)) : [];
    }
    // An argument with choices (`completion bash|zsh`).
    const choices = Object.values(spec.positionals ?? {}).flatMap((p) => p.choices ?? []);
    return choices.filter((c) => c.startsWith(current));
  }
  const names = level.map(commandName);
  return names.filter((n) => n.startsWith(current));
}

/** The completion script for a shell. `programName` may be `kubectl toolkit`. */
export function completionScript(shell: "bash" | "zsh", programName: string): string {
  const bin = programName === "kubectl toolkit" ? "kubectl-toolkit" : programName;
  const fn = `_${bin.replace(/[^A-Za-z0-9]/g, "_")}_complete`;
  if (shell === "bash") {
    return `# bash completion for ${bin}: source <(${bin} completion bash)
${fn}() {
  local IFS=$'\\n'
  COMPREPLY=( $(${bin} __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -o default -F ${fn} ${bin}
`;
  }
  return `#compdef ${bin}
# zsh completion for ${bin}: source <(${bin} completion zsh)
${fn}() {
  local -a candidates
  candidates=("\${(@f)$(${bin} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef ${fn} ${bin}
`;
}
