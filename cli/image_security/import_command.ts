/**
 * `toolkit image-security import` as `--help` and completion know it: usage, help text and
 * flags. Its implementation, `import.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE } from "../flags.ts";

/** `image-security import`. */
export const IMPORT = defineCommand({
  usage: "import <files..>",
  describe:
    "Convert sigstore policy-controller, Kyverno and Connaisseur image policies to toolkit's, reporting every field not carried over",
  examples: [
    ["image-security import cip.yaml > toolkit-policies.yaml", "Convert, report on stderr"],
    [
      "image-security import - --apply",
      "Apply what stdin holds (kubectl get clusterimagepolicies.policy.sigstore.dev -o yaml | …)",
    ],
    ["image-security import policies/*.yaml --report report.json", "Also write the report as JSON"],
  ],
  positionals: {
    files: {
      type: "string",
      variadic: true,
      required: true,
      describe: "YAML or JSON files of one or more documents (a List too); - reads stdin",
    },
  },
  flags: {
    "controller-namespace": {
      ...NAMESPACE.controller,
      describe:
        "Where the key Secrets and trust roots of cluster policies go: the webhook's namespace",
    },
    output: {
      type: "string",
      alias: "o",
      choices: ["yaml", "json"],
      describe:
        "Print the converted objects (default yaml; json: a v1 List), or with --apply the result of each",
    },
    apply: {
      type: "boolean",
      describe:
        "Apply the converted objects to the cluster (server-side apply) instead of printing them",
    },
    "dry-run": {
      type: "boolean",
      describe: "Convert and report, print the objects, change nothing (even with --apply)",
    },
    "allow-partial": {
      type: "boolean",
      describe:
        "Exit 0 (and with --apply, apply the rest) when some rules were refused; else exit 1 and apply nothing",
    },
    report: {
      type: "string",
      describe: "Also write the report (every rule and finding) as JSON to this file",
    },
    replace: {
      type: "boolean",
      describe:
        "With --apply, replace objects of the same names that an import of another source did not make (else asked on a terminal)",
    },
    ...KUBE_FLAGS,
  },
});
