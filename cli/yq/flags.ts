/**
 * The flags of the `toolkit yq` commands, in groups that several of them share, with yq v3's
 * names and letters (`--printMode/-p`, `--tojson/-j`, `--doc/-d`), so that scripts written for
 * yq keep working. yq's spellings that the option parser does not take as they are (`-d*`,
 * `-ppv`, `-c=false`) are rewritten by `args.ts` first.
 *
 * @module
 */
import type { FlagSpec } from "../options.ts";

/** `-d` of the yq commands: which document of a multi-document file. */
export const YQ_DOC = {
  doc: {
    type: "string",
    alias: "d",
    default: "0",
    describe: "The document of a multi-document file, counted from 0, or '*' for all of them",
  },
} as const satisfies Record<string, FlagSpec>;

/** `-i` of the yq commands that change a file. */
export const YQ_INPLACE = {
  inplace: {
    type: "boolean",
    alias: "i",
    describe: "Write the result back to the file (nothing is written when nothing changes)",
  },
} as const satisfies Record<string, FlagSpec>;

/** How every yq command prints YAML (yq's global flags). */
export const YQ_OUTPUT = {
  tojson: {
    type: "boolean",
    alias: "j",
    describe: "Print JSON (one line; indented with -P), aliases and merge keys resolved",
  },
  prettyPrint: {
    type: "boolean",
    alias: "P",
    describe: "Print every collection in block style and every scalar plain where it can be",
  },
  indent: {
    type: "number",
    alias: "I",
    default: 2,
    describe: "Spaces per level of what is written anew (-P, -j -P, new keys of a new file)",
  },
  colors: { type: "boolean", alias: "C", describe: "Print YAML with colours" },
} as const satisfies Record<string, FlagSpec>;

/** How `w` and `new` write a value. */
export const YQ_VALUE = {
  tag: {
    type: "string",
    alias: "t",
    describe:
      "The tag of the value: !!str, !!int, !!float, !!bool, !!null (checked), or any other (!!binary, !custom); without a value, re-tag what is there",
  },
  style: {
    type: "string",
    choices: ["single", "double", "folded", "literal", "flow", "tagged"],
    describe:
      "The style of the value (tagged: with its tag written); without a value, restyle what is there",
  },
  anchorName: { type: "string", describe: "Put this anchor (&name) on the value" },
  makeAlias: {
    type: "boolean",
    describe: "Write an alias: the value is the name of an anchor of the document (*value)",
  },
  script: {
    type: "string",
    alias: "s",
    describe:
      "A YAML file of changes to make in order: - {command: update|delete, path: …, value: …}",
  },
} as const satisfies Record<string, FlagSpec>;

/** What `r` and `compare` print of what a path matches. */
export const YQ_PRINT = {
  printMode: {
    type: "string",
    alias: "p",
    default: "v",
    choices: ["v", "p", "pv", "vp"],
    describe: "Print values (v), paths (p), or both (pv: path: value)",
  },
  defaultValue: {
    type: "string",
    alias: "D",
    describe: "Printed when the path matches nothing",
  },
  stripComments: { type: "boolean", describe: "Print without comments" },
  explodeAnchors: {
    type: "boolean",
    alias: "X",
    describe: "Print aliases as what they refer to, and merge keys as the keys they bring",
  },
} as const satisfies Record<string, FlagSpec>;
