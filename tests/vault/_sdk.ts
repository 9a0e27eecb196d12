/**
 * Runs IBM's Go SDK for Key Protect (`keyprotect-sdk`, built by `tests/env/provision.sh` from
 * `tests/env/keyprotect-sdk/main.go`) against a Key Protect stand-in, for the interop tests.
 *
 * @module
 */
import { e2eSkipReason, findTool } from "../env/tools.ts";
import type { KeyProtectServer } from "../fakes/key_protect_server.ts";

/** Why the SDK tests cannot run here, or undefined when they can. */
export const sdkSkipReason: string | undefined = e2eSkipReason(["keyprotect-sdk"]);

/** How the SDK signs in. */
export type SdkAuth = { token: string } | { apiKey: string };

/** What one SDK command printed. */
export interface SdkRun {
  /** The exit status (0 success, 1 an SDK error, 2 a usage error). */
  readonly code: number;
  /** The JSON it printed: the SDK's result, or `{error, status, correlationId, reasons}`. */
  readonly json: Record<string, unknown>;
  /** What it printed on stderr (the SDK's error text). */
  readonly stderr: string;
}

/** Runs `keyprotect-sdk` with the stand-in's URLs and `args`. */
export async function sdk(
  kp: KeyProtectServer,
  instanceId: string,
  auth: SdkAuth,
  args: readonly string[],
  options: { keyRing?: string; retryMax?: number; cwd?: string } = {},
): Promise<SdkRun> {
  const credentials = "token" in auth
    ? ["-token", auth.token]
    : ["-api-key", auth.apiKey, "-token-url", kp.iamUrl];
  const output = await new Deno.Command(findTool("keyprotect-sdk")!, {
    args: [
      "-url",
      kp.url,
      "-instance",
      instanceId,
      ...credentials,
      ...(options.keyRing ? ["-key-ring", options.keyRing] : []),
      ...(options.retryMax !== undefined ? ["-retry-max", String(options.retryMax)] : []),
      ...args,
    ],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout).trim();
  let json: Record<string, unknown> = {};
  try {
    json = stdout ? JSON.parse(stdout) : {};
  } catch {
    throw new Error(`keyprotect-sdk ${args.join(" ")} printed no JSON: ${stdout}`);
  }
  return { code: output.code, json, stderr: new TextDecoder().decode(output.stderr) };
}

/** The `resources` of a collection the SDK printed. */
export function resourcesOf(run: SdkRun): Record<string, unknown>[] {
  const resources = run.json.resources;
  return Array.isArray(resources) ? resources as Record<string, unknown>[] : [];
}
