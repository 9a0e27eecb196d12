/**
 * `image-security enable`'s client authentication (`--client-auth`, `--client-ca`,
 * `--api-server-config-dir`, `--api-server-config-path`): what kube-apiserver needs to prove
 * itself to the webhook (lib/install/client_auth.ts), written to a directory or printed. The
 * client key is only ever written to a file (0600), never printed.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { formatData } from "../output.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { writeFilesSafely } from "../../lib/file_write.ts";
import {
  API_SERVER_FILES,
  type ApiServerConfiguration,
  apiServerConfiguration,
  type ClientCa,
  type ClientCertificate,
  type InstallOptions,
  issueClientCertificate,
} from "../../lib/install/mod.ts";
import { resolvePath } from "./files.ts";

/** Where kube-apiserver reads the files when neither a directory nor a path is given. */
const DEFAULT_API_SERVER_CONFIG_PATH = "/etc/kubernetes/toolkit";

/** The client-authentication flags of `enable`, checked. */
export interface ClientAuthFlags {
  /** Whether the webhook requires the API server's client certificate. */
  readonly required: boolean;
  /** The administrator's client CA (PEM), read from `--client-ca`. */
  readonly givenCaPem: string | undefined;
  /** `--api-server-config-dir` as given. */
  readonly dir: string | undefined;
  /** Where kube-apiserver reads the files (absolute). */
  readonly path: string;
  /** Whether there is anything to do: a client CA to make or keep, files to write or print. */
  readonly active: boolean;
}

/** Reads and checks the client-authentication flags. */
export async function clientAuthFlags(
  ctx: CommandContext,
  flags: {
    readonly clientAuth?: boolean | undefined;
    readonly clientCa?: string | undefined;
    readonly apiServerConfigDir?: string | undefined;
    readonly apiServerConfigPath?: string | undefined;
    readonly dryRun?: boolean | undefined;
  },
): Promise<ClientAuthFlags> {
  const dir = flags.apiServerConfigDir || undefined;
  const caFile = flags.clientCa || undefined;
  const required = flags.clientAuth === true || caFile !== undefined;
  if (dir !== undefined && flags.dryRun) {
    throw new UsageError("Cannot use --api-server-config-dir with --dry-run: nothing is installed");
  }
  if (flags.apiServerConfigPath && !flags.apiServerConfigPath.startsWith("/")) {
    throw new UsageError(
      `Cannot use --api-server-config-path "${flags.apiServerConfigPath}": kube-apiserver needs an absolute path`,
    );
  }
  let givenCaPem: string | undefined;
  if (caFile !== undefined) {
    try {
      givenCaPem = await Deno.readTextFile(resolvePath(ctx.io.cwd, caFile));
    } catch (error) {
      throw new UsageError(`Cannot read --client-ca "${caFile}": ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const path = flags.apiServerConfigPath ||
    (dir !== undefined ? resolvePath(ctx.io.cwd, dir) : DEFAULT_API_SERVER_CONFIG_PATH);
  return { required, givenCaPem, dir, path, active: required || dir !== undefined };
}

/** What `enable` did for the control plane, for its report. */
export interface ApiServerReport {
  /** The configuration, with the paths kube-apiserver reads. */
  readonly configuration: ApiServerConfiguration;
  /** The files written (none when printed). */
  readonly written: readonly string[];
  /** The client certificate issued (none with the administrator's CA). */
  readonly certificate?: ClientCertificate;
}

/**
 * Issues the API server's client certificate (when toolkit holds the CA's key) and writes the
 * AdmissionConfiguration, its kubeconfig and the certificate and key into `--api-server-config-dir`
 * (the key and the directory readable by the owner only), each file by a rename.
 */
export async function prepareApiServerFiles(
  ctx: CommandContext,
  auth: ClientAuthFlags,
  options: Pick<InstallOptions, "namespace" | "webhookUrl">,
  ca: ClientCa,
): Promise<ApiServerReport> {
  const configuration = apiServerConfiguration(options, auth.path);
  const certificate = ca.caKeyPem !== undefined
    ? await issueClientCertificate(ca, new Date(ctx.clock.now()))
    : undefined;
  if (auth.dir === undefined) {
    return { configuration, written: [], ...(certificate ? { certificate } : {}) };
  }
  const dir = auth.dir;
  const path = resolvePath(ctx.io.cwd, dir);
  await Deno.mkdir(path, { recursive: true, mode: 0o700 }).catch((error) => {
    throw new ToolkitError(`Cannot create --api-server-config-dir "${dir}"`, { cause: error });
  });
  const files = [
    ...(certificate
      ? [
        { file: API_SERVER_FILES.key, data: certificate.keyPem, mode: 0o600, exactMode: true },
        { file: API_SERVER_FILES.cert, data: certificate.certPem, mode: 0o644 },
      ]
      : []),
    {
      file: API_SERVER_FILES.kubeconfig,
      data: formatData(configuration.kubeconfig, "yaml"),
      mode: 0o600,
      exactMode: true,
    },
    {
      file: API_SERVER_FILES.admissionConfiguration,
      data: formatData(configuration.admissionConfiguration, "yaml"),
      mode: 0o644,
    },
  ];
  await writeFilesSafely(files.map(({ file, ...rest }) => ({
    ...rest,
    path: `${path}/${file}`,
    name: `${dir}/${file}`,
  })));
  return {
    configuration,
    written: files.map((f) => `${dir}/${f.file}`),
    ...(certificate ? { certificate } : {}),
  };
}

/** The report's data for `-o json|yaml`: the configuration and the files, never a key. */
export function apiServerReportData(report: ApiServerReport): Record<string, unknown> {
  return {
    apiServerConfiguration: {
      admissionControlConfigFile: report.configuration.paths.admissionConfiguration,
      admissionConfiguration: report.configuration.admissionConfiguration,
      kubeconfig: report.configuration.kubeconfig,
      ...(report.written.length ? { written: report.written } : {}),
      ...(report.certificate
        ? { clientCertificateNotAfter: report.certificate.notAfter.toISOString() }
        : {}),
    },
  };
}

/**
 * Tells what the control plane needs, in text: the files written, or (none written) the
 * AdmissionConfiguration and kubeconfig on stdout, with where the certificate comes from.
 */
export function writeApiServerAdvice(
  ctx: CommandContext,
  auth: ClientAuthFlags,
  report: ApiServerReport,
  format: "text" | "json" | "yaml",
): void {
  const { paths } = report.configuration;
  const flag = `--admission-control-config-file=${paths.admissionConfiguration}`;
  const where = auth.dir !== undefined && auth.path !== resolvePath(ctx.io.cwd, auth.dir)
    ? `, copied to ${auth.path} on every control-plane node`
    : "";
  if (report.written.length > 0) {
    ctx.io.stderr.write(
      `API server configuration written: ${
        report.written.join(", ")
      }. Start kube-apiserver with ${flag}${where}.\n`,
    );
  } else if (format === "text") {
    ctx.io.stdout.write(
      `# ${paths.admissionConfiguration} (kube-apiserver ${flag})\n${
        formatData(report.configuration.admissionConfiguration, "yaml")
      }---\n# ${paths.kubeconfig}\n${formatData(report.configuration.kubeconfig, "yaml")}`,
    );
  }
  if (report.certificate === undefined) {
    ctx.io.stderr.write(
      `The client certificate and key kube-apiserver presents (${paths.cert}, ${paths.key}) are yours to issue from the --client-ca you gave (extended key usage clientAuth).\n`,
    );
  } else if (report.written.length === 0) {
    ctx.io.stderr.write(
      `The client certificate and key (${paths.cert}, ${paths.key}) are written only to files: --api-server-config-dir DIR writes them with this configuration.\n`,
    );
  }
  if (auth.required) {
    ctx.io.stderr.write(
      "The webhook refuses every client without a certificate from the client CA: until kube-apiserver reads this configuration, it cannot reach the webhook and refuses the Pods the webhook checks (failurePolicy Fail).\n",
    );
  }
}
