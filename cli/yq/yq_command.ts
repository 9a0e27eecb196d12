/**
 * `toolkit yq`: the group of the YAML commands — its usage, help text and examples, as `--help`
 * and completion read them, and yq v3's spellings of their flags (`args.ts`). Its commands are
 * listed in `cli/commands.ts`; docs/yq.md says what they do and where they differ from yq v3.
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { rewriteYqArgs } from "./args.ts";
import { YQ_COMPARE } from "./compare_command.ts";
import { YQ_DELETE } from "./delete_command.ts";
import { YQ_MERGE } from "./merge_command.ts";
import { YQ_NEW } from "./new_command.ts";
import { YQ_PREFIX } from "./prefix_command.ts";
import { YQ_READ } from "./read_command.ts";
import { YQ_VALIDATE } from "./validate_command.ts";
import { YQ_WRITE } from "./write_command.ts";

const COMMANDS = [
  YQ_READ,
  YQ_WRITE,
  YQ_DELETE,
  YQ_MERGE,
  YQ_NEW,
  YQ_PREFIX,
  YQ_COMPARE,
  YQ_VALIDATE,
];

/** `yq`: YAML reading and editing that keeps comments, order and quoting. */
export const YQ = defineCommand({
  usage: "yq <command>",
  withoutOutput: "yq's commands print YAML as yq v3 does",
  describe:
    "Read and change YAML files as yq v3 does, keeping their comments, key order and quoting",
  examples: [
    ["yq w values.yaml image.tag 1.10 -i", "Set image.tag to 1.10 (not 1.1) in place"],
    [
      "yq w requirements.yaml 'dependencies[?(@.name == \"image\")].version' 1.2.0",
      "igc's JSONPath filters work",
    ],
    ["yq w deploy.yaml 'spec.containers(name==app).image' app:v2", "Pick a list item by field"],
    ["yq r values.yaml 'ingress.hosts[*].host'", "Print values"],
    ["yq d values.yaml 'metadata.annotations.\"app.kubernetes.io/name\"'", "Delete a key"],
    ["yq merge -x base.yaml overrides.yaml", "Deep-merge, later values winning"],
    ["yq new a.b[0].c 3.0", "Print a new document"],
    ["yq prefix -i values.yaml app", "Put the document under app:"],
    ["yq compare -P old.yaml new.yaml", "Diff the data (exit 1 when it differs)"],
  ],
  rewriteArgs: (args) => rewriteYqArgs(COMMANDS, args),
});
