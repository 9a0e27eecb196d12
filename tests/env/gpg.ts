/**
 * Real gpg and skopeo for tests: a throwaway GNUPGHOME, a registries.d whose default-docker
 * scope keeps signatures in a lookaside directory, key generation, and pushing a tiny image
 * with `skopeo copy --sign-by` (simple signing).
 *
 * @module
 */
import { run, runOk } from "./process.ts";
import { requireTool } from "./tools.ts";

/** A generated gpg key. */
export interface GpgKey {
  /** Upper-case hex fingerprint. */
  readonly fingerprint: string;
  /** `gpg --armor --export`. */
  readonly publicKeyArmored: string;
  /** `gpg --armor --export-secret-keys` (unprotected). */
  readonly privateKeyArmored: string;
}

/** How to push an image. */
export interface PushOptions {
  /** Sign with this key fingerprint (simple signing into the lookaside). */
  signBy?: string;
  /** Verify TLS (false: plain HTTP). Default false. */
  tlsVerify?: boolean;
  /** `USER:PASS` for the destination. */
  creds?: string;
  /** A directory with `ca.crt` for a TLS registry with its own CA. */
  certDir?: string;
  /** Image format (default oci). */
  format?: "oci" | "v2s2";
  /** Content of the image's single file; a different content gives a different digest. */
  content?: string;
}

/** gpg and skopeo with a throwaway home. */
export interface TestGpg extends AsyncDisposable {
  /** GNUPGHOME. */
  readonly home: string;
  /** A registries.d directory with `default.yaml` pointing at {@link sigstore}. */
  readonly registriesD: string;
  /** The lookaside directory (`file://` base for reads and staging). */
  readonly sigstore: string;
  /** The environment to run gpg and skopeo with (`GNUPGHOME`). */
  readonly env: Record<string, string>;
  /** Generates an unprotected key. */
  generateKey(options: { type: "rsa" | "ed25519"; name?: string; email?: string }): Promise<GpgKey>;
  /** Runs a command with {@link env}. */
  run(
    command: string,
    args: string[],
    options?: { stdin?: string | Uint8Array },
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Builds a tiny image, copies it to `docker://dest` and returns its manifest digest. */
  pushImage(dest: string, options?: PushOptions): Promise<string>;
  /** Kills the gpg agent and removes the directories. */
  stop(): Promise<void>;
}

let keyCounter = 0;

/** Prepares gpg and skopeo. */
export async function startGpg(): Promise<TestGpg> {
  const gpg = requireTool("gpg");
  const skopeo = requireTool("skopeo");
  // gpg-agent's socket path must stay short: keep the home directly under /tmp.
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tkgpg-" });
  const home = `${dir}/g`;
  const registriesD = `${dir}/registries.d`;
  const sigstore = `${dir}/sigstore`;
  await Deno.mkdir(home, { mode: 0o700 });
  await Deno.mkdir(registriesD);
  await Deno.mkdir(sigstore);
  await Deno.writeTextFile(
    `${registriesD}/default.yaml`,
    `default-docker:\n  lookaside: file://${sigstore}\n  lookaside-staging: file://${sigstore}\n`,
  );
  const env = { GNUPGHOME: home };
  const exec = (command: string, args: string[], options: { stdin?: string | Uint8Array } = {}) =>
    run(command, args, { env, ...options });

  async function generateKey(
    options: { type: "rsa" | "ed25519"; name?: string; email?: string },
  ): Promise<GpgKey> {
    const n = ++keyCounter;
    const name = options.name ?? `Toolkit Test ${options.type} ${n}`;
    const email = options.email ?? `test-${options.type}-${n}-${Date.now()}@example.com`;
    const params = options.type === "rsa"
      ? ["Key-Type: RSA", "Key-Length: 3072", "Key-Usage: sign"]
      : ["Key-Type: EDDSA", "Key-Curve: ed25519", "Key-Usage: sign"];
    await runOk(gpg, ["--batch", "--generate-key"], {
      env,
      stdin: [
        "%no-protection",
        ...params,
        `Name-Real: ${name}`,
        `Name-Email: ${email}`,
        "Expire-Date: 0",
        "%commit",
        "",
      ].join("\n"),
    });
    const listing = await runOk(gpg, ["--batch", "--with-colons", "--list-keys", email], { env });
    const fingerprint = listing.split("\n").find((l) => l.startsWith("fpr:"))?.split(":")[9];
    if (!fingerprint) throw new Error(`gpg did not list the key of ${email}`);
    return {
      fingerprint,
      publicKeyArmored: await runOk(gpg, ["--batch", "--armor", "--export", fingerprint], { env }),
      privateKeyArmored: await runOk(
        gpg,
        ["--batch", "--armor", "--export-secret-keys", fingerprint],
        { env },
      ),
    };
  }

  async function pushImage(dest: string, options: PushOptions = {}): Promise<string> {
    const layout = await buildImage(dir, options.content ?? `toolkit test image ${dest}\n`);
    const args = ["--registries.d", registriesD, "copy", "--quiet"];
    args.push(`--dest-tls-verify=${options.tlsVerify ?? false}`);
    if (options.creds) args.push("--dest-creds", options.creds);
    if (options.certDir) args.push("--dest-cert-dir", options.certDir);
    if (options.signBy) args.push("--sign-by", options.signBy);
    if (options.format === "v2s2") args.push("--format", "v2s2");
    args.push("--digestfile", `${layout}/digest`, `oci:${layout}:latest`, `docker://${dest}`);
    await runOk(skopeo, args, { env });
    const digest = (await Deno.readTextFile(`${layout}/digest`)).trim();
    await Deno.remove(layout, { recursive: true });
    return digest;
  }

  const stop = async () => {
    await run(requireTool("gpgconf"), ["--homedir", home, "--kill", "all"], { env });
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  return {
    home,
    registriesD,
    sigstore,
    env,
    generateKey,
    run: exec,
    pushImage,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Writes a one-layer OCI image layout and returns its directory. */
async function buildImage(parent: string, content: string): Promise<string> {
  const layout = await Deno.makeTempDir({ dir: parent, prefix: "oci-" });
  const blobs = `${layout}/blobs/sha256`;
  await Deno.mkdir(blobs, { recursive: true });
  const root = await Deno.makeTempDir({ dir: parent, prefix: "rootfs-" });
  await Deno.writeTextFile(`${root}/hello.txt`, content);
  await runOk("tar", ["-czf", `${layout}/layer.tgz`, "--mtime=@0", "-C", root, "hello.txt"]);
  await Deno.remove(root, { recursive: true });
  const layer = await Deno.readFile(`${layout}/layer.tgz`);
  await Deno.remove(`${layout}/layer.tgz`);
  const layerDigest = await sha256Hex(layer);
  await Deno.writeFile(`${blobs}/${layerDigest}`, layer);
  const config = new TextEncoder().encode(JSON.stringify({
    architecture: "amd64",
    os: "linux",
    config: { Cmd: ["/hello.txt"] },
    rootfs: { type: "layers", diff_ids: [`sha256:${await sha256Hex(await gunzip(layer))}`] },
  }));
  const configDigest = await sha256Hex(config);
  await Deno.writeFile(`${blobs}/${configDigest}`, config);
  const manifest = new TextEncoder().encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: `sha256:${configDigest}`,
      size: config.length,
    },
    layers: [{
      mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
      digest: `sha256:${layerDigest}`,
      size: layer.length,
    }],
  }));
  const manifestDigest = await sha256Hex(manifest);
  await Deno.writeFile(`${blobs}/${manifestDigest}`, manifest);
  await Deno.writeTextFile(
    `${layout}/index.json`,
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        digest: `sha256:${manifestDigest}`,
        size: manifest.length,
        annotations: { "org.opencontainers.image.ref.name": "latest" },
      }],
    }),
  );
  await Deno.writeTextFile(`${layout}/oci-layout`, JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  return layout;
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
