/**
 * Where a registry is reached: its base URL (`https://registry-1.docker.io` for `docker.io`,
 * `http://` for an insecure registry) and the `--insecure-registry` entries that say which hosts
 * are reached over plain HTTP. Hosts are compared in their canonical spelling
 * (`canonicalDomain` of lib/image): `REG:0443` is `reg`.
 *
 * @module
 */

import { canonicalDomain } from "../image/mod.ts";
import { RegistryError } from "./errors.ts";

const REGISTRY_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
/** Where Docker Hub (canonically `docker.io`) serves its registry API. */
const DOCKER_HUB_API_HOST = "registry-1.docker.io";
/** An explicit HTTPS port, in any spelling (`:443`, `:0443`). */
const EXPLICIT_HTTPS_PORT = /:0*443$/;

/** A host written without its port: `reg:5000` is `reg`, `[::1]:5000` is `[::1]`. */
function withoutPort(domain: string): string {
  return domain.replace(/:[0-9]+$/, "");
}

/**
 * Reads one `--insecure-registry` entry: `host` (every port) or `host:port`, returned in the
 * canonical spelling of {@linkcode canonicalDomain}. A registry reached over plain HTTP cannot
 * be named with port 443: `:443` is the bare host in every image reference (HTTPS's port), so
 * `reg:443` would silently mean `reg`, and is refused instead.
 *
 * @throws {RegistryError} for an entry with port 443.
 */
export function insecureRegistryEntry(entry: string): { host: string } | { hostPort: string } {
  const trimmed = entry.trim();
  if (EXPLICIT_HTTPS_PORT.test(trimmed)) {
    throw new RegistryError(
      `Cannot use insecure registry "${entry}": port 443 is the HTTPS port, which image references leave out ("${
        withoutPort(trimmed)
      }/…" is the same registry), so a plain-HTTP registry cannot be named with it; name the host, or serve plain HTTP on another port`,
      { registry: entry },
    );
  }
  return /:[0-9]+$/.test(trimmed)
    ? { hostPort: canonicalDomain(trimmed) }
    : { host: withoutPort(canonicalDomain(trimmed)) };
}

/** Where registries are reached. */
export interface RegistryLocator {
  /** The base URL of a registry: `https://registry-1.docker.io` for `docker.io`. */
  registryUrl(registry: string): string;
  /** Whether a host (`host:port` or `host`, any spelling) is reached over plain HTTP. */
  isInsecureHost(hostPort: string): boolean;
}

/**
 * Reads the `--insecure-registry` entries (`host:port` entries match exactly, `host` entries
 * match every port of that host).
 *
 * @throws {RegistryError} for an entry with port 443 (see {@linkcode insecureRegistryEntry}).
 */
export function createRegistryLocator(insecureRegistries: readonly string[] = []): RegistryLocator {
  const insecureHosts = new Set<string>();
  const insecureHostPorts = new Set<string>();
  for (const entry of insecureRegistries) {
    const parsed = insecureRegistryEntry(entry);
    if ("host" in parsed) insecureHosts.add(parsed.host);
    else insecureHostPorts.add(parsed.hostPort);
  }

  function isInsecureHost(hostPort: string): boolean {
    const canonical = canonicalDomain(hostPort);
    return insecureHostPorts.has(canonical) || insecureHosts.has(withoutPort(canonical));
  }

  function registryUrl(registry: string): string {
    // `:443` is the bare host (a canonical single-label host such as `myreg:443` keeps it).
    const canonical = canonicalDomain(registry).replace(EXPLICIT_HTTPS_PORT, "");
    if (!REGISTRY_HOST.test(canonical)) {
      throw new RegistryError(`Cannot reach registry "${registry}": not a valid registry host`, {
        registry,
      });
    }
    const host = canonical === "docker.io" ? DOCKER_HUB_API_HOST : canonical;
    return `${isInsecureHost(registry) ? "http" : "https"}://${host}`;
  }

  return { registryUrl, isInsecureHost };
}
