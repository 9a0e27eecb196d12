/**
 * `toolkit yq`: the group of the YAML commands — its usage, help text and examples, as `--help`
 * and completion read them. Its commands are listed in `cli/commands.ts`.
 *
 * @module
 */
import { defineCommand } from "../command.ts";

/** `yq`: YAML reading and editing that keeps comments, order and quoting. */
export const YQ = defineCommand({
  usage: "yq <command>",
  describe: "Read and change YAML files, keeping their comments, key order and quoting",
  examples: [
    ["yq w values.yaml image.tag 1.10 -i", "Set image.tag to 1.10 (not 1.1) in place"],
    [
      "yq w requirements.yaml 'dependencies[?(@.name == \"image\")].version' 1.2.0",
      "igc's JSONPath filters work",
    ],
    ["yq w deploy.yaml 'spec.containers[name==app].image' app:v2", "Pick a list item by field"],
    ["yq r values.yaml 'ingress.hosts[*].host'", "Print values"],
    ["yq d values.yaml 'metadata.annotations.\"app.kubernetes.io/name\"'", "Delete a key"],
    ["yq merge -x base.yaml overrides.yaml", "Deep-merge, later values winning"],
    ["yq new a.b[0].c 3.0", "Print a new document"],
  ],
});
