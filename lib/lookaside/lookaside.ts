/**
 * Lookaside signature stores: simple-signing signatures kept next to a registry, under
 *
 * ```text
 * <base>/<repository path>@<algorithm>=<hex>/signature-<N>
 * ```
 *
 * where the repository path has no registry host (`library/busybox`), `=` replaces the `:` of
 * the manifest digest and N counts from 1. Readers fetch signature-1, signature-2, … until the
 * first one that is missing (404 or no such file); there is no listing. `file://` bases can be
 * read and written; `http(s)://` bases are read-only. Trailing slashes of the base are ignored.
 *
 * @module
 */

import { readStreamLimited } from "../bytes.ts";
import { BudgetExceededError, type ReadBudget } from "../read_budget.ts";
import { fileURLToPath } from "node:url";
import { describeError, safeExcerpt, ToolkitError } from "../errors.ts";
import { RequestTimeoutError, timedFetch } from "../fetch.ts";
import { FileExistsError, writeFileSafely } from "../file_write.ts";
import {
  type ImageReference,
  InvalidReferenceError,
  isDigest,
  parseDockerReference,
  repositoryName,
} from "../image/mod.ts";
import { type RegistriesD, selectLookaside } from "./registries_d.ts";

/** How signatures are read. */
export interface SignatureReadOptions {
  /** Charged for every byte read, before it is kept (see lib/read_budget.ts). */
  readonly budget?: ReadBudget | undefined;
  /** Aborts the reading. */
  readonly signal?: AbortSignal | undefined;
}

/** Where the signatures of images are kept: a lookaside store or a registry extension. */
export interface SignatureStore {
  /**
   * The signatures stored for the image's manifest digest, in order, each read only when the
   * caller asks for it: a verifier that stops at the first signature that verifies reads no
   * more, and holds one signature at a time.
   */
  signatures(
    ref: ImageReference,
    digest: string,
    options?: SignatureReadOptions,
  ): AsyncIterable<Uint8Array>;
  /** All signatures stored for the image's manifest digest, in order. */
  readSignatures(
    ref: ImageReference,
    digest: string,
    options?: SignatureReadOptions,
  ): Promise<Uint8Array[]>;
  /** Appends one signature. */
  writeSignature(ref: ImageReference, digest: string, signature: Uint8Array): Promise<void>;
}

/** Every signature of an iteration, in order (for callers that need them all). */
export async function collectSignatures(
  signatures: AsyncIterable<Uint8Array>,
): Promise<Uint8Array[]> {
  const all: Uint8Array[] = [];
  for await (const signature of signatures) all.push(signature);
  return all;
}

/** A signature store that cannot be read or written. */
export class SignatureStoreError extends ToolkitError {
  /** Creates the error; `message` follows `Cannot <action> "<value>": <detail>`. */
  constructor(message: string, options?: ErrorOptions & { readonly messageTellsCause?: boolean }) {
    super(message, options);
    this.name = "SignatureStoreError";
  }
}

/** Largest signature read: 4 MiB, as containers/image. */
export const DEFAULT_MAX_SIGNATURE_BYTES = 4 * 1024 * 1024;
/** Most signatures read for one digest before the store is taken to be broken (containers/image). */
export const DEFAULT_MAX_LOOKASIDE_SIGNATURES = 128;
/** Time allowed for one HTTP request, body included. */
export const DEFAULT_LOOKASIDE_TIMEOUT_MS = 30_000;

/** How to reach a lookaside store. */
export interface LookasideStoreOptions {
  /** Base URL to read from (`file://`, `http://` or `https://`). */
  readBase: URL;
  /** Base URL to write to (`file://` only); defaults to `readBase`. */
  writeBase?: URL;
  /** The fetch function for `http(s)://` bases; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Time allowed for one HTTP request, body included (default 30 s; 0: no limit). */
  timeoutMs?: number;
  /** Largest signature accepted (default 4 MiB). */
  maxBytes?: number;
  /** Most signatures read for one digest (default 128). */
  maxSignatures?: number;
  /** Receives non-fatal remarks (e.g. a signature served as `text/html`). */
  onWarning?: (message: string) => void;
}

/** Returns the URL of signature `index` (from 1) of `digest` in the repository of `ref`. */
export function lookasideSignatureURL(
  base: URL,
  ref: ImageReference,
  digest: string,
  index: number,
): URL {
  checkTarget(ref, digest, "locate signature of");
  if (!Number.isInteger(index) || index < 1) {
    throw new SignatureStoreError(`Cannot locate signature "${index}": the index starts at 1`);
  }
  const url = new URL(base.href);
  const colon = digest.indexOf(":");
  // containers/image appends "/<path>" to the base path as written. A trailing "/" is dropped
  // here, so "https://host/" and "https://host" both give "https://host/<path>…", never "//".
  const basePath = url.pathname.replace(/\/+$/, "");
  url.pathname = `${basePath}/${ref.path}@${digest.slice(0, colon)}=${
    digest.slice(colon + 1)
  }/signature-${index}`;
  return url;
}

/** Rejects digests and repository paths that are not valid (and so could leave the base). */
function checkTarget(ref: ImageReference, digest: string, action: string): void {
  if (!isDigest(digest)) {
    throw new SignatureStoreError(`Cannot ${action} "${digest}": not a valid manifest digest`);
  }
  try {
    parseDockerReference(repositoryName(ref));
  } catch (cause) {
    if (!(cause instanceof InvalidReferenceError)) throw cause;
    throw new SignatureStoreError(
      `Cannot ${action} "${repositoryName(ref)}": not a valid repository`,
      { cause },
    );
  }
}

/** The URL without credentials, for messages. */
function redact(url: URL): string {
  if (url.username === "" && url.password === "") return url.href;
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

/** Reads a stream up to `maxBytes`, failing beyond. */
async function readLimited(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  where: string,
  budget: ReadBudget | undefined,
): Promise<Uint8Array> {
  const { bytes, overLimit } = await readStreamLimited(body, maxBytes, { budget });
  if (overLimit) {
    throw new SignatureStoreError(
      `Cannot read signature "${where}": larger than the limit of ${maxBytes} bytes`,
    );
  }
  return bytes;
}

/** Whether two byte arrays are equal. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Creates a store over a lookaside base URL. Reading walks `signature-1`, `signature-2`, … until
 * the first missing one. Writing appends at the next free index of the `file://` write base,
 * never replacing a file, and skips a signature that is already stored.
 */
export function lookasideStore(options: LookasideStoreOptions): SignatureStore {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOOKASIDE_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_SIGNATURE_BYTES;
  const maxSignatures = options.maxSignatures ?? DEFAULT_MAX_LOOKASIDE_SIGNATURES;
  const readBase = options.readBase;
  const writeBase = options.writeBase ?? options.readBase;

  async function readFileSignature(
    url: URL,
    read: SignatureReadOptions,
  ): Promise<Uint8Array | undefined> {
    const path = fileURLToPath(url);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch (cause) {
      if (cause instanceof Deno.errors.NotFound) return undefined;
      throw new SignatureStoreError(`Cannot read signature "${path}": ${String(cause)}`, {
        cause,
      });
    }
    try {
      const info = await file.stat();
      if (!info.isFile) {
        throw new SignatureStoreError(`Cannot read signature "${path}": not a regular file`);
      }
      if (info.size > maxBytes) {
        throw new SignatureStoreError(
          `Cannot read signature "${path}": larger than the limit of ${maxBytes} bytes`,
        );
      }
      return await readLimited(file.readable, maxBytes, path, read.budget);
    } catch (cause) {
      if (cause instanceof SignatureStoreError || cause instanceof BudgetExceededError) throw cause;
      throw new SignatureStoreError(`Cannot read signature "${path}": ${String(cause)}`, {
        cause,
      });
    } finally {
      try {
        file.close();
      } catch {
        // Already closed by consuming `readable`.
      }
    }
  }

  async function readHttpSignature(
    url: URL,
    read: SignatureReadOptions,
  ): Promise<Uint8Array | undefined> {
    const where = redact(url);
    try {
      // The whole read, body included, within timeoutMs; the verifier's abort stays its own.
      const response = await timedFetch(fetchFn, timeoutMs, { bound: "request" })(url, {
        redirect: "follow",
        ...(read.signal ? { signal: read.signal } : {}),
      });
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new SignatureStoreError(
          `Cannot read signature "${where}": HTTP ${response.status} ${
            safeExcerpt(response.statusText, { maxChars: 64 })
          }`.trim(),
        );
      }
      const length = Number(response.headers.get("content-length") ?? "0");
      if (length > maxBytes) {
        await response.body?.cancel();
        throw new SignatureStoreError(
          `Cannot read signature "${where}": larger than the limit of ${maxBytes} bytes`,
        );
      }
      const contentType = response.headers.get("content-type") ?? "";
      if (contentType.split(";")[0]?.trim().toLowerCase() === "text/html") {
        options.onWarning?.(`Signature "${where}" has Content-Type "${contentType}"`);
      }
      if (response.body === null) return new Uint8Array(0);
      return await readLimited(response.body, maxBytes, where, read.budget);
    } catch (cause) {
      if (cause instanceof SignatureStoreError || cause instanceof BudgetExceededError) throw cause;
      if (read.signal?.aborted) throw read.signal.reason;
      if (cause instanceof RequestTimeoutError) {
        throw new SignatureStoreError(
          `Cannot read signature "${where}": no answer within ${timeoutMs} ms`,
          { cause, messageTellsCause: true },
        );
      }
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new SignatureStoreError(`Cannot read signature "${where}": ${detail}`, { cause });
    }
  }

  function readOne(url: URL, read: SignatureReadOptions): Promise<Uint8Array | undefined> {
    switch (url.protocol) {
      case "file:":
        return readFileSignature(url, read);
      case "http:":
      case "https:":
        return readHttpSignature(url, read);
      default:
        throw new SignatureStoreError(
          `Cannot read signature "${redact(url)}": the scheme "${url.protocol}" is not supported`,
        );
    }
  }

  async function* iterate(
    base: URL,
    ref: ImageReference,
    digest: string,
    read: SignatureReadOptions = {},
  ): AsyncGenerator<Uint8Array> {
    checkTarget(ref, digest, "read signatures of");
    for (let index = 1;; index++) {
      const url = lookasideSignatureURL(base, ref, digest, index);
      if (index > maxSignatures) {
        throw new SignatureStoreError(
          `Cannot read signatures "${redact(url)}": more than ${maxSignatures} signatures, ` +
            "assuming the store is broken",
        );
      }
      const signature = await readOne(url, read);
      if (signature === undefined) return;
      yield signature;
    }
  }

  const readAll = (base: URL, ref: ImageReference, digest: string, read?: SignatureReadOptions) =>
    collectSignatures(iterate(base, ref, digest, read));

  async function writeSignature(
    ref: ImageReference,
    digest: string,
    signature: Uint8Array,
  ): Promise<void> {
    checkTarget(ref, digest, "write a signature of");
    if (writeBase.protocol !== "file:") {
      throw new SignatureStoreError(
        `Cannot write signature to "${redact(writeBase)}": only file:// lookaside stores ` +
          "can be written (set lookaside-staging to a file:// URL)",
      );
    }
    if (signature.length === 0) {
      throw new SignatureStoreError(`Cannot write signature for "${digest}": it is empty`);
    }
    const existing = await readAll(writeBase, ref, digest);
    if (existing.some((s) => sameBytes(s, signature))) return;
    const first = fileURLToPath(lookasideSignatureURL(writeBase, ref, digest, 1));
    const dir = first.slice(0, first.lastIndexOf("/"));
    try {
      await Deno.mkdir(dir, { recursive: true });
      // The first free signature-N: a file that must be new is never replaced (lib/file_write).
      for (let index = existing.length + 1; index <= maxSignatures; index++) {
        try {
          await writeFileSafely(`${dir}/signature-${index}`, signature, {
            mode: 0o644,
            ifExists: "refuse",
          });
          return;
        } catch (cause) {
          if (!(cause instanceof FileExistsError)) throw cause;
        }
      }
      throw new SignatureStoreError(
        `Cannot write signature to "${dir}": ${maxSignatures} signatures are already stored`,
      );
    } catch (cause) {
      if (cause instanceof SignatureStoreError) throw cause;
      throw new SignatureStoreError(`Cannot write signature to "${dir}": ${describeError(cause)}`, {
        cause,
      });
    }
  }

  return {
    signatures: (ref, digest, read) => iterate(readBase, ref, digest, read),
    readSignatures: (ref, digest, read) => readAll(readBase, ref, digest, read),
    writeSignature,
  };
}

/** Options of {@linkcode lookasideStoreFor}. */
export interface LookasideStoreForOptions
  extends Omit<LookasideStoreOptions, "readBase" | "writeBase"> {
  /**
   * Base URL used when registries.d configures nothing for the image, e.g.
   * `file:///var/lib/containers/sigstore` as containers/image does. Without it, an image with
   * no configuration gets no store.
   */
  defaultBase?: URL;
}

/**
 * Creates the lookaside store registries.d configures for `ref` (see
 * {@linkcode selectLookaside}), or undefined when nothing is configured and there is no
 * `defaultBase`.
 */
export function lookasideStoreFor(
  config: RegistriesD,
  ref: ImageReference,
  options: LookasideStoreForOptions = {},
): SignatureStore | undefined {
  const { defaultBase, ...rest } = options;
  const readBase = selectLookaside(config, ref, "read")?.base ?? defaultBase;
  const writeBase = selectLookaside(config, ref, "write")?.base ?? readBase;
  if (readBase === undefined || writeBase === undefined) return undefined;
  return lookasideStore({ ...rest, readBase, writeBase });
}
