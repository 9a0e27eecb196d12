/**
 * The authenticated request every call of the registry client sends: a path below the
 * registry's base URL, sent through the auth layer (lib/registry/auth.ts: challenges, tokens,
 * credentials tried in order) over the transport; a transport failure becomes a
 * {@linkcode RegistryError} naming the call's action and subject, an abort stays the signal's
 * reason.
 *
 * @module
 */

import { canonicalDomain } from "../image/mod.ts";
import type { AuthTarget, RegistryAuth } from "./auth.ts";
import type { RegistryRequest, RegistryRequester, RegistryResponse } from "./client_types.ts";
import { detailTellsCause, transportFailureDetail } from "./error_answer.ts";
import { RegistryError } from "./errors.ts";
import type { HttpRequest } from "./transport.ts";

/** What the requester needs. */
export interface RegistryRequesterOptions {
  /** The auth layer, over the transport. */
  readonly auth: RegistryAuth;
  /** The base URL of a registry (lib/registry/registry_url.ts). */
  readonly registryUrl: (registry: string) => string;
}

/** Creates the requester: sends a {@linkcode RegistryRequest}; resolves with any HTTP status. */
export function createRegistryRequester(options: RegistryRequesterOptions): RegistryRequester {
  const { auth, registryUrl } = options;
  return async (req: RegistryRequest): Promise<RegistryResponse> => {
    const details = { registry: req.registry, repository: req.repository };
    const base = registryUrl(req.registry);
    const target: AuthTarget = {
      registry: canonicalDomain(req.registry),
      repository: req.repository,
      actions: req.actions,
    };
    let result;
    try {
      result = await auth.send(target, (authorization) => {
        const headers = new Headers(req.headers);
        if (authorization !== undefined) headers.set("authorization", authorization);
        const built: HttpRequest = {
          method: req.method,
          url: `${base}${req.path}`,
          headers,
          maxBytes: req.maxBytes,
          signal: req.signal,
          budget: req.budget,
          ...(req.body !== undefined ? { body: req.body } : {}),
        };
        return built;
      });
    } catch (error) {
      if (error instanceof RegistryError) throw error;
      if (req.signal?.aborted && error === req.signal.reason) throw error;
      throw new RegistryError(
        `Cannot ${req.action} "${req.subject}": ${transportFailureDetail(error)}`,
        { ...details, cause: error, messageTellsCause: detailTellsCause(error) },
      );
    }
    if (result.response === undefined) {
      throw new RegistryError(`Cannot ${req.action} "${req.subject}": ${result.failure}`, {
        ...details,
        status: result.failureStatus,
        code: "UNAUTHORIZED",
      });
    }
    return { ...result.response, authFailure: result.failure };
  };
}
