/**
 * OCI layouts for registry tests: a tiny image (or a multi-platform index) built in a temp dir
 * with the real `tar`, pushed to a real registry and inspected with the real `skopeo`.
 *
 * @module
 */

import { requireTool, run, runOk } from "./mod.ts";
import { computeDigest } from "../../lib/registry/digest.ts";
import { OCI_INDEX, OCI_MANIFEST } from "../../lib/registry/media_types.ts";

const encoder = new TextEncoder();

/** A descriptor in an OCI layout. */
interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string };
  annotations?: Record<string, string>;
}

/** An OCI layout on disk. */
export interface OciLayout {
  /** The layout directory. */
  readonly dir: string;
  /** The tag (`org.opencontainers.image.ref.name`) of the image in it. */
  readonly tag: string;
  /** The digest of the top-level manifest (the index for a multi-platform image). */
  readonly digest: string;
  /** The media type of the top-level manifest. */
  readonly mediaType: string;
  /** The skopeo source name: `oci:<dir>:<tag>`. */
  readonly source: string;
}

async function writeBlob(dir: string, bytes: Uint8Array): Promise<string> {
  const digest = await computeDigest(bytes);
  await Deno.writeFile(`${dir}/blobs/sha256/${digest.slice("sha256:".length)}`, bytes);
  return digest;
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Builds a one-file tar archive with the real `tar`. */
async function makeTar(workDir: string, content: string): Promise<Uint8Array> {
  const src = `${workDir}/rootfs`;
  await Deno.mkdir(src, { recursive: true });
  await Deno.writeTextFile(`${src}/hello.txt`, content);
  const tarFile = `${workDir}/layer.tar`;
  await runOk("tar", ["--numeric-owner", "--owner=0", "--group=0", "-cf", tarFile, "-C", src, "."]);
  const bytes = await Deno.readFile(tarFile);
  await Deno.remove(src, { recursive: true });
  await Deno.remove(tarFile);
  return bytes;
}

async function writeImage(
  dir: string,
  workDir: string,
  content: string,
  architecture: string,
): Promise<Descriptor> {
  const tar = await makeTar(workDir, content);
  const layer = await gzip(tar);
  const layerDigest = await writeBlob(dir, layer);
  const config = encoder.encode(JSON.stringify({
    architecture,
    os: "linux",
    config: { Cmd: ["/hello.txt"] },
    rootfs: { type: "layers", diff_ids: [await computeDigest(tar)] },
  }));
  const configDigest = await writeBlob(dir, config);
  const manifest = encoder.encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: configDigest,
      size: config.byteLength,
    },
    layers: [{
      mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
      digest: layerDigest,
      size: layer.byteLength,
    }],
  }));
  return {
    mediaType: OCI_MANIFEST,
    digest: await writeBlob(dir, manifest),
    size: manifest.byteLength,
    platform: { architecture, os: "linux" },
  };
}

/**
 * Builds an OCI layout in `parent/<name>` with one tagged image: a config blob, one gzip layer
 * made by `tar`, an OCI manifest; with `platforms`, one image per platform under an OCI index.
 */
export async function buildOciLayout(
  parent: string,
  options: { name?: string; tag?: string; content?: string; platforms?: string[] } = {},
): Promise<OciLayout> {
  const dir = `${parent}/${options.name ?? "layout"}`;
  const tag = options.tag ?? "1";
  const content = options.content ?? `hello from ${dir}\n`;
  await Deno.mkdir(`${dir}/blobs/sha256`, { recursive: true });
  await Deno.writeTextFile(`${dir}/oci-layout`, JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  let top: Descriptor;
  if (options.platforms && options.platforms.length > 0) {
    const manifests: Descriptor[] = [];
    for (const arch of options.platforms) {
      manifests.push(await writeImage(dir, parent, `${content}${arch}\n`, arch));
    }
    const index = encoder.encode(
      JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests }),
    );
    top = { mediaType: OCI_INDEX, digest: await writeBlob(dir, index), size: index.byteLength };
  } else {
    const { platform: _, ...manifest } = await writeImage(dir, parent, content, "amd64");
    top = manifest;
  }
  const entry = { ...top, annotations: { "org.opencontainers.image.ref.name": tag } };
  await Deno.writeTextFile(
    `${dir}/index.json`,
    JSON.stringify({ schemaVersion: 2, manifests: [entry] }),
  );
  return { dir, tag, digest: top.digest, mediaType: top.mediaType, source: `oci:${dir}:${tag}` };
}

/** How skopeo reaches the registry. */
export interface SkopeoAccess {
  /** `user:pass` for the registry. */
  creds?: string;
  /** A directory with the registry's `ca.crt`; without it TLS verification is off. */
  certDir?: string;
  /** Whether the registry serves TLS with a CA in `certDir`. */
  tls?: boolean;
}

/** skopeo flags for registry access: `--dest-…` for copy, unprefixed for inspect. */
function accessArgs(prefix: "dest-" | "", access: SkopeoAccess): string[] {
  const args: string[] = [];
  if (access.tls && access.certDir) {
    args.push(`--${prefix}cert-dir`, access.certDir, `--${prefix}tls-verify=true`);
  } else {
    args.push(`--${prefix}tls-verify=false`);
  }
  if (access.creds) args.push(`--${prefix}creds`, access.creds);
  return args;
}

function skopeoEnv(home: string): Record<string, string> {
  return { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home };
}

/**
 * Pushes a layout with `skopeo copy` (`--all` for an index) to `docker://<dest>`, in its own
 * format or as Docker v2s2. Returns the digest skopeo wrote to `--digestfile`.
 */
export async function skopeoPush(
  layout: OciLayout,
  dest: string,
  options: SkopeoAccess & { format?: "oci" | "v2s2"; home: string },
): Promise<string> {
  const digestFile = `${options.home}/digest-${crypto.randomUUID()}`;
  const args = [
    "--insecure-policy",
    "copy",
    "--quiet",
    "--digestfile",
    digestFile,
    ...accessArgs("dest-", options),
  ];
  if (options.format) args.push("--format", options.format);
  if (layout.mediaType === OCI_INDEX) args.push("--all");
  args.push(layout.source, `docker://${dest}`);
  await runOk(requireTool("skopeo"), args, { env: skopeoEnv(options.home) });
  const digest = (await Deno.readTextFile(digestFile)).trim();
  await Deno.remove(digestFile);
  return digest;
}

/** `skopeo inspect --raw docker://<ref> | sha256sum`, as `sha256:<hex>`. */
export async function skopeoRawSha256(
  ref: string,
  options: SkopeoAccess & { home: string },
): Promise<string> {
  const skopeo = requireTool("skopeo");
  const quoted = [skopeo, "inspect", "--raw", ...accessArgs("", options), `docker://${ref}`]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  const out = await runOk("bash", ["-c", `set -o pipefail; ${quoted} | sha256sum`], {
    env: skopeoEnv(options.home),
  });
  return `sha256:${out.trim().split(/\s+/)[0]}`;
}

/** The `Digest` that `skopeo inspect docker://<ref>` reports. */
export async function skopeoInspectDigest(
  ref: string,
  options: SkopeoAccess & { home: string },
): Promise<string> {
  const r = await run(
    requireTool("skopeo"),
    ["inspect", ...accessArgs("", options), `docker://${ref}`],
    { env: skopeoEnv(options.home) },
  );
  if (r.code !== 0) throw new Error(`skopeo inspect ${ref} failed: ${r.stderr.trim()}`);
  return (JSON.parse(r.stdout) as { Digest: string }).Digest;
}
