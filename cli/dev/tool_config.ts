/**
 * `toolkit tool-config [name]`: registers a tool the way the toolkit's `tool-config` Helm chart
 * does, so that pipelines (through `sync`) and `credentials` find it:
 *
 * - ConfigMap `<name>-config` with `url` and `<NAME>_URL` (with `--url`);
 * - Secret `<name>-access` (Opaque) with `<NAME>_USER` and `<NAME>_PASSWORD` (with
 *   `--username` and the password, which go together; the password from `--password-file`,
 *   `$TOOLKIT_TOOL_PASSWORD`, `--password -` (stdin) or `--password`: `cli/secret_flag.ts`);
 * - both labelled `group=catalyst-tools` (what `sync` copies) and
 *   `grouping=garage-cloud-native-toolkit` (what `credentials` reads); igc wrote only the first.
 *
 * `NAME` is the name in upper case with `-` turned into `_`, as in the chart (igc kept the
 * hyphen: `MY-TOOL_URL`).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { TOOL_CONFIG } from "./tool_config_command.ts";
import { confirmReplace } from "../replace.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  applyObject,
  CONFIG_MAPS,
  countOutcomes,
  describeCounts,
  objectNameProblem,
  SECRETS,
} from "../../lib/kube/mod.ts";
import { makeLogger, namespaceOf, printReport, requireNamespace, toolLabels } from "./common.ts";
import { resolveSecret } from "../secret_flag.ts";

/** The environment variable of the tool's password. */
export const TOOL_PASSWORD_ENV = "TOOLKIT_TOOL_PASSWORD";

/** The tool name as used in object names: lower case, `_` turned into `-`. */
export function toolName(input: string): string {
  return input.trim().toLowerCase().replaceAll("_", "-");
}

/** The prefix of the data keys: `my-tool` → `MY_TOOL`. */
export function toolKeyPrefix(name: string): string {
  return name.toUpperCase().replaceAll("-", "_");
}

/** Runs `tool-config`. */
export async function run(
  options: OptionsOf<typeof TOOL_CONFIG>,
  ctx: CommandContext,
): Promise<void> {
  const log = makeLogger(options, ctx.io);
  const input = options.name;
  if (!input) throw new UsageError("Give the name of the tool: tool-config <name> --url URL");
  const name = toolName(input);
  const problem = objectNameProblem(`${name}-config`);
  if (problem) throw new UsageError(`Invalid tool name "${input}": ${problem}`);
  const url = options.url || undefined;
  const username = options.username || undefined;
  const password = (await resolveSecret({
    what: "tool password",
    flag: "--password",
    value: options.password,
    fileFlag: "--password-file",
    file: options.passwordFile,
    env: [TOOL_PASSWORD_ENV],
  }, ctx))?.value;
  if ((username === undefined) !== (password === undefined)) {
    throw new UsageError(
      "--username and --password go together: give both or neither (the password from --password-file, $TOOLKIT_TOOL_PASSWORD or --password -)",
    );
  }
  if (url === undefined && username === undefined) {
    throw new UsageError(
      "Nothing to register: give --url, or --username and --password, or all three",
    );
  }
  if (url !== undefined && !URL.canParse(url)) {
    throw new UsageError(`Invalid --url "${url}": it is not an absolute URL`);
  }
  const prefix = toolKeyPrefix(name);

  using client = await ctx.kube(options);
  const namespace = namespaceOf(options.namespace, client);
  await requireNamespace(client, namespace);
  const results = [];
  if (url !== undefined) {
    const configName = `${name}-config`;
    results.push(
      await applyObject(client, CONFIG_MAPS, {
        metadata: {
          name: configName,
          namespace,
          labels: toolLabels(configName),
          annotations: {
            description:
              `Config map to hold the url for ${name} in the environment so that other components can access it`,
          },
        },
        data: { url, [`${prefix}_URL`]: url },
      }),
    );
  }
  if (username !== undefined && password !== undefined) {
    const secretName = `${name}-access`;
    const existing = await client.read(SECRETS, namespace, secretName);
    if (existing !== undefined) {
      const data = (existing as { data?: Record<string, string> }).data ?? {};
      const held = (key: string) =>
        data[key] === undefined ? undefined : decodeBase64Text(data[key]);
      const heldUser = held(`${prefix}_USER`);
      if (heldUser !== username || held(`${prefix}_PASSWORD`) !== password) {
        // A Secret of credentials the user made is replaced only when asked (cli/replace.ts).
        await confirmReplace(ctx, {
          what: `Secret "${namespace}/${secretName}"`,
          differs: heldUser === undefined
            ? `exists without ${prefix}_USER (entries: ${Object.keys(data).join(", ") || "none"})`
            : `holds other credentials (user "${heldUser}")`,
          replace: options.replace,
        });
      }
    }
    results.push(
      await applyObject(client, SECRETS, {
        metadata: {
          name: secretName,
          namespace,
          labels: toolLabels(secretName),
          annotations: {
            description:
              `Secret to hold the username and password for ${name} so that other components can access it`,
          },
        },
        type: "Opaque",
        stringData: { [`${prefix}_USER`]: username, [`${prefix}_PASSWORD`]: password },
      }),
    );
  }
  for (const r of results) log.result(r, false);
  log.info(`Tool ${name} in ${namespace}: ${describeCounts(countOutcomes(results))}`);
  printReport(ctx.io, options.output, { results }, { namespace, tool: name });
}
