/**
 * The real cosign (v3, built by `tests/env/provision.sh` from its Go module) for tests, with a
 * throwaway HOME so nothing reads or writes `~/.sigstore` or `~/.docker`. It signs keyed and
 * without a transparency log, the only way v3.1.3 signs offline: `--use-signing-config=false
 * --tlog-upload=false`, in either storage format (`bundle`: a sigstore bundle v0.3 as an OCI 1.1
 * referrer, or the `sha256-<hex>` fallback tag where the registry has no referrers API;
 * `legacy`: the `sha256-<hex>.sig` tag), and verifies with `--insecure-ignore-tlog`.
 *
 * @module
 */
import { run } from "./process.ts";
import { requireTool } from "./tools.ts";

/** The storage format of a cosign signature. */
export type CosignFormat = "bundle" | "legacy";

/** A key pair cosign made. */
export interface CosignKeyPair {
  /** `cosign.key`: PEM `ENCRYPTED SIGSTORE PRIVATE KEY`. */
  readonly privateKeyFile: string;
  /** `cosign.pub`: PEM `PUBLIC KEY`. */
  readonly publicKeyFile: string;
  /** The password it is encrypted with. */
  readonly password: string;
}

/** What a cosign run returned. */
export interface CosignResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** cosign with a throwaway home. */
export interface TestCosign extends AsyncDisposable {
  /** The cosign binary. */
  readonly binary: string;
  /** Its HOME (removed by {@link stop}). */
  readonly home: string;
  /** Runs cosign with `args`; `password` becomes `COSIGN_PASSWORD`. */
  run(args: string[], options?: { password?: string }): Promise<CosignResult>;
  /** `cosign generate-key-pair` into `dir` (`cosign.key`, `cosign.pub`). */
  generateKeyPair(dir: string, password?: string): Promise<CosignKeyPair>;
  /** Signs `image` with a private key, keyed and without a transparency log; throws on failure. */
  sign(
    image: string,
    options: { key: string; password: string; format: CosignFormat; recursive?: boolean },
  ): Promise<CosignResult>;
  /** `cosign verify --key PUB --insecure-ignore-tlog image` (the result, not a throw). */
  verify(image: string, options: { publicKeyFile: string }): Promise<CosignResult>;
  /** Removes the home. */
  stop(): Promise<void>;
}

/** Prepares cosign. */
export async function startCosign(): Promise<TestCosign> {
  const binary = requireTool("cosign");
  const home = await Deno.makeTempDir({ prefix: "toolkit-cosign-" });
  const exec = (args: string[], options: { password?: string } = {}) =>
    run(binary, args, {
      env: {
        HOME: home,
        // No TUF, no update checks, no terminal prompts.
        TUF_ROOT: `${home}/.sigstore/root`,
        COSIGN_YES: "true",
        ...(options.password === undefined ? {} : { COSIGN_PASSWORD: options.password }),
      },
      cwd: home,
    });
  const ok = async (args: string[], options: { password?: string } = {}) => {
    const result = await exec(args, options);
    if (result.code !== 0) {
      throw new Error(`cosign ${args.join(" ")} exited ${result.code}: ${result.stderr.trim()}`);
    }
    return result;
  };
  const stop = () => Deno.remove(home, { recursive: true }).catch(() => {});
  return {
    binary,
    home,
    run: exec,
    async generateKeyPair(dir, password = "cosign-test-password") {
      await ok(["generate-key-pair", "--output-key-prefix", `${dir}/cosign`], { password });
      return {
        privateKeyFile: `${dir}/cosign.key`,
        publicKeyFile: `${dir}/cosign.pub`,
        password,
      };
    },
    sign(image, options) {
      const args = [
        "sign",
        "--key",
        options.key,
        "--use-signing-config=false",
        "--tlog-upload=false",
        "--allow-insecure-registry",
        "-y",
      ];
      if (options.format === "legacy") args.push("--new-bundle-format=false");
      // An index and every manifest it lists.
      if (options.recursive) args.push("--recursive");
      return ok([...args, image], { password: options.password });
    },
    verify(image, options) {
      return exec([
        "verify",
        "--key",
        options.publicKeyFile,
        "--insecure-ignore-tlog",
        "--allow-insecure-registry",
        image,
      ]);
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
