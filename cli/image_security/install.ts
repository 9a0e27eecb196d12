/**
 * `toolkit image-security enable | status | disable | rotate-certs`: installing toolkit's
 * admission webhook with server-side apply (idempotent: a second `enable` reports every object
 * unchanged), showing what is installed, removing it, and renewing its serving certificate.
 *
 * @module
 */
import type { CommandArgs, CommandContext } from "../command.ts";
import { formatData, outputFormat, printData } from "../output.ts";
import { UsageError } from "../../lib/errors.ts";
import { connectCluster, type KubeClient, namespaceNameProblem } from "../../lib/kube/mod.ts";
import { parseExemptLabel } from "../../lib/admission/mod.ts";
import {
  type AppliedObject,
  applyManifests,
  type DefaultAction,
  defaultInstallOptions,
  installationStatus,
  InstallError,
  type InstallOptions,
  isTerminating,
  parseLookasideEntry,
  POLICY_CRD_NAMES,
  prepareInstall,
  rotateCertificates,
  signingKeysAdvice,
  TLS_SECRET_NAME,
  uninstall,
  waitForWebhook,
  waitUntilDeleted,
  type WebhookTls,
} from "../../lib/install/mod.ts";
import { resolvePath, writeNewFile } from "./files.ts";

function str(args: CommandArgs, name: string): string | undefined {
  const value = args[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

function namespaceOf(args: CommandArgs): string {
  const namespace = str(args, "namespace") ?? "toolkit-system";
  const problem = namespaceNameProblem(namespace);
  if (problem) throw new UsageError(`Cannot use the namespace "${namespace}": ${problem}`);
  return namespace;
}

async function connect(args: CommandArgs, ctx: CommandContext): Promise<KubeClient> {
  return await connectCluster({
    kubeconfig: str(args, "kubeconfig"),
    context: str(args, "context"),
    env: ctx.io.env,
    cwd: ctx.io.cwd,
  });
}

/** The install options from `enable`'s flags. */
export function installOptionsFromArgs(args: CommandArgs): InstallOptions {
  const defaultAction = str(args, "default") ?? "warn";
  if (!["allow", "warn", "deny"].includes(defaultAction)) {
    throw new UsageError(`Cannot use --default "${defaultAction}": expected allow, warn or deny`);
  }
  const replicas = Number(args.replicas ?? 3);
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new UsageError(`Cannot use --replicas "${String(args.replicas)}": expected at least 1`);
  }
  const timeout = Number(args.timeout ?? 10);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 30) {
    throw new UsageError(
      `Cannot use --timeout "${String(args.timeout)}": expected 1 to 30 seconds`,
    );
  }
  const webhookUrl = str(args, "webhook-url");
  if (webhookUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(webhookUrl);
    } catch (error) {
      throw new UsageError(`Cannot use --webhook-url "${webhookUrl}": not a URL`, { cause: error });
    }
    if (url.protocol !== "https:") {
      throw new UsageError(
        `Cannot use --webhook-url "${webhookUrl}": the API server only calls https URLs`,
      );
    }
  }
  const lookaside = (Array.isArray(args.lookaside) ? args.lookaside as unknown[] : []).map(
    (entry) => {
      try {
        return parseLookasideEntry(String(entry), "--lookaside");
      } catch (error) {
        // The message says all: a usage error without the cause repeating it.
        if (error instanceof InstallError) throw new UsageError(error.message);
        throw error;
      }
    },
  );
  const exemptRaw = args["exempt-namespace-label"];
  const exempt = Array.isArray(args["exempt-namespace"])
    ? (args["exempt-namespace"] as unknown[]).map(String)
    : [];
  return defaultInstallOptions({
    namespace: namespaceOf(args),
    ...(str(args, "image") ? { image: str(args, "image")! } : {}),
    replicas,
    defaultAction: defaultAction as DefaultAction,
    webhookUrl,
    tlsMode: args["cert-manager"] === true ? "cert-manager" : "self-signed",
    ...(typeof exemptRaw === "string" ? { exemptLabel: parseExemptLabel(exemptRaw) } : {}),
    exemptNamespaces: exempt,
    timeoutSeconds: timeout,
    lookaside,
  });
}

/** `--tls-dir`, checked against the other flags. */
function tlsDirOf(args: CommandArgs, options?: InstallOptions): string | undefined {
  const dir = str(args, "tls-dir");
  if (dir === undefined || options === undefined) return dir;
  if (options.tlsMode === "cert-manager") {
    throw new UsageError("Cannot use --tls-dir with --cert-manager: cert-manager keeps the key");
  }
  if (args["dry-run"] === true) {
    throw new UsageError("Cannot use --tls-dir with --dry-run: nothing is installed");
  }
  return dir;
}

/**
 * Writes the serving certificate into `dir` (`tls.crt`, `tls.key` readable by the owner only,
 * `ca.crt`) for a webhook run outside the cluster (`--webhook-url`). The key is written first,
 * each file by a rename, so a webhook watching the files never reads half a file.
 */
async function writeTlsDir(ctx: CommandContext, dir: string, tls: WebhookTls): Promise<void> {
  const path = resolvePath(ctx.io.cwd, dir);
  await Deno.mkdir(path, { recursive: true, mode: 0o700 });
  await writeNewFile(`${path}/tls.key`, tls.keyPem, { mode: 0o600, force: true });
  await writeNewFile(`${path}/tls.crt`, tls.certPem, { mode: 0o644, force: true });
  await writeNewFile(`${path}/ca.crt`, tls.caCertPem, { mode: 0o644, force: true });
  ctx.io.stderr.write(`Serving certificate written to ${dir} (tls.crt, tls.key, ca.crt)\n`);
}

function writeResults(ctx: CommandContext, results: readonly AppliedObject[]): void {
  for (const r of results) ctx.io.stdout.write(`${r.object} ${r.outcome}\n`);
}

/** Runs `enable`. */
export async function runEnable(args: CommandArgs, ctx: CommandContext): Promise<number> {
  const options = installOptionsFromArgs(args);
  const tlsDir = tlsDirOf(args, options);
  const waitTimeout = Number(args["wait-timeout"] ?? 180);
  if (!Number.isFinite(waitTimeout) || waitTimeout <= 0) {
    throw new UsageError(
      `Cannot use --wait-timeout "${String(args["wait-timeout"])}": expected seconds above 0`,
    );
  }
  const now = new Date();
  if (args["dry-run"] === true) {
    const format = outputFormat(args, ["text", "json", "yaml"], "yaml");
    const { objects } = await prepareInstall(undefined, options, { now });
    if (format === "json") {
      ctx.io.stdout.write(formatData({ apiVersion: "v1", kind: "List", items: objects }, "json"));
    } else if (format === "yaml") {
      ctx.io.stdout.write(objects.map((o) => formatData(o, "yaml")).join("---\n"));
    } else {
      for (const o of objects) {
        ctx.io.stdout.write(
          `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}\n`,
        );
      }
    }
    return 0;
  }
  using client = await connect(args, ctx);
  if (await isTerminating(client, "Namespace", undefined, options.namespace)) {
    ctx.io.stderr.write(
      `Waiting for the namespace "${options.namespace}" to finish terminating…\n`,
    );
    await waitUntilDeleted(client, "Namespace", undefined, options.namespace);
  }
  const { objects, tlsRenewed, tls } = await prepareInstall(client, options, { now });
  if (tlsRenewed) ctx.io.stderr.write(`Making a new serving certificate: ${tlsRenewed}\n`);
  // The webhook configuration is last: it is applied once the webhook can answer. In text,
  // each object is printed as it is applied (a wait that fails leaves the list of what was).
  const format = outputFormat(args, ["text", "json", "yaml"], "text");
  const show = (applied: AppliedObject[]) => {
    if (format === "text") writeResults(ctx, applied);
    return applied;
  };
  const hook = objects.at(-1)!;
  const results = show(await applyManifests(client, objects.slice(0, -1)));
  if (tlsDir !== undefined && tls) await writeTlsDir(ctx, tlsDir, tls);
  if (!options.webhookUrl && args.wait !== false) {
    ctx.io.stderr.write("Waiting for the webhook to be ready before switching enforcement on…\n");
    const ready = await waitForWebhook(client, options.namespace, {
      timeoutMs: waitTimeout * 1000,
      onProgress: (r) => ctx.io.stderr.write(`  ${r.available}/${r.desired} replicas available\n`),
    });
    ctx.io.stderr.write(`  ${ready.available}/${ready.desired} replicas available\n`);
  }
  results.push(...show(await applyManifests(client, [hook])));
  if (format !== "text") printData(ctx.io.stdout, format, { objects: results }, () => "");
  const changed = results.filter((r) => r.outcome !== "unchanged").length;
  ctx.io.stderr.write(
    changed === 0
      ? "Image signature enforcement is enabled; nothing changed.\n"
      : `Image signature enforcement is enabled (${changed} object(s) created or configured).\n`,
  );
  if (options.webhookUrl && tlsDir === undefined) {
    ctx.io.stderr.write(
      `The API server calls ${options.webhookUrl}: serve it with the certificate in Secret "${options.namespace}/${TLS_SECRET_NAME}" (--tls-dir DIR writes it to files).\n`,
    );
  }
  const advice = await signingKeysAdvice(client, options);
  if (advice) ctx.io.stderr.write(`Warning: ${advice}\n`);
  return 0;
}

/** Runs `status`. */
export async function runStatus(args: CommandArgs, ctx: CommandContext): Promise<number> {
  const format = outputFormat(args, ["text", "json", "yaml"], "text");
  using client = await connect(args, ctx);
  const status = await installationStatus(client, namespaceOf(args), new Date());
  printData(ctx.io.stdout, format, status, () => {
    const lines = [
      `Enforcement: ${status.enabled ? "enabled" : "not enabled"} (namespace ${status.namespace})`,
    ];
    if (status.endpoint) lines.push(`Webhook: ${status.endpoint}`);
    if (status.replicas) {
      lines.push(
        `Replicas: ${status.replicas.ready}/${status.replicas.desired} ready (${
          status.image ?? "?"
        })`,
      );
    }
    if (status.certificate) {
      lines.push(
        `Certificate: expires ${status.certificate.notAfter} (${status.certificate.daysLeft} days)`,
      );
    }
    lines.push("Objects:");
    for (const o of status.objects) {
      lines.push(`  ${o.present ? "present" : "missing"}  ${o.object}`);
    }
    lines.push("Policies:");
    const namespaces = Object.keys(status.policies).sort();
    if (namespaces.length === 0) lines.push("  none");
    for (const ns of namespaces) {
      lines.push(`  ${ns === "" ? "(cluster)" : ns}: ${status.policies[ns]!.join(", ")}`);
    }
    return `${lines.join("\n")}\n`;
  });
  return 0;
}

/** Runs `disable`. */
export async function runDisable(args: CommandArgs, ctx: CommandContext): Promise<number> {
  using client = await connect(args, ctx);
  const namespace = namespaceOf(args);
  const results = await uninstall(client, namespace, { purge: args.purge === true });
  writeResults(ctx, results.filter((r) => r.outcome === "deleted"));
  if (args.purge === true) {
    // Deleting starts the termination: wait until a new enable could create them again.
    ctx.io.stderr.write(`Waiting for the namespace "${namespace}" and the CRDs to be deleted…\n`);
    await waitUntilDeleted(client, "Namespace", undefined, namespace);
    for (const crd of POLICY_CRD_NAMES) {
      await waitUntilDeleted(client, "CustomResourceDefinition", undefined, crd);
    }
  }
  ctx.io.stderr.write(
    args.purge === true
      ? "Image signature enforcement is removed, with its policies, CRDs and namespace.\n"
      : "Image signature enforcement is disabled; policies, key Secrets and CRDs are kept (--purge removes them).\n",
  );
  return 0;
}

/** Runs `rotate-certs`. */
export async function runRotateCerts(args: CommandArgs, ctx: CommandContext): Promise<number> {
  using client = await connect(args, ctx);
  const tlsDir = tlsDirOf(args);
  const result = await rotateCertificates(client, namespaceOf(args), new Date());
  if (tlsDir !== undefined) await writeTlsDir(ctx, tlsDir, result.tls);
  const format = outputFormat(args, ["text", "json", "yaml"], "text");
  printData(
    ctx.io.stdout,
    format,
    { notAfter: result.notAfter.toISOString(), objects: result.objects },
    () =>
      `${
        result.objects.map((r) => `${r.object} ${r.outcome}`).join("\n")
      }\nNew certificate valid until ${result.notAfter.toISOString()}\n`,
  );
  return 0;
}
