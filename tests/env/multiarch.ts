/**
 * Multi-platform images for registry tests: two or more tiny platform images and their index,
 * assembled in a real registry with go-containerregistry's `crane` (each platform pushed with
 * skopeo and given its platform by `crane mutate --set-platform`, the index made by
 * `crane index append`), or built as one OCI layout and copied with `skopeo copy --all`.
 *
 * @module
 */
import { pushTestImage } from "./image.ts";
import { buildOciLayout, skopeoPush } from "./oci_layout.ts";
import { runOk } from "./process.ts";
import { requireTool } from "./tools.ts";

/** One platform image of a multi-platform image. */
export interface PushedPlatform {
  /** `linux/amd64`. */
  readonly platform: string;
  readonly digest: string;
}

/** A multi-platform image in a registry. */
export interface MultiPlatformImage {
  /** `host/repo:tag`. */
  readonly image: string;
  /** `host/repo`. */
  readonly repository: string;
  /** The index's digest. */
  readonly index: string;
  readonly platforms: readonly PushedPlatform[];
}

/** How {@linkcode pushMultiPlatformImage} builds the image. */
export interface MultiPlatformOptions {
  /** Architectures, each a `linux/<arch>` platform. @default ["amd64", "arm64"] */
  readonly architectures?: readonly string[];
  /** Makes the image's content (and digests) its own. */
  readonly content?: string;
  /** `crane` (default) or `skopeo` (one OCI layout copied with `--all`). */
  readonly via?: "crane" | "skopeo";
  /**
   * A Docker manifest list (of Docker schema 2 manifests with skopeo) instead of an OCI index.
   */
  readonly dockerList?: boolean;
}

/** `crane … --insecure` (the test registries speak plain HTTP); its output, trimmed. */
export async function crane(args: readonly string[]): Promise<string> {
  return (await runOk(requireTool("crane"), [...args, "--insecure"], {
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  })).trim();
}

/**
 * Pushes a multi-platform image as `image` (`host/repo:tag`, plain HTTP, anonymous) and returns
 * the digests of its index and platforms.
 */
export async function pushMultiPlatformImage(
  image: string,
  options: MultiPlatformOptions = {},
): Promise<MultiPlatformImage> {
  const architectures = options.architectures ?? ["amd64", "arm64"];
  const repository = image.slice(0, image.lastIndexOf(":"));
  const content = options.content ?? image;
  if (options.via === "skopeo") {
    const home = await Deno.makeTempDir({ prefix: "toolkit-multiarch-" });
    try {
      const layout = await buildOciLayout(home, {
        content: `${content}\n`,
        platforms: [...architectures],
      });
      const index = await skopeoPush(layout, image, {
        home,
        ...(options.dockerList ? { format: "v2s2" as const } : {}),
      });
      const raw = JSON.parse(await crane(["manifest", `${repository}@${index}`]));
      const platforms = (raw.manifests as { digest: string; platform: { architecture: string } }[])
        .map((m) => ({ platform: `linux/${m.platform.architecture}`, digest: m.digest }));
      return { image, repository, index, platforms };
    } finally {
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  }
  const platforms: PushedPlatform[] = [];
  for (const arch of architectures) {
    const base = `${repository}:base-${arch}`;
    await pushTestImage(base, { content: `${content} ${arch}\n` });
    const platform = `linux/${arch}`;
    const tagged = `${repository}:platform-${arch}`;
    await crane(["mutate", "--set-platform", platform, base, "-t", tagged]);
    platforms.push({ platform, digest: await crane(["digest", tagged]) });
  }
  await crane([
    "index",
    "append",
    ...platforms.flatMap((p) => ["-m", `${repository}@${p.digest}`]),
    "-t",
    image,
    ...(options.dockerList ? ["--docker-empty-base"] : []),
  ]);
  return { image, repository, index: await crane(["digest", image]), platforms };
}

/** Deletes the manifest `repository@digest` from its registry (`crane delete`). */
export async function deleteManifest(repository: string, digest: string): Promise<void> {
  await crane(["delete", `${repository}@${digest}`]);
}
