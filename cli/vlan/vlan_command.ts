/**
 * `toolkit vlan` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `vlan.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";

/** `vlan`. */
export const VLAN = defineCommand({
  usage: "vlan",
  withoutOutput: "its -o chooses among text, tfvars, json and yaml, and takes igc's -o FILE",
  describe: "Print the VLANs of an IBM Cloud classic zone for terraform (from ibmcloud)",
  examples: [
    ["vlan", "The target region's VLANs, chosen on a terminal when there are several"],
    ["vlan -r ca-tor -d tor01 -o tfvars --output-file vlan.tfvars", "Another region, to a file"],
    ["vlan -o json", "The choice as JSON"],
  ],
  flags: {
    datacenter: { type: "string", alias: "d", describe: "The zone (data center), e.g. dal10" },
    provider: {
      type: "string",
      alias: "p",
      choices: ["classic", "vpc"],
      default: "classic",
      describe: "The provider: only classic has VLANs",
    },
    region: { type: "string", alias: "r", describe: "The region (default: ibmcloud's target)" },
    "resource-group": {
      type: "string",
      describe: "The resource group (default: ibmcloud's target)",
    },
    "public-vlan": { type: "string", describe: "The id of the public VLAN to use" },
    "private-vlan": { type: "string", describe: "The id of the private VLAN to use" },
    output: {
      type: "string",
      alias: "o",
      describe:
        "Output format: text (igc's commented tfvars, the default), tfvars (the variables only), json or yaml. igc's -o FILE (any other value) still writes to FILE, deprecated: use --output-file",
    },
    "output-file": { type: "string", describe: "Write to this file instead of stdout" },
    format: {
      type: "string",
      choices: ["text", "tfvars", "json", "yaml"],
      hidden: true,
      describe: "Same as -o FORMAT (an earlier spelling)",
    },
  },
});
