/**
 * Where the in-cluster webhook finds lookaside signature stores: a ConfigMap holding a
 * registries.d directory (the containers/image format skopeo and `toolkit image-security sign`
 * use), mounted into the webhook's pods and named by `--registries.d`.
 *
 * - `toolkit-release.yaml`: where toolkit's own release signatures are published, so the
 *   `toolkit-release` policy can be satisfied;
 * - `lookaside.yaml`: the organisation's stores, one `SCOPE=URL` per `enable --lookaside`
 *   (the chart's `lookaside` value).
 *
 * The pod template carries a checksum of the files, so a changed ConfigMap rolls the pods (the
 * webhook reads registries.d when it starts). The files are written, and `--lookaside` entries
 * checked, by lib/lookaside's registries.d module (`formatRegistriesYaml`,
 * `parseRegistriesYaml`): this file only chooses what goes in them.
 *
 * @module
 */
import { TOOLKIT_IMAGE_REPOSITORIES } from "../images.ts";
import { createHash } from "node:crypto";
import type { KubeObject } from "../kube/mod.ts";
import { commonLabels, type InstallOptions, type LookasideEntry } from "./options.ts";
import { InstallError } from "./install_error.ts";
import {
  formatRegistriesYaml,
  type LookasideSection,
  parseRegistriesYaml,
  RegistriesConfigError,
} from "../lookaside/mod.ts";

/** The ConfigMap's name. */
export const REGISTRIES_D_CONFIG_MAP_NAME = "toolkit-registries-d";

/** Where the ConfigMap is mounted in the webhook container. */
export const REGISTRIES_D_MOUNT_PATH = "/etc/toolkit/registries.d";

/** The pod template annotation holding the checksum of the files. */
export const REGISTRIES_D_CHECKSUM_ANNOTATION = "toolkit.dev/registries-d-sha256";

/** The lookaside store toolkit's release signatures are published to (GitHub Pages). */
export const RELEASE_SIGNATURES_URL = "https://toolkit-dev.github.io/toolkit/signatures";

/** A registries.d file whose `docker` scopes read from the given lookaside URLs. */
function lookasideFile(entries: readonly LookasideEntry[], source: string): string {
  const docker = new Map<string, LookasideSection>(
    entries.map((e) => [e.scope, { lookaside: e.url, source }]),
  );
  return formatRegistriesYaml({ docker });
}

/** The files of the registries.d directory, by name (in name order). */
export function registriesDFiles(
  options: Pick<InstallOptions, "lookaside">,
): Record<string, string> {
  const files: Record<string, string> = {};
  if (options.lookaside.length > 0) {
    files["lookaside.yaml"] = lookasideFile(options.lookaside, "lookaside.yaml");
  }
  files["toolkit-release.yaml"] = lookasideFile(
    TOOLKIT_IMAGE_REPOSITORIES.map((scope) => ({ scope, url: RELEASE_SIGNATURES_URL })),
    "toolkit-release.yaml",
  );
  return files;
}

/** The sha256 (hex) of the files' texts joined in name order. */
export function registriesDChecksum(options: Pick<InstallOptions, "lookaside">): string {
  const files = registriesDFiles(options);
  const text = Object.keys(files).sort().map((name) => files[name]).join("");
  return createHash("sha256").update(text).digest("hex");
}

/** The ConfigMap holding the registries.d files. */
export function registriesDConfigMapManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: REGISTRIES_D_CONFIG_MAP_NAME,
      namespace: options.namespace,
      labels: commonLabels(),
    },
    data: registriesDFiles(options),
  };
}

const SCOPE = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9]+([._-]+[a-z0-9]+)*)*$/;

/**
 * Reads `SCOPE=URL` (`registry.example.com/team=https://sigs.example.com`): the scope is a
 * registry host, optionally with a port and repository path, and the URL is http(s) (the
 * webhook's pods cannot read this machine's files).
 */
export function parseLookasideEntry(
  text: string,
  what = "the lookaside store",
): LookasideEntry {
  const i = text.indexOf("=");
  const scope = i < 0 ? "" : text.slice(0, i).trim();
  const url = i < 0 ? "" : text.slice(i + 1).trim();
  if (!scope || !url) {
    throw new InstallError(
      `Cannot use ${what} "${text}": expected SCOPE=URL, e.g. registry.example.com/team=https://sigs.example.com`,
    );
  }
  if (!SCOPE.test(scope)) {
    throw new InstallError(
      `Cannot use ${what} "${text}": "${scope}" is not a registry host or repository`,
    );
  }
  // The entry as the webhook will read it: lib/lookaside's parser judges the URL.
  let section: LookasideSection | undefined;
  try {
    const text = formatRegistriesYaml({
      docker: new Map([[scope, { lookaside: url, source: what }]]),
    });
    section = [...parseRegistriesYaml(text, what).docker.values()][0];
  } catch (cause) {
    if (!(cause instanceof RegistriesConfigError)) throw cause;
    const detail = URL.canParse(url)
      ? `the webhook reads http(s) stores only, not a ${new URL(url).protocol} URL`
      : `"${url}" is not a URL`;
    throw new InstallError(`Cannot use ${what} "${text}": ${detail}`, { cause });
  }
  const protocol = new URL(section?.lookaside ?? url).protocol;
  if (protocol !== "https:" && protocol !== "http:") {
    throw new InstallError(
      `Cannot use ${what} "${text}": the webhook reads http(s) stores only, not a ${protocol} URL`,
    );
  }
  return { scope, url };
}
