/**
 * `toolkit image-security enable | status | disable | rotate-certs`: installing toolkit's
 * admission webhook with server-side apply (idempotent: a second `enable` reports every object
 * unchanged), showing what is installed, removing it, and renewing its serving certificate.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { DISABLE, ENABLE_ENFORCEMENT, ROTATE_CERTS, STATUS } from "./enforcement_command.ts";
import {
  formatData,
  objectData,
  printData,
  printReport,
  reportData,
  type WriteReport,
} from "../output.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { isStatus, type KubeClient, type KubeObject, NAMESPACES } from "../../lib/kube/mod.ts";
import { namespaceOf } from "../dev/common.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { clientTimeoutMs } from "../network.ts";
import {
  ENFORCEMENT_LABEL,
  enforcementLabelMode,
  parseExemptLabel,
} from "../../lib/admission/mod.ts";
import {
  type AppliedObject,
  applyManifests,
  CLIENT_CA_SECRET_NAME,
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
  waitForWebhookUrl,
  waitUntilDeleted,
  type WebhookTls,
  withoutPrivateKeys,
} from "../../lib/install/mod.ts";
import { resolvePath } from "./files.ts";
import {
  apiServerReportData,
  clientAuthFlags,
  prepareApiServerFiles,
  writeApiServerAdvice,
} from "./enable_client_auth.ts";
import { writeFilesSafely } from "../../lib/file_write.ts";

type EnableOptions = OptionsOf<typeof ENABLE_ENFORCEMENT>;

/** The controller's namespace of `--controller-namespace`/`-n`. */
function controllerNamespace(options: { readonly controllerNamespace: string }): string {
  return namespaceOf(options.controllerNamespace, "toolkit-system");
}

/** The install options from `enable`'s flags. */
export function installOptionsFromFlags(flags: EnableOptions): InstallOptions {
  const defaultAction: DefaultAction = flags.default;
  const replicas = flags.replicas;
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new UsageError(`Cannot use --replicas "${replicas}": expected at least 1`);
  }
  const timeout = flags.timeout;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 30) {
    throw new UsageError(`Cannot use --timeout "${timeout}": expected 1 to 30 seconds`);
  }
  const webhookUrl = flags.webhookUrl || undefined;
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
  const lookaside = flags.lookaside.map(
    (entry) => {
      try {
        return parseLookasideEntry(entry, "--lookaside");
      } catch (error) {
        // The message says all: a usage error without the cause repeating it.
        if (error instanceof InstallError) throw new UsageError(error.message);
        throw error;
      }
    },
  );
  return defaultInstallOptions({
    namespace: controllerNamespace(flags),
    ...(flags.image ? { image: flags.image } : {}),
    replicas,
    defaultAction,
    webhookUrl,
    tlsMode: flags.certManager ? "cert-manager" : "self-signed",
    exemptLabel: parseExemptLabel(flags.exemptNamespaceLabel),
    exemptNamespaces: [...flags.exemptNamespace],
    timeoutSeconds: timeout,
    lookaside,
    clientAuth: flags.clientAuth === true || Boolean(flags.clientCa),
  });
}

/** `--tls-dir`, checked against the other flags. */
function tlsDirOf(
  flags: { readonly tlsDir: string | undefined; readonly dryRun?: boolean },
  options?: InstallOptions,
): string | undefined {
  const dir = flags.tlsDir || undefined;
  if (dir === undefined || options === undefined) return dir;
  if (options.tlsMode === "cert-manager") {
    throw new UsageError("Cannot use --tls-dir with --cert-manager: cert-manager keeps the key");
  }
  if (flags.dryRun) {
    throw new UsageError("Cannot use --tls-dir with --dry-run: nothing is installed");
  }
  return dir;
}

/**
 * Writes the serving certificate into `dir` (`tls.crt`, `tls.key` readable by the owner only,
 * `ca.crt`) for a webhook run outside the cluster (`--webhook-url`). The key is written first,
 * each file by a rename (lib/file_write.ts: through symbolic links, nothing renamed before all
 * three are written beside), so a webhook watching the files never reads half a file. With client
 * authentication, the client CA too (`client-ca.crt`, the webhook's `--client-ca`).
 */
export async function writeTlsDir(
  ctx: CommandContext,
  dir: string,
  tls: WebhookTls,
  clientCaPem?: string,
): Promise<void> {
  const path = resolvePath(ctx.io.cwd, dir);
  await Deno.mkdir(path, { recursive: true, mode: 0o700 }).catch((error) => {
    throw new ToolkitError(`Cannot create --tls-dir "${dir}"`, { cause: error });
  });
  await writeFilesSafely([
    { path: `${path}/tls.key`, data: tls.keyPem, mode: 0o600, exactMode: true },
    { path: `${path}/tls.crt`, data: tls.certPem, mode: 0o644 },
    { path: `${path}/ca.crt`, data: tls.caCertPem, mode: 0o644 },
    ...(clientCaPem !== undefined
      ? [{ path: `${path}/${CLIENT_CA_FILE}`, data: clientCaPem, mode: 0o644 }]
      : []),
  ].map((file) => ({ ...file, name: `${dir}/${file.path.slice(path.length + 1)}` })));
  ctx.io.stderr.write(
    `Serving certificate written to ${dir} (tls.crt, tls.key, ca.crt${
      clientCaPem !== undefined ? `, ${CLIENT_CA_FILE}` : ""
    })\n`,
  );
}

/** An installation's results in the one shape of results (docs/cli.md). */
function installReport(results: readonly AppliedObject[]): WriteReport {
  return {
    results: results.filter((r) => r.outcome !== "failed"),
    failures: results.filter((r) => r.outcome === "failed").map((r) => ({
      ...r,
      error: r.error ?? "failed",
    })),
  };
}

/** Writes each object's outcome in text: data on stdout, the reason of a failure on stderr. */
function writeResults(ctx: CommandContext, results: readonly AppliedObject[]): void {
  for (const r of results) {
    ctx.io.stdout.write(`${r.object} ${r.outcome}\n`);
    if (r.error) ctx.io.stderr.write(`  ${r.object}: ${r.error}\n`);
  }
}

/** The error of a batch in which some objects failed: exit 1, naming each. */
function failedObjects(results: readonly AppliedObject[], what: string): ToolkitError | undefined {
  const failed = results.filter((r) => r.outcome === "failed");
  if (failed.length === 0) return undefined;
  return new ToolkitError(
    `${what}: ${failed.length} object(s) failed: ${
      failed.map((r) => `${r.object} (${r.error})`).join("; ")
    }`,
  );
}

/** The CA the webhook configuration trusts (its `caBundle`), as PEM. */
function caBundleOf(hook: KubeObject): string | undefined {
  const webhooks = (hook as { webhooks?: { clientConfig?: { caBundle?: string } }[] }).webhooks;
  const bundle = webhooks?.[0]?.clientConfig?.caBundle;
  return bundle ? decodeBase64Text(bundle) : undefined;
}

/** The client CA file `--tls-dir` holds with client authentication. */
const CLIENT_CA_FILE = "client-ca.crt";

/** Exactly what must serve `--webhook-url`, and how to make it do so. */
function restartAdvice(options: InstallOptions, tlsDir: string | undefined): string {
  return tlsDir !== undefined
    ? `start (or restart) the webhook serving ${options.webhookUrl} with --tls-cert-file ${tlsDir}/tls.crt --tls-key-file ${tlsDir}/tls.key${
      options.clientAuth ? ` --client-ca ${tlsDir}/${CLIENT_CA_FILE}` : ""
    } (a running one reloads them within its --tls-reload-interval, 5s by default)`
    : `serve ${options.webhookUrl} with the certificate of Secret "${options.namespace}/${TLS_SECRET_NAME}" (tls.crt, tls.key; --tls-dir DIR writes them to files)${
      options.clientAuth
        ? ` and --client-ca with the ca.crt of Secret "${options.namespace}/${CLIENT_CA_SECRET_NAME}"`
        : ""
    } and restart the webhook there`;
}

/** Runs `enable`. */
export async function runEnable(flags: EnableOptions, ctx: CommandContext): Promise<number> {
  const auth = await clientAuthFlags(ctx, flags);
  const options: InstallOptions = {
    ...installOptionsFromFlags(flags),
    clientCaPem: auth.givenCaPem,
  };
  const tlsDir = tlsDirOf(flags, options);
  const waitTimeout = flags.waitTimeout;
  if (!Number.isFinite(waitTimeout) || waitTimeout <= 0) {
    throw new UsageError(
      `Cannot use --wait-timeout "${waitTimeout}": expected seconds above 0`,
    );
  }
  const now = new Date(ctx.clock.now());
  if (flags.dryRun) {
    const format = flags.output ?? "yaml";
    const prepared = await prepareInstall(undefined, options, { now, clientCa: auth.active });
    // The keys made for a dry run are throwaway ones: shown as empty entries, never printed.
    const { objects, emptied } = withoutPrivateKeys(prepared.objects);
    if (format !== "text" && emptied.length > 0) {
      ctx.io.stderr.write(
        `Private keys are not printed (empty here; enable makes them when it installs): ${
          emptied.join(", ")
        }\n`,
      );
    }
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
  using client = await ctx.kube(flags);
  if (await isTerminating(client, "Namespace", undefined, options.namespace)) {
    ctx.io.stderr.write(
      `Waiting for the namespace "${options.namespace}" to finish terminating…\n`,
    );
    await waitUntilDeleted(client, "Namespace", undefined, options.namespace, ctx.clock);
  }
  const { objects, tlsRenewed, tls, clientCa, clientCaRenewed } = await prepareInstall(
    client,
    options,
    { now, clientCa: auth.active },
  );
  if (tlsRenewed) ctx.io.stderr.write(`Making a new serving certificate: ${tlsRenewed}\n`);
  if (clientCaRenewed) ctx.io.stderr.write(`Making a new client CA: ${clientCaRenewed}\n`);
  // The webhook configuration is last: it is applied once the webhook can answer. In text,
  // each object is printed as it is applied (a wait that fails leaves the list of what was).
  const format = flags.output ?? "text";
  const show = (applied: AppliedObject[]) => {
    if (format === "text") writeResults(ctx, applied);
    return applied;
  };
  const hook = objects.at(-1)!;
  const results = show(await applyManifests(client, objects.slice(0, -1)));
  // A refused object does not stop the others, but enforcement is switched on only when every
  // object is in place: a webhook configuration in front of a broken webhook would refuse Pods.
  const failure = failedObjects(results, "Image signature enforcement is not switched on");
  if (failure) {
    printReport(ctx.io, format, installReport(results), { namespace: options.namespace });
    throw failure;
  }
  if (tlsDir !== undefined && tls) {
    await writeTlsDir(ctx, tlsDir, tls, options.clientAuth ? clientCa?.caCertPem : undefined);
  }
  const apiServer = clientCa
    ? await prepareApiServerFiles(ctx, auth, options, clientCa)
    : undefined;
  const restart = options.webhookUrl ? restartAdvice(options, tlsDir) : "";
  const caPem = options.webhookUrl ? caBundleOf(hook) : undefined;
  if (options.webhookUrl && flags.verifyUrl && caPem !== undefined) {
    // The API server will trust only this CA: a webhook still serving another certificate (an
    // older one, another installation's) would make every Pod fail. Checked before switching on.
    ctx.io.stderr.write(
      `Checking that ${options.webhookUrl} answers with the serving certificate before switching enforcement on…
`,
    );
    await waitForWebhookUrl(
      options.webhookUrl,
      caPem,
      `${restart}, then run this command again (--no-verify-url switches enforcement on without this check)`,
      {
        ...ctx.clock,
        timeoutMs: flags.wait ? waitTimeout * 1000 : 0,
        requestTimeoutMs: clientTimeoutMs(flags),
        fetch: ctx.fetch,
        ...(options.clientAuth && apiServer?.certificate
          ? { clientCertificate: apiServer.certificate }
          : {}),
        onProgress: (probe) => ctx.io.stderr.write(`  ${probe.why}: waiting; ${restart}\n`),
      },
    );
    ctx.io.stderr.write(`  ${options.webhookUrl} answers with the serving certificate\n`);
  }
  if (!options.webhookUrl && flags.wait) {
    ctx.io.stderr.write("Waiting for the webhook to be ready before switching enforcement on…\n");
    const ready = await waitForWebhook(client, options.namespace, {
      ...ctx.clock,
      timeoutMs: waitTimeout * 1000,
      onProgress: (r) => ctx.io.stderr.write(`  ${r.available}/${r.desired} replicas available\n`),
    });
    ctx.io.stderr.write(`  ${ready.available}/${ready.desired} replicas available\n`);
  }
  results.push(...show(await applyManifests(client, [hook])));
  printReport(ctx.io, format, installReport(results), {
    namespace: options.namespace,
    ...(apiServer ? apiServerReportData(apiServer) : {}),
  });
  const hookFailure = failedObjects(results, "Image signature enforcement is not switched on");
  if (hookFailure) throw hookFailure;
  const changed = results.filter((r) => r.outcome !== "unchanged").length;
  ctx.io.stderr.write(
    changed === 0
      ? "Image signature enforcement is enabled; nothing changed.\n"
      : `Image signature enforcement is enabled (${changed} object(s) created or configured).\n`,
  );
  if (options.webhookUrl && !flags.verifyUrl) {
    ctx.io.stderr.write(
      `The API server calls ${options.webhookUrl}, not checked (--no-verify-url): ${restart}.\n`,
    );
  }
  if (apiServer) writeApiServerAdvice(ctx, auth, apiServer, format);
  const advice = await signingKeysAdvice(client, options);
  if (advice) ctx.io.stderr.write(`Warning: ${advice}\n`);
  return 0;
}

/** A namespace labelled {@linkcode ENFORCEMENT_LABEL}: its mode, absent when the value is ignored. */
interface NamespaceMode {
  readonly namespace: string;
  readonly label: string;
  readonly mode?: "enforce" | "warn";
}

/**
 * The namespaces whose {@linkcode ENFORCEMENT_LABEL} takes the place of the webhook's `--mode`
 * (set by `rollout`), by name; undefined, with a warning, when Namespaces may not be listed.
 */
async function readNamespaceModes(
  client: KubeClient,
  ctx: CommandContext,
): Promise<NamespaceMode[] | undefined> {
  let labelled: KubeObject[];
  try {
    labelled = await client.list(NAMESPACES, undefined, { labelSelector: ENFORCEMENT_LABEL });
  } catch (error) {
    if (!isStatus(error, 403)) throw error;
    ctx.io.stderr.write(
      `Warning: the namespace modes (${ENFORCEMENT_LABEL}) are not shown: listing Namespaces is forbidden\n`,
    );
    return undefined;
  }
  return labelled.map((n) => {
    const mode = enforcementLabelMode(n.metadata.labels);
    return {
      namespace: n.metadata.name,
      label: n.metadata.labels?.[ENFORCEMENT_LABEL] ?? "",
      ...(mode ? { mode } : {}),
    };
  }).sort((a, b) => a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0);
}

/** Runs `status`. */
export async function runStatus(
  options: OptionsOf<typeof STATUS>,
  ctx: CommandContext,
): Promise<number> {
  const format = options.output;
  using client = await ctx.kube(options);
  const status = await installationStatus(
    client,
    controllerNamespace(options),
    new Date(ctx.clock.now()),
  );
  const namespaceModes = await readNamespaceModes(client, ctx);
  const data = {
    ...status,
    objects: status.objects.map((o) => ({ ...objectData(o), present: o.present })),
    ...(namespaceModes ? { namespaceModes } : {}),
  };
  printData(ctx.io.stdout, format, data, () => {
    const state = !status.installed ? "not installed" : status.enabled ? "enabled" : "not enabled";
    const lines = [
      `Enforcement: ${state} (namespace ${status.namespace})${
        status.enabledFrom ? `; enabled from namespace ${status.enabledFrom}` : ""
      }`,
    ];
    if (status.endpoint) lines.push(`Webhook: ${status.endpoint}`);
    if (status.replicas) {
      lines.push(
        `Replicas: ${status.replicas.ready}/${status.replicas.desired} ready (${
          status.image ?? "?"
        })`,
      );
    }
    if (status.clientAuth !== undefined) {
      lines.push(
        status.clientAuth
          ? `Client authentication: on (--client-ca: only clients with a certificate from the CA of Secret "${status.namespace}/${CLIENT_CA_SECRET_NAME}" are answered)`
          : "Client authentication: off (any client may call the webhook; enable --client-auth requires the API server's certificate)",
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
    if (namespaceModes) {
      lines.push(`Namespace modes (${ENFORCEMENT_LABEL}; elsewhere the webhook's --mode):`);
      if (namespaceModes.length === 0) lines.push("  none");
      for (const m of namespaceModes) {
        lines.push(
          m.mode
            ? `  ${m.namespace}: ${m.mode}`
            : `  ${m.namespace}: ${JSON.stringify(m.label)} (ignored: neither enforce nor warn)`,
        );
      }
    }
    return `${lines.join("\n")}\n`;
  });
  if (!status.installed) {
    // What was asked about is not there: a failure (exit 1), said plainly.
    ctx.io.stderr.write(
      `Image signature enforcement is not installed in namespace "${status.namespace}"${
        status.enabledFrom
          ? ` (it is installed in "${status.enabledFrom}": -n ${status.enabledFrom})`
          : ""
      }; toolkit image-security enable -n ${status.namespace} installs it.\n`,
    );
    return 1;
  }
  return 0;
}

/** Runs `disable`. */
export async function runDisable(
  options: OptionsOf<typeof DISABLE>,
  ctx: CommandContext,
): Promise<number> {
  using client = await ctx.kube(options);
  const namespace = controllerNamespace(options);
  const kept: string[] = [];
  const results = await uninstall(client, namespace, {
    purge: options.purge,
    onKept: (line) => kept.push(line),
  });
  if (options.output) {
    printReport(ctx.io, options.output, installReport(results), { namespace });
  } else {
    writeResults(ctx, results.filter((r) => r.outcome === "deleted" || r.outcome === "failed"));
  }
  const failure = failedObjects(
    results,
    "Image signature enforcement is disabled, but not all of it is removed",
  );
  if (failure) throw failure;
  if (options.purge) {
    // Deleting starts the termination: wait until a new enable could create them again.
    ctx.io.stderr.write(`Waiting for the namespace "${namespace}" and the CRDs to be deleted…\n`);
    await waitUntilDeleted(client, "Namespace", undefined, namespace, ctx.clock);
    const crds = [
      ...POLICY_CRD_NAMES,
      ...results.filter((r) =>
        r.type.kind === "CustomResourceDefinition" && r.outcome === "deleted"
      )
        .map((r) => r.name).filter((name) => !POLICY_CRD_NAMES.includes(name)),
    ];
    for (const crd of crds) {
      await waitUntilDeleted(client, "CustomResourceDefinition", undefined, crd, ctx.clock);
    }
    for (const line of kept) ctx.io.stderr.write(`${line}.\n`);
  }
  ctx.io.stderr.write(
    options.purge
      ? "Image signature enforcement is removed, with its policies, CRDs, namespace and PolicyReports.\n"
      : "Image signature enforcement is disabled; policies, key Secrets and CRDs are kept (--purge removes them).\n",
  );
  return 0;
}

/** Runs `rotate-certs`. */
export async function runRotateCerts(
  options: OptionsOf<typeof ROTATE_CERTS>,
  ctx: CommandContext,
): Promise<number> {
  using client = await ctx.kube(options);
  const tlsDir = tlsDirOf(options);
  const result = await rotateCertificates(
    client,
    controllerNamespace(options),
    new Date(ctx.clock.now()),
  );
  if (tlsDir !== undefined) {
    // The webhook run from these files needs the client CA too when it requires certificates.
    await writeTlsDir(ctx, tlsDir, result.tls, result.clientCaPem);
    if (result.clientAuth && result.clientCaPem === undefined) {
      ctx.io.stderr.write(
        `Warning: the webhook requires client certificates, but Secret "${
          controllerNamespace(options)
        }/${CLIENT_CA_SECRET_NAME}" holds no ca.crt: ${CLIENT_CA_FILE} not written\n`,
      );
    }
  }
  const format = options.output;
  printData(
    ctx.io.stdout,
    format,
    { notAfter: result.notAfter.toISOString(), ...reportData(installReport(result.objects)) },
    () =>
      `${
        result.objects.map((r) => `${r.object} ${r.outcome}`).join("\n")
      }\nNew certificate valid until ${result.notAfter.toISOString()}\n`,
  );
  return 0;
}
