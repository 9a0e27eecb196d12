/**
 * Tiny test images: a one-layer OCI image layout written here and copied to a registry with the
 * real skopeo.
 *
 * @module
 */
import { runOk } from "./process.ts";
import { requireTool } from "./tools.ts";

/** How to push an image. */
export interface ImagePushOptions {
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

/**
 * Builds a tiny image, copies it to `docker://dest` with skopeo and returns its manifest digest.
 * `registriesD`, `signBy` and `env` are for simple signing on the way (see `startGpg`).
 */
export async function pushTestImage(
  dest: string,
  options: ImagePushOptions & {
    signBy?: string;
    registriesD?: string;
    env?: Record<string, string>;
  } = {},
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-image-" });
  try {
    const layout = await buildImage(dir, options.content ?? `toolkit test image ${dest}\n`);
    const args = options.registriesD ? ["--registries.d", options.registriesD] : [];
    args.push("copy", "--quiet", `--dest-tls-verify=${options.tlsVerify ?? false}`);
    if (options.creds) args.push("--dest-creds", options.creds);
    if (options.certDir) args.push("--dest-cert-dir", options.certDir);
    if (options.signBy) args.push("--sign-by", options.signBy);
    if (options.format === "v2s2") args.push("--format", "v2s2");
    args.push("--digestfile", `${layout}/digest`, `oci:${layout}:latest`, `docker://${dest}`);
    await runOk(requireTool("skopeo"), args, { env: options.env ?? {} });
    return (await Deno.readTextFile(`${layout}/digest`)).trim();
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
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
