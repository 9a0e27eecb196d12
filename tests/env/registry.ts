/**
 * A real OCI registry for tests: the distribution registry (Debian's `docker-registry`) on a
 * free 127.0.0.1 port, anonymous or behind htpasswd (bcrypt, Basic challenge), plain HTTP or
 * HTTPS with its own CA.
 *
 * @module
 */
import { freePort, type ManagedProcess, runOk, startProcess, waitFor } from "./process.ts";
import { issueCert, LOOPBACK_SANS, makeCA } from "./pki.ts";
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
  const port = freePort();
  const host = `127.0.0.1:${port}`;
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
  let caCertPem: string | undefined;
  let caCertFile: string | undefined;
  if (options.tls) {
    const ca = await makeCA(dir, "registry-ca");
    const serving = await issueCert(dir, ca, {
      name: "registry",
      cn: "127.0.0.1",
      sans: LOOPBACK_SANS,
    });
    caCertPem = ca.certPem;
    caCertFile = ca.certFile;
    config.push("  tls:", `    certificate: ${serving.certFile}`, `    key: ${serving.keyFile}`);
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
  const url = `${options.tls ? "https" : "http"}://${host}`;
  const client = caCertPem ? Deno.createHttpClient({ caCerts: [caCertPem] }) : undefined;
  try {
    await waitFor("the registry", async () => {
      const response = await fetch(`${url}/v2/`, client ? { client } : {});
      await response.body?.cancel();
      return response.status === 200 || response.status === 401;
    }, { process, timeoutMs: 30_000 });
  } catch (error) {
    await process.stop();
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
    stop,
    [Symbol.asyncDispose]: stop,
    ...(caCertPem ? { caCertPem, caCertFile: caCertFile! } : {}),
  };
}
