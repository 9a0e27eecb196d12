/**
 * Registry access for the image commands, from skopeo's flags: `--tls-verify=false` (plain
 * HTTP for the image's registry), `--creds USER:PASS`, `--authfile FILE` (or
 * `$REGISTRY_AUTH_FILE`, filled in by the CLI), `--cert-dir DIR` (CA certificates `*.crt`), and `--registries.d DIR`
 * for lookaside signature stores. Signatures live in the registry when it advertises the
 * signature extension (as containers/image prefers), else in the lookaside store registries.d
 * configures for the image.
 *
 * @module
 */
import type { CommandArgs } from "../command.ts";
import { resolvePath } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import type { ImageReference } from "../../lib/image/mod.ts";
import {
  createExtensionSignatureStore,
  createKeyring,
  createRegistryClient,
  type CredentialStore,
  parseCreds,
  readAuthFile,
  type RegistryClient,
} from "../../lib/registry/mod.ts";
import {
  loadRegistriesD,
  lookasideStoreFor,
  selectLookaside,
  type SignatureStore,
} from "../../lib/lookaside/mod.ts";

/** The client and where signatures of the image are kept. */
export interface RegistryAccess extends Disposable {
  readonly client: RegistryClient;
  /** Where signatures are read and written, and a description of it for messages. */
  signatureStore(mode: "read" | "write"): Promise<{ store: SignatureStore; where: string }>;
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

/** Builds registry access for `ref` from the command's flags. */
export async function registryAccess(
  ref: ImageReference,
  args: CommandArgs,
  cwd: string,
): Promise<RegistryAccess> {
  let credentials: CredentialStore | undefined;
  if (typeof args.creds === "string") {
    const creds = parseCreds(args.creds);
    if (creds.password === undefined) {
      throw new UsageError("Cannot use --creds without a password: pass --creds USER:PASSWORD");
    }
    const credential = { username: creds.username, password: creds.password, source: "--creds" };
    credentials = { lookup: (registry) => (registry === ref.domain ? [credential] : []) };
  } else if (typeof args.authfile === "string") {
    credentials = createKeyring(await readAuthFile(resolvePath(cwd, args.authfile)));
  }
  const caCerts = typeof args["cert-dir"] === "string"
    ? await caCertificates(resolvePath(cwd, args["cert-dir"]))
    : [];
  const client = createRegistryClient({
    ...(credentials ? { credentials } : {}),
    insecureRegistries: args["tls-verify"] === false ? [ref.domain] : [],
    ...(caCerts.length ? { caCerts } : {}),
    timeoutMs: 30_000,
  });
  const registriesDir = resolvePath(
    cwd,
    String(args["registries.d"] ?? "/etc/containers/registries.d"),
  );
  return {
    client,
    async signatureStore(mode) {
      const ping = await client.ping(ref.domain);
      if (ping.supportsSignatures) {
        return {
          store: createExtensionSignatureStore(client),
          where: `the signature extension of ${ref.domain}`,
        };
      }
      const config = await loadRegistriesD(registriesDir);
      const selection = selectLookaside(config, ref, mode);
      const store = lookasideStoreFor(config, ref);
      if (!selection || !store) {
        throw new UsageError(
          `Cannot find where signatures of ${ref.domain}/${ref.path} are kept: the registry has no ` +
            `signature extension and ${registriesDir} configures no lookaside ${
              mode === "write" ? "(or lookaside-staging) " : ""
            }for it (see --registries.d)`,
        );
      }
      if (mode === "write" && selection.base.protocol !== "file:") {
        throw new UsageError(
          `Cannot write signatures to ${selection.base.href}: only a file:// lookaside-staging can be ` +
            `written (set one for ${selection.scope} in ${selection.source})`,
        );
      }
      return { store, where: `${selection.base.href} (${selection.scope} in ${selection.source})` };
    },
    [Symbol.dispose]: () => client.close(),
  };
}
