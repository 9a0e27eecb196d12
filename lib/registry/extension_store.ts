/**
 * Signatures kept by the registry itself through the `X-Registry-Supports-Signatures` API
 * extension (the OpenShift integrated registry; IBM Cloud Container Registry by all
 * appearances), as containers/image reads and writes them:
 *
 * - **Detection:** the `/v2/` ping answers with the header `X-Registry-Supports-Signatures: 1`.
 * - **Read:** `GET /extensions/v2/<repository path>/signatures/<digest>` with the usual registry
 *   authentication (pull), expecting 200 and
 *   `{"signatures":[{"schemaVersion":2,"name":"<digest>@<32 hex>","type":"atomic","content":"<base64>"}]}`.
 *   Only entries with `schemaVersion` 2 and `type` "atomic" are used.
 * - **Write:** `PUT` of the same path (pull and push) with one such object, under a new name
 *   `<digest>@<32 random hex>`, expecting 201. A signature whose bytes are already stored is not
 *   written again. The API cannot delete signatures.
 *
 * @module
 */

import { decodeBase64, encodeBase64 } from "../base64.ts";
import { formatReference, type ImageReference, isDigest } from "../image/mod.ts";
import type { RegistryClient, RequestOptions } from "./client_types.ts";
import { registryErrorFromResponse } from "./error_answer.ts";
import { RegistryError } from "./errors.ts";
import { JsonShapeError, parseJsonWithin } from "../json_shape.ts";
import {
  collectSignatures,
  type SignatureReadOptions,
  type SignatureStore,
} from "../lookaside/mod.ts";

/** The `schemaVersion` of the extension's signature objects. */
export const EXTENSION_SIGNATURE_SCHEMA_VERSION = 2;
/** The `type` of simple-signing signatures in the extension. */
export const EXTENSION_SIGNATURE_TYPE = "atomic";
/** The largest signature list read: 4 MiB, as containers/image uses. */
export const DEFAULT_MAX_SIGNATURE_LIST_BYTES = 4 * 1024 * 1024;

/**
 * The shape of a signature list, bounded before it is parsed: 1,024 signatures of 9 values
 * (`{"schemaVersion", "type", "name", "content"}`) and room to spare, 8 levels deep.
 */
const SIGNATURE_LIST_JSON_LIMITS = { maxValues: 16_384, maxDepth: 8 };

/** One signature object of the extension API. */
export interface ExtensionSignature {
  /** The schema version, 2. */
  readonly schemaVersion: number;
  /** `<digest>@<32 hex>`. */
  readonly name: string;
  /** `atomic` for simple signing. */
  readonly type: string;
  /** The signature bytes, base64 in JSON. */
  readonly content: string;
}

/** Options of the extension store. */
export interface ExtensionStoreOptions extends RequestOptions {
  /** The largest signature list read. Default {@linkcode DEFAULT_MAX_SIGNATURE_LIST_BYTES}. */
  maxBytes?: number;
  /** Fills a buffer with random bytes (for signature names). Default `crypto.getRandomValues`. */
  randomBytes?: (bytes: Uint8Array) => void;
}

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

function toBase64(bytes: Uint8Array): string {
  return encodeBase64(bytes);
}

function fromBase64(value: string): Uint8Array | undefined {
  try {
    return decodeBase64(value);
  } catch {
    return undefined;
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Whether the registry of `registry` advertises the signature extension (one ping per client). */
export async function supportsSignatureExtension(
  client: RegistryClient,
  registry: string,
  options: RequestOptions = {},
): Promise<boolean> {
  return (await client.ping(registry, options)).supportsSignatures;
}

/** Creates a {@linkcode SignatureStore} on the registry's signature extension. */
export function createExtensionSignatureStore(
  client: RegistryClient,
  options: ExtensionStoreOptions = {},
): SignatureStore {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_SIGNATURE_LIST_BYTES;
  const randomBytes = options.randomBytes ?? ((b: Uint8Array) => crypto.getRandomValues(b));

  function pathFor(ref: ImageReference, digest: string, action: string): string {
    const components = ref.path.split("/");
    const problem = !isDigest(digest)
      ? `"${digest}" is not a valid digest`
      : !components.every((c) => PATH_COMPONENT.test(c))
      ? "invalid repository path"
      : undefined;
    if (problem !== undefined) {
      throw new RegistryError(`Cannot ${action} "${formatReference(ref)}": ${problem}`, {
        registry: ref.domain,
        repository: ref.path,
      });
    }
    return `/extensions/v2/${components.join("/")}/signatures/${digest}`;
  }

  function subject(ref: ImageReference, digest: string): string {
    return `${ref.domain}/${ref.path}@${digest}`;
  }

  /** Reads the raw signature list. */
  async function list(
    ref: ImageReference,
    digest: string,
    read: SignatureReadOptions = {},
  ): Promise<ExtensionSignature[]> {
    const action = "read signatures of";
    const response = await client.request({
      method: "GET",
      path: pathFor(ref, digest, action),
      registry: ref.domain,
      repository: ref.path,
      actions: ["pull"],
      headers: { accept: "application/json" },
      maxBytes,
      action,
      subject: subject(ref, digest),
      signal: read.signal ?? options.signal,
      budget: read.budget,
    });
    const target = { registry: ref.domain, repository: ref.path };
    if (response.status !== 200) {
      throw registryErrorFromResponse(action, subject(ref, digest), target, response);
    }
    let doc: unknown;
    try {
      doc = parseJsonWithin(response.body, SIGNATURE_LIST_JSON_LIMITS, "the signature list");
    } catch (error) {
      throw new RegistryError(
        `Cannot ${action} "${subject(ref, digest)}": ${
          error instanceof JsonShapeError ? error.message : "the signature list is not valid JSON"
        }`,
        { ...target, status: response.status },
      );
    }
    const signatures = typeof doc === "object" && doc !== null
      ? (doc as Record<string, unknown>).signatures
      : undefined;
    if (signatures === undefined || signatures === null) return [];
    if (!Array.isArray(signatures)) {
      throw new RegistryError(
        `Cannot ${action} "${subject(ref, digest)}": "signatures" is not a list`,
        { ...target, status: response.status },
      );
    }
    return signatures.flatMap((s: unknown) => {
      if (typeof s !== "object" || s === null) return [];
      const { schemaVersion, name, type, content } = s as Record<string, unknown>;
      if (typeof schemaVersion !== "number" || typeof content !== "string") return [];
      return [{
        schemaVersion,
        name: typeof name === "string" ? name : "",
        type: typeof type === "string" ? type : "",
        content,
      }];
    });
  }

  /** The list is one answer; its entries are decoded one at a time, as they are asked for. */
  async function* signatures(
    ref: ImageReference,
    digest: string,
    read?: SignatureReadOptions,
  ): AsyncGenerator<Uint8Array> {
    for (const entry of await list(ref, digest, read)) {
      if (entry.schemaVersion !== EXTENSION_SIGNATURE_SCHEMA_VERSION) continue;
      if (entry.type !== EXTENSION_SIGNATURE_TYPE) continue;
      const bytes = fromBase64(entry.content);
      if (bytes !== undefined) yield bytes;
    }
  }

  async function writeSignature(
    ref: ImageReference,
    digest: string,
    signature: Uint8Array,
  ): Promise<void> {
    const action = "write a signature of";
    const existing = await list(ref, digest);
    const names = new Set(existing.map((e) => e.name));
    for (const entry of existing) {
      if (
        entry.schemaVersion === EXTENSION_SIGNATURE_SCHEMA_VERSION &&
        entry.type === EXTENSION_SIGNATURE_TYPE
      ) {
        const bytes = fromBase64(entry.content);
        if (bytes !== undefined && equalBytes(bytes, signature)) return;
      }
    }
    let name: string;
    do {
      const random = new Uint8Array(16);
      randomBytes(random);
      name = `${digest}@${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    } while (names.has(name));
    const body: ExtensionSignature = {
      schemaVersion: EXTENSION_SIGNATURE_SCHEMA_VERSION,
      name,
      type: EXTENSION_SIGNATURE_TYPE,
      content: toBase64(signature),
    };
    const response = await client.request({
      method: "PUT",
      path: pathFor(ref, digest, action),
      registry: ref.domain,
      repository: ref.path,
      actions: ["pull", "push"],
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      maxBytes: 64 * 1024,
      action,
      subject: subject(ref, digest),
      signal: options.signal,
    });
    if (response.status !== 201) {
      throw registryErrorFromResponse(action, subject(ref, digest), {
        registry: ref.domain,
        repository: ref.path,
      }, response);
    }
  }

  return {
    signatures,
    readSignatures: (ref, digest, read) => collectSignatures(signatures(ref, digest, read)),
    writeSignature,
  };
}
