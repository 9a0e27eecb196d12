/**
 * `toolkit image-security vault store|fetch` as `--help` and completion know it: usage, help text
 * and flags. Its implementation, `vault.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import type { FlagSpec } from "../options.ts";
import { RESULT_OUTPUT, VAULT_FLAGS } from "../flags.ts";

/** The flags of both vault commands: where the vault is, how to sign in, the key file. */
const VAULT_KEY_FLAGS = {
  ...VAULT_FLAGS,
  key: {
    type: "string",
    describe: "The private key file: an armoured gpg key, or cosign's cosign.key (kept encrypted)",
  },
  ...RESULT_OUTPUT,
} as const satisfies Record<string, FlagSpec>;

/** `image-security vault`: the group of `store` and `fetch`. */
export const VAULT = defineCommand({
  usage: "vault <command>",
  describe: "Store and fetch private keys in a Key Protect compatible vault",
});

/** `image-security vault store`. */
export const VAULT_STORE = defineCommand({
  usage: "store <name>",
  describe: "Store a private key in the vault, reachable by id, alias and name",
  examples: [
    [
      "image-security vault store signing --key signing.key.asc",
      "Store it with the alias signing; prints id and aliases",
    ],
    [
      "image-security vault store signing --key new.asc --replace --old-key delete",
      "Rotate: store the new key, move the aliases to it, delete the old one",
    ],
  ],
  positionals: { name: { type: "string", required: true, describe: "The key's name" } },
  flags: {
    ...VAULT_KEY_FLAGS,
    description: { type: "string", describe: "A description stored with the key" },
    alias: {
      type: "array",
      describe: "An alias of the key, repeatable (up to 5; default: the name)",
    },
    replace: {
      type: "boolean",
      describe: "When another key holds the name or an alias: rotate, moving the aliases here",
    },
    "old-key": {
      type: "string",
      choices: ["delete", "keep"],
      describe: "With --replace: delete the old key, or keep it (active, without the aliases)",
    },
  },
});

/** `image-security vault fetch`. */
export const VAULT_FETCH = defineCommand({
  usage: "fetch <name>",
  describe: "Fetch a private key from the vault",
  positionals: {
    name: { type: "string", required: true, describe: "The key's id, alias or name" },
  },
  flags: {
    ...VAULT_KEY_FLAGS,
    force: { type: "boolean", describe: "Replace an existing --key file" },
    import: { type: "boolean", describe: "Import the key into gpg (GNUPGHOME; gpg keys only)" },
  },
});
