/**
 * A fake of the registry client's authenticated request (`RegistryRequester`): it records every
 * request and answers with what the test's `answer` returns, so that a unit of lib/registry
 * (manifests, blobs, referrers) is tested without HTTP.
 *
 * @module
 */

import type {
  RegistryRequest,
  RegistryRequester,
  RegistryResponse,
} from "../../lib/registry/client_types.ts";

/** A canned answer: a status, headers and a body (text or bytes). */
export interface FakeAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array;
  readonly authFailure?: string;
}

/** The fake requester and the requests it was sent. */
export interface FakeRequester {
  readonly request: RegistryRequester;
  readonly requests: RegistryRequest[];
}

/** Creates a requester answering each request with `answer(request)`. */
export function fakeRequester(answer: (request: RegistryRequest) => FakeAnswer): FakeRequester {
  const requests: RegistryRequest[] = [];
  const request = (req: RegistryRequest): Promise<RegistryResponse> => {
    requests.push(req);
    const a = answer(req);
    const body = typeof a.body === "string" ? new TextEncoder().encode(a.body) : a.body;
    return Promise.resolve({
      status: a.status ?? 200,
      statusText: "",
      headers: new Headers(a.headers),
      body: body ?? new Uint8Array(),
      url: `http://registry.invalid${req.path}`,
      authFailure: a.authFailure,
    });
  };
  return { request, requests };
}
