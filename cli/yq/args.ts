/**
 * yq v3's command-line spellings, rewritten for the option parser. yq parses its flags with
 * cobra (pflag), where a short flag takes its value in the same word (`-d*`, `-df`, `-ppv`,
 * `-I4`), a boolean takes one after `=` (`-c=false`), and yq's global flags may come before the
 * command (`yq -j r f.yaml`). Each becomes its long form (`--doc=*`, `--printMode=pv`,
 * `--autocreate=false`) after the command's name, so that the same words mean in toolkit what
 * they meant in yq. Words the command does not know are left as they are, for the parser to
 * refuse.
 *
 * @module
 */
import { type CommandDeclaration, commandName } from "../command.ts";
import { COMMON_FLAGS, type FlagSpec } from "../options.ts";

/** A short flag of a command: its long name and whether it takes a value. */
interface Short {
  readonly name: string;
  readonly boolean: boolean;
}

function shortFlags(flags: Readonly<Record<string, FlagSpec>>): Map<string, Short> {
  const shorts = new Map<string, Short>();
  for (const [name, flag] of Object.entries(flags)) {
    for (const alias of [flag.alias ?? []].flat()) {
      if (alias.length === 1) shorts.set(alias, { name, boolean: flag.type === "boolean" });
    }
  }
  return shorts;
}

/** One word of flags (`-ppv`, `-lc`, `-c=false`) as long flags, or `undefined` if unknown. */
function rewriteWord(word: string, shorts: ReadonlyMap<string, Short>): string[] | undefined {
  const letters = word.slice(1);
  const out: string[] = [];
  for (let i = 0; i < letters.length; i++) {
    const flag = shorts.get(letters[i]!);
    if (flag === undefined) return undefined;
    const rest = letters.slice(i + 1);
    if (flag.boolean) {
      if (rest.startsWith("=")) return [...out, `--${flag.name}=${rest.slice(1)}`];
      out.push(`--${flag.name}`);
      continue;
    }
    return [...out, rest === "" ? `--${flag.name}` : `--${flag.name}=${rest.replace(/^=/, "")}`];
  }
  return out;
}

/**
 * The words after `yq` (up to a `--`) with cobra's spellings rewritten for the command they
 * belong to, one of `commands`.
 */
export function rewriteYqArgs(
  commands: readonly CommandDeclaration[],
  args: readonly string[],
): string[] {
  const at = args.findIndex((word) => !word.startsWith("-"));
  const spec = at === -1
    ? undefined
    : commands.find((c) => commandName(c) === args[at] || (c.aliases ?? []).includes(args[at]!));
  if (spec === undefined) return [...args];
  const shorts = shortFlags({ ...COMMON_FLAGS, ...spec.flags });
  const rewrite = (word: string): string[] => {
    if (!/^-[^-]/.test(word)) return [word];
    return rewriteWord(word, shorts) ?? [word];
  };
  // yq's global flags may come before the command; they go after it.
  return [args[at]!, ...args.slice(0, at), ...args.slice(at + 1)].flatMap(rewrite);
}
