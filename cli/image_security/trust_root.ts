/**
 * `toolkit image-security trust-root NAME -f trusted_root.json [-n NS]`: creates (or updates)
 * the ConfigMap whose `trusted_root.json` entry holds a sigstore trust root (Fulcio CAs, Rekor
 * and CT log keys, timestamp authorities), which a keyless `sigstoreSigned` requirement names in
 * `keyless.trustRootRef` (and a keyed one with `tlog: required` in `trustRootRef`). The file is
 * checked first with the webhook's own reader, so what is stored is what the webhook accepts;
 * the webhook never fetches a trust root itself. Enforcement trusts it: a ConfigMap of that name
 * holding something else is replaced only with `--replace` (or a yes on a terminal). `--dry-run`
 * prints the ConfigMap.
 *
 * For the public-good instance, `cosign trusted-root create` or sigstore/root-signing's
 * `targets/trusted_root.json` (fetched and checked through TUF, e.g. by `cosign initialize`)
 * is the file; a private instance writes its own.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { TRUST_ROOT } from "./trust_root_command.ts";
import { applyOne } from "./apply_one.ts";
import { readUserFile } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import { CONFIG_MAPS, type KubeObject, objectNameProblem } from "../../lib/kube/mod.ts";
import { DEFAULT_TRUST_ROOT_ENTRY } from "../../lib/admission/mod.ts";
import { loadTrustRootParser } from "../../lib/sigstore/mod.ts";

/** The ConfigMap holding `text` as its trust root, in `namespace` (undefined: the context's). */
export function trustRootManifest(
  name: string,
  namespace: string | undefined,
  text: string,
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      labels: { "app.kubernetes.io/managed-by": "toolkit" },
    },
    data: { [DEFAULT_TRUST_ROOT_ENTRY]: text },
  };
}

/**
 * How an existing ConfigMap differs from one holding the trust root `text` (after "already"), or
 * undefined when it holds the same.
 */
function heldTrustRoot(configMap: KubeObject, text: string): Promise<string | undefined> {
  const data = (configMap as { data?: Record<string, string> }).data ?? {};
  const held = data[DEFAULT_TRUST_ROOT_ENTRY];
  if (held === text) return Promise.resolve(undefined);
  const entries = Object.keys(data);
  return Promise.resolve(
    held === undefined
      ? `exists without ${DEFAULT_TRUST_ROOT_ENTRY} (${
        entries.length ? `entries: ${entries.join(", ")}` : "no entries"
      })`
      : "holds another trust root",
  );
}

/** Runs `trust-root`. */
export async function run(
  options: OptionsOf<typeof TRUST_ROOT>,
  ctx: CommandContext,
): Promise<number> {
  const name = options.name;
  const problem = objectNameProblem(name);
  if (problem) throw new UsageError(`Invalid ConfigMap name "${name}": ${problem}`);
  const bytes = await readUserFile(ctx.io.cwd, options.file, "--file");
  const { InvalidTrustRootError, parseTrustRoot } = await loadTrustRootParser();
  let root;
  try {
    root = await parseTrustRoot(bytes, `--file "${options.file}"`);
  } catch (error) {
    if (error instanceof InvalidTrustRootError) {
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  }
  const text = new TextDecoder().decode(bytes);
  const summary = {
    trustRoot: root.id,
    certificateAuthorities: root.counts.certificateAuthorities,
    transparencyLogs: root.counts.tlogs,
    ctLogs: root.counts.ctlogs,
    timestampAuthorities: root.counts.timestampAuthorities,
  };
  return await applyOne(options, ctx, {
    type: CONFIG_MAPS,
    name,
    manifest: (namespace) => trustRootManifest(name, namespace, text),
    detail:
      ` with trust root ${root.id}: ${summary.certificateAuthorities} certificate authorities, ${summary.transparencyLogs} transparency logs, ${summary.ctLogs} CT logs, ${summary.timestampAuthorities} timestamp authorities${
        root.names.length > 0 ? ` (${root.names.join(", ")})` : ""
      }`,
    extra: summary,
    held: (existing) => heldTrustRoot(existing, text),
  });
}
