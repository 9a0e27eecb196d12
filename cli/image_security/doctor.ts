/**
 * `toolkit image-security doctor`: checks the local signing setup. It warns when the
 * containers `registries.d` configuration would keep signatures on the local disk
 * (a `file://` lookaside, or no configuration at all, where skopeo and buildah write to
 * `file:///var/lib/containers/sigstore`) instead of in the registry or a shared web store —
 * signatures there never reach the cluster, so every signed image would be denied. It also
 * reports whether gpg and skopeo are installed.
 *
 * Exit status: 0 when nothing is wrong (warnings included), 1 when a check fails.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { DOCTOR } from "./doctor_command.ts";
import { printData } from "../output.ts";
import { resolvePath } from "./files.ts";
import { describeError } from "../../lib/errors.ts";
import { loadRegistriesD, type RegistriesD } from "../../lib/lookaside/mod.ts";
import type { ProcessRunner } from "../../lib/process.ts";

/** One finding. */
export interface DoctorFinding {
  readonly level: "ok" | "warn" | "fail";
  readonly check: string;
  readonly message: string;
}

const LOCAL_DEFAULT = "file:///var/lib/containers/sigstore";

/** Looks at a registries.d configuration for signatures kept on the local disk. */
export function lookasideFindings(dir: string, config: RegistriesD): DoctorFinding[] {
  const findings: DoctorFinding[] = [];
  const sections = [
    ...(config.defaultDocker ? [["default-docker", config.defaultDocker] as const] : []),
    ...[...config.docker].map(([scope, section]) => [`docker: ${scope}`, section] as const),
  ];
  if (!config.defaultDocker?.lookaside && !config.defaultDocker?.lookasideStaging) {
    findings.push({
      level: "warn",
      check: "registries.d",
      message: `${dir} sets no default-docker lookaside: skopeo and buildah write signatures of ` +
        `images without a scope of their own to ${LOCAL_DEFAULT} on this machine, where no ` +
        `cluster can read them (set default-docker.lookaside to an http(s) store, or push to a ` +
        `registry with the signature extension)`,
    });
  }
  for (const [scope, section] of sections) {
    for (
      const [key, url] of [["lookaside", section.lookaside], [
        "lookaside-staging",
        section.lookasideStaging,
      ]]
    ) {
      if (url?.startsWith("file:")) {
        const staging = key === "lookaside-staging";
        findings.push({
          level: staging && section.lookaside && !section.lookaside.startsWith("file:")
            ? "ok"
            : "warn",
          check: "registries.d",
          message: staging && section.lookaside && !section.lookaside.startsWith("file:")
            ? `${scope}: signatures are staged in ${url} (${section.source}); publish that directory at ${section.lookaside}`
            : `${scope}: ${key} ${url} (${section.source}) keeps signatures on the local disk instead ` +
              `of in the registry or a shared store`,
        });
      }
    }
  }
  for (const warning of config.warnings) {
    findings.push({ level: "warn", check: "registries.d", message: warning });
  }
  if (findings.length === 0) {
    findings.push({
      level: "ok",
      check: "registries.d",
      message: `${dir}: signatures go to shared stores`,
    });
  }
  return findings;
}

async function toolVersion(
  processes: ProcessRunner,
  command: string,
  args: string[],
): Promise<string | undefined> {
  try {
    const out = await processes.output(command, { args });
    return out.success ? new TextDecoder().decode(out.stdout).split("\n")[0]?.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `doctor`. */
export async function run(
  options: OptionsOf<typeof DOCTOR>,
  ctx: CommandContext,
): Promise<number> {
  const format = options.output;
  const dir = resolvePath(ctx.io.cwd, options["registries.d"]);
  const findings: DoctorFinding[] = [];
  try {
    findings.push(...lookasideFindings(dir, await loadRegistriesD(dir)));
  } catch (error) {
    findings.push({ level: "fail", check: "registries.d", message: describeError(error) });
  }
  for (
    const [tool, versionArgs, why] of [
      ["gpg", ["--version"], "needed to sign with skopeo/buildah --sign-by"],
      ["skopeo", ["--version"], "needed to copy and sign images"],
    ] as const
  ) {
    const version = await toolVersion(ctx.processes, tool, [...versionArgs]);
    findings.push(
      version
        ? { level: "ok", check: tool, message: version }
        : { level: "warn", check: tool, message: `${tool} is not installed (${why})` },
    );
  }
  printData(
    ctx.io.stdout,
    format,
    { findings },
    () =>
      findings.map((f) =>
        `${
          f.level === "ok" ? "ok  " : f.level === "warn" ? "WARN" : "FAIL"
        }  ${f.check}: ${f.message}\n`
      )
        .join(""),
  );
  return findings.some((f) => f.level === "fail") ? 1 : 0;
}
