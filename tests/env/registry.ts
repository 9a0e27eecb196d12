/**
 * Real OCI registries for tests, each on a free 127.0.0.1 port, plain HTTP or HTTPS with its own
 * CA:
 * - `startRegistry`: the distribution registry (Debian's `docker-registry`), anonymous or behind
 *   htpasswd (bcrypt, Basic challenge). It has no OCI 1.1 referrers API: `GET
 *   /v2/<name>/referrers/<digest>` answers 404 with a `text/plain` body, so cosign v3 keeps its
 *   bundles' referrers in the `sha256-<hex>` fallback tag (an OCI index whose descriptors carry
 *   the bundle type as `artifactType` and no annotations).
 * - `startReferrersRegistry`: go-containerregistry's registry with the referrers API switched on
 *   (`tests/env/referrers-registry/`, built by provision.sh), anonymous only, manifests and blobs
 *   in memory. Its referrers answer is 404 `NAME_UNKNOWN` for a repository without manifests,
 *   else 200 with an index of every manifest whose `subject` is the digest, each descriptor
 *   with the manifest's annotations and, as `artifactType`, the manifest's *config* media type
 *   (`application/vnd.oci.empty.v1+json` for a cosign bundle); `?artifactType=` is ignored, and a
 *   manifest PUT gets no `OCI-Subject` header (writers probe the referrers API instead).
 *
 * @module
 */
import { freePort, type ManagedProcess, runOk, startProcess, waitFor } from "./process.ts";
import { type CertFiles, issueCert, LOOPBACK_SANS, makeCA } from "./pki.ts";
import { requireTool } from "./tools.ts";

/** How to start the registry. */
export interface RegistryOptions {
  /** Require these credentials (htpasswd, bcrypt). */
  auth?: { username: string; password: string };
  /** Serve HTTPS with a certificate from the registry's own CA. */
  tls?: boolean;
}

/** A running registry. */
export interface TestRegistry extends AsyncDisposable {
  /** Whether it serves the OCI 1.1 referrers API (`GET /v2/<name>/referrers/<digest>`). */
  readonly referrers: boolean;
  /** `127.0.0.1:PORT`. */
  readonly host: string;
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The CA certificate (PEM) when TLS is on. */
  readonly caCertPem?: string;
  /** The CA certificate file when TLS is on. */
  readonly caCertFile?: string;
  /** The registry's temporary directory. */
  readonly dir: string;
  /** The registry process. */
  readonly process: ManagedProcess;
  /** Stops the registry and removes its directory. */
  stop(): Promise<void>;
}

/** Starts a registry. */
export async function startRegistry(options: RegistryOptions = {}): Promise<TestRegistry> {
  const binary = requireTool("docker-registry");
  const dir = await Deno.makeTempDir({ prefix: "toolkit-registry-" });
  const host = `127.0.0.1:${freePort()}`;
  const config: string[] = [
    "version: 0.1",
    "log:",
    "  level: warn",
    "  accesslog:",
    "    disabled: true",
    "storage:",
    "  filesystem:",
    `    rootdirectory: ${dir}/data`,
    "  delete:",
    "    enabled: true",
    "http:",
    `  addr: ${host}`,
    "  secret: toolkit-test-secret",
  ];
  const tls = options.tls ? await servingCert(dir) : undefined;
  if (tls) {
    config.push("  tls:", `    certificate: ${tls.certFile}`, `    key: ${tls.keyFile}`);
  }
  if (options.auth) {
    const htpasswd = await runOk(requireTool("htpasswd"), [
      "-Bbn",
      options.auth.username,
      options.auth.password,
    ]);
    await Deno.writeTextFile(`${dir}/htpasswd`, htpasswd);
    config.push(
      "auth:",
      "  htpasswd:",
      "    realm: toolkit-test",
      `    path: ${dir}/htpasswd`,
    );
  }
  await Deno.writeTextFile(`${dir}/config.yml`, config.join("\n") + "\n");
  const process = await startProcess(binary, ["serve", `${dir}/config.yml`], {
    logFile: `${dir}/registry.log`,
  });
  return await running({ host, dir, process, tls, referrers: false });
}

/** Starts go-containerregistry's registry with the OCI 1.1 referrers API. */
export async function startReferrersRegistry(
  options: Pick<RegistryOptions, "tls"> = {},
): Promise<TestRegistry> {
  const binary = requireTool("referrers-registry");
  const dir = await Deno.makeTempDir({ prefix: "toolkit-referrers-registry-" });
  const host = `127.0.0.1:${freePort()}`;
  const tls = options.tls ? await servingCert(dir) : undefined;
  const args = ["-addr", host];
  if (tls) args.push("-tls-cert", tls.certFile, "-tls-key", tls.keyFile);
  const process = await startProcess(binary, args, { logFile: `${dir}/registry.log` });
  return await running({ host, dir, process, tls, referrers: true });
}

/** The two registries, by whether they have the referrers API. */
export const REGISTRY_KINDS = ["distribution", "referrers"] as const;

/** Starts the distribution registry or the one with the referrers API (anonymous, plain HTTP). */
export function startRegistryOfKind(kind: typeof REGISTRY_KINDS[number]): Promise<TestRegistry> {
  return kind === "referrers" ? startReferrersRegistry() : startRegistry();
}

/** A serving certificate for 127.0.0.1 from a CA made for this registry. */
async function servingCert(
  dir: string,
): Promise<CertFiles & { caCertPem: string; caCertFile: string }> {
  const ca = await makeCA(dir, "registry-ca");
  const serving = await issueCert(dir, ca, {
    name: "registry",
    cn: "127.0.0.1",
    sans: LOOPBACK_SANS,
  });
  return { ...serving, caCertPem: ca.certPem, caCertFile: ca.certFile };
}

/** Waits for `/v2/` to answer, then returns the registry (or stops the process and throws). */
async function running(started: {
  host: string;
  dir: string;
  process: ManagedProcess;
  tls: { caCertPem: string; caCertFile: string } | undefined;
  referrers: boolean;
}): Promise<TestRegistry> {
  const { host, dir, process, tls, referrers } = started;
  const url = `${tls ? "https" : "http"}://${host}`;
  const client = tls ? Deno.createHttpClient({ caCerts: [tls.caCertPem] }) : undefined;
  try {
    await waitFor("the registry", async () => {
      const response = await fetch(`${url}/v2/`, client ? { client } : {});
      await response.body?.cancel();
      return response.status === 200 || response.status === 401;
    }, { process, timeoutMs: 30_000 });
  } catch (error) {
    await process.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  } finally {
    client?.close();
  }
  const stop = async () => {
    await process.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  return {
    host,
    url,
    dir,
    process,
    referrers,
    stop,
    [Symbol.asyncDispose]: stop,
    ...(tls ? { caCertPem: tls.caCertPem, caCertFile: tls.caCertFile } : {}),
  };
}

/** What {@linkcode readFromRegistry} got. */
export interface RegistryAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  /** The body as JSON when the status is 200 (`undefined` otherwise). */
  // deno-lint-ignore no-explicit-any
  readonly json: any;
}

/**
 * `GET /v2/<path>` of a test registry (anonymous, plain HTTP) accepting OCI indexes and
 * manifests, for tests that look at what was stored.
 */
export async function readFromRegistry(
  registry: TestRegistry,
  path: string,
): Promise<RegistryAnswer> {
  const response = await fetch(`${registry.url}/v2/${path}`, {
    headers: {
      accept: "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json",
    },
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    text,
    json: response.status === 200 ? JSON.parse(text) : undefined,
  };
}
