/**
 * Registry access for the image commands, from skopeo's flags: `--tls-verify=false` (plain
 * HTTP for the image's registry), `--creds USER:PASS`, `--authfile FILE` (or
 * `$REGISTRY_AUTH_FILE`, filled in by the CLI), `--cert-dir DIR` (CA certificates `*.crt`), and
 * `--registries.d DIR` for lookaside signature stores. `verify` hands them to the image verifier
 * the webhook runs (lib/admission); `sign` writes where that verifier reads
 * (`selectSignatureStore` of lib/registry: the registry's signature extension, else the
 * lookaside-staging or lookaside of registries.d).
 *
 * @module
 */
import type { OptionsOf } from "../options.ts";
import type { REGISTRY_FLAGS } from "../flags.ts";

/** The skopeo-compatible registry flags of the image commands. */
export type RegistryOptions = Omit<
  OptionsOf<{ flags: typeof REGISTRY_FLAGS }>,
  "verbose" | "quiet" | "requestTimeout"
>;
import { resolvePath } from "./files.ts";
import { clientTimeoutMs, type NetworkOptions, observedContextFetch } from "../network.ts";
import type { CommandContext } from "../command.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { readSecretDir } from "../../lib/signing/mod.ts";
import type { ImageReference } from "../../lib/image/mod.ts";
import {
  createKeyring,
  type CredentialEntry,
  type CredentialStore,
  parseCreds,
  parseDockerCfg,
  parseDockerConfigJson,
  readAuthFile,
  type RegistryClient,
  selectSignatureStore,
} from "../../lib/registry/mod.ts";
import {
  loadRegistriesD,
  RegistriesConfigError,
  type RegistriesD,
  type SignatureStore,
} from "../../lib/lookaside/mod.ts";

/** How the flags say to reach the image's registry and its signature stores. */
export interface RegistryFlags {
  /** From `--creds` (for the image's registry) or `--authfile`; none: anonymous. */
  readonly credentials?: CredentialStore | undefined;
  /** The image's registry with `--tls-verify=false`. */
  readonly insecureRegistries: readonly string[];
  /** The `*.crt` files of `--cert-dir`. */
  readonly caCerts: readonly string[];
  /** The `--registries.d` directory (default `/etc/containers/registries.d`). */
  readonly registriesDir: string;
  /** Its configuration. */
  readonly registriesD: RegistriesD;
}

/** The client and where signatures of the image are written. */
export interface RegistryAccess extends Disposable {
  readonly client: RegistryClient;
  /** Where a signature is written, and a description of it for messages. */
  writableSignatureStore(): Promise<{ store: SignatureStore; where: string }>;
}

async function caCertificates(dir: string): Promise<string[]> {
  const certs: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".crt")) {
        certs.push(await Deno.readTextFile(`${dir}/${entry.name}`));
      }
    }
  } catch (error) {
    throw new UsageError(`Cannot read --cert-dir "${dir}"`, { cause: error });
  }
  return certs;
}

/** The CA certificates of `--cert-dir` (its `*.crt` files), none without the flag. */
export async function certDirCertificates(
  options: Pick<RegistryOptions, "certDir">,
  cwd: string,
): Promise<string[]> {
  return options.certDir ? await caCertificates(resolvePath(cwd, options.certDir)) : [];
}

/** Where `sign` finds credentials and stores signatures besides the skopeo flags. */
export interface SigningRegistryOptions {
  /**
   * `--registry-secret-dir`: a registry Secret mounted as files (`.dockerconfigjson`,
   * `.dockercfg`, or the Cloud-Native Toolkit's `REGISTRY_USER` and `REGISTRY_PASSWORD` for the
   * image's registry); missing or empty: none.
   */
  readonly registrySecretDir?: string | undefined;
  /** `--lookaside-staging`: a directory signatures are staged in, instead of registries.d. */
  readonly lookasideStaging?: string | undefined;
}

/** The credentials of a registry Secret mounted at `dir`; undefined when it holds none. */
async function mountedRegistryCredentials(
  ref: ImageReference,
  dir: string,
): Promise<CredentialStore | undefined> {
  const entries = await readSecretDir(dir);
  const source = `the registry Secret mounted at "${dir}"`;
  const found: CredentialEntry[] = [];
  try {
    if (entries[".dockerconfigjson"] !== undefined) {
      found.push(...parseDockerConfigJson(entries[".dockerconfigjson"], source));
    }
    if (entries[".dockercfg"] !== undefined) {
      found.push(...parseDockerCfg(entries[".dockercfg"], source));
    }
  } catch (error) {
    throw new ToolkitError(error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
  const username = entries.REGISTRY_USER?.trim();
  const password = entries.REGISTRY_PASSWORD?.trim();
  if (username && password) {
    found.push({
      key: ref.domain,
      credential: { username, password, source },
    });
  }
  return found.length > 0 ? createKeyring(found) : undefined;
}

/** Reads the registry flags of a command about `ref`. */
export async function registryFlags(
  ref: ImageReference,
  options: RegistryOptions,
  cwd: string,
  signing: SigningRegistryOptions = {},
): Promise<RegistryFlags> {
  let credentials: CredentialStore | undefined;
  if (signing.registrySecretDir) {
    credentials = await mountedRegistryCredentials(
      ref,
      resolvePath(cwd, signing.registrySecretDir),
    );
  } else if (options.creds) {
    const creds = parseCreds(options.creds);
    if (creds.password === undefined) {
      throw new UsageError("Cannot use --creds without a password: pass --creds USER:PASSWORD");
    }
    const credential = { username: creds.username, password: creds.password, source: "--creds" };
    credentials = { lookup: (registry) => (registry === ref.domain ? [credential] : []) };
  } else if (options.authfile) {
    credentials = createKeyring(await readAuthFile(resolvePath(cwd, options.authfile)));
  }
  const caCerts = await certDirCertificates(options, cwd);
  const staging = signing.lookasideStaging ? resolvePath(cwd, signing.lookasideStaging) : undefined;
  const registriesDir = staging ?? resolvePath(cwd, options["registries.d"]);
  let registriesD: RegistriesD;
  try {
    registriesD = staging !== undefined
      ? stagingConfig(staging)
      : await loadRegistriesD(registriesDir);
  } catch (error) {
    if (error instanceof RegistriesConfigError) {
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  }
  return {
    credentials,
    insecureRegistries: options.tlsVerify ? [] : [ref.domain],
    caCerts,
    registriesDir,
    registriesD,
  };
}

/** The registries.d of `--lookaside-staging DIR`: every image's signatures staged in DIR. */
function stagingConfig(dir: string): RegistriesD {
  const url = new URL(`file://${dir.replace(/\/+$/, "")}/`).href;
  return {
    defaultDocker: { lookaside: url, lookasideStaging: url, source: "--lookaside-staging" },
    docker: new Map(),
    warnings: [],
  };
}

/**
 * Builds registry access for `ref` from the command's flags, with the context's registry client:
 * each request within `--request-timeout`, and told on stderr with `-v`.
 */
export async function registryAccess(
  ref: ImageReference,
  options: RegistryOptions & NetworkOptions,
  ctx: Pick<CommandContext, "io" | "fetch" | "registry">,
  signing: SigningRegistryOptions = {},
): Promise<RegistryAccess> {
  const flags = await registryFlags(ref, options, ctx.io.cwd, signing);
  const client = await ctx.registry({
    ...(flags.credentials ? { credentials: flags.credentials } : {}),
    insecureRegistries: flags.insecureRegistries,
    ...(flags.caCerts.length ? { caCerts: flags.caCerts } : {}),
    timeoutMs: clientTimeoutMs(options),
    fetch: observedContextFetch(ctx, options),
  });
  return {
    client,
    async writableSignatureStore() {
      const choice = await selectSignatureStore({
        client,
        reference: ref,
        mode: "write",
        registriesD: flags.registriesD,
        fetch: observedContextFetch(ctx, options),
      });
      if (choice === undefined) {
        // --lookaside-staging (or --registries.d) on the command line fixes it: a usage error.
        throw new UsageError(
          `Cannot find where signatures of ${ref.domain}/${ref.path} are kept: the registry has no ` +
            `signature extension and ${flags.registriesDir} configures no lookaside ` +
            `(or lookaside-staging) for it (see --registries.d, --lookaside-staging)`,
        );
      }
      const selection = choice.lookaside;
      if (selection !== undefined && selection.base.protocol !== "file:") {
        throw new ToolkitError(
          `Cannot write signatures to ${selection.base.href}: only a file:// lookaside-staging can be ` +
            `written (set one for ${selection.scope} in ${selection.source})`,
        );
      }
      return choice;
    },
    [Symbol.dispose]: () => client.close(),
  };
}
