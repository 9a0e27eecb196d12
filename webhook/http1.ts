/**
 * HTTP/1.1 on one connection, for the webhook's routes: requests are read one after another,
 * each answered in one write.
 *
 * Why the webhook has its own: the API server calls a webhook for every Pod it admits, so the
 * answer must leave at once. `Deno.serve` does not set `TCP_NODELAY` on TLS connections, and its
 * HTTP/2 layer writes flow-control frames ahead of some answers, which then wait 40 ms for the API
 * server's delayed ACK; its HTTP/1.1 layer writes the head and a body of more than a few hundred
 * bytes apart, and such an answer waits whenever the client delays its ACK (from every request to
 * one in eight, as measured). `node:https` sets `TCP_NODELAY` and has no stall, but costs twice the
 * CPU per review. `node:tls` with this reader costs what `Deno.serve` costs
 * (docs/benchmarks.md, "What every Pod create pays").
 *
 * It is the subset of RFC 9112 a webhook needs, and strict where a lenient reader would be a
 * risk:
 *
 * - a request line `METHOD TARGET HTTP/1.1` (or `HTTP/1.0`: one request, then the connection
 *   closes); other versions get 505;
 * - header fields `name: value` with token names and no control characters; no line folding,
 *   no bare CR or LF; at most `maxHeadBytes` for the request line and fields (431 beyond);
 * - a body only with `Content-Length` (one value; 400 when it repeats with another); any
 *   `Transfer-Encoding` gets 501 and the connection closes (the API server, kubelet probes and
 *   Prometheus send none); a body over `maxBodyBytes` is not read: the routes answer 413 and the
 *   connection closes;
 * - a body is JSON, and what it costs is reserved from the process-wide {@linkcode BodyPool}
 *   before any of it is kept: its bytes when the head arrives (503 and close, the body unread,
 *   when the pool cannot hold them), the values its parse will allocate as each chunk's shape is
 *   counted ({@linkcode JsonShapeScanner}: a body nested or crowded past
 *   {@linkcode bodyShapeLimits} is refused mid-stream, the routes answer 413 and the connection
 *   closes; 503 when the pool cannot hold its values). The reservation is given back when the
 *   answer is written, or when the connection ends before the routes have the body;
 * - `Expect: 100-continue` answered with `100 Continue` before the body is read; other
 *   expectations get 417;
 * - a missing or repeated `Host` in an HTTP/1.1 request gets 400;
 * - `Connection: close` honoured; pipelined requests answered in order;
 * - every answer has `Content-Length` and `Date`, and goes out in one write; after an error
 *   answer, and once the server is shutting down, with `Connection: close`.
 *
 * Time is bounded by the server, which calls {@linkcode Http1Connection.expire} with the time:
 * a request has `requestTimeoutMs` from its first byte to its last (408, then close), an idle
 * connection `idleTimeoutMs` before it is closed. While a request is answered, no more bytes are
 * read than one request head and body may hold, and none while the answers already written wait
 * for the client to read them.
 *
 * @module
 */
import type { Socket } from "node:net";
import { Buffer } from "node:buffer";
import { JsonShapeError, type JsonShapeLimits, JsonShapeScanner } from "../lib/json_shape.ts";
import {
  ClientGoneError,
  pathOf,
  RequestBodyTooLargeError,
  type WebhookAnswer,
  type WebhookRequest,
} from "./handler.ts";
import {
  BODY_BYTE_COST,
  BODY_VALUE_COST,
  bodyCost,
  BodyPool,
  type BodyReservation,
  bodyShapeLimits,
} from "./body_pool.ts";

/** The bounds of one connection. */
export interface Http1Limits {
  /** The most bytes of a request line and its header fields. @default 16 KiB */
  readonly maxHeadBytes?: number;
  /** The longest body read; a longer one is answered 413 without being read. */
  readonly maxBodyBytes: number;
  /** From a request's first byte to its last, in ms. @default 30 s */
  readonly requestTimeoutMs?: number;
  /** How long a connection may wait for its next request, in ms. @default 120 s */
  readonly idleTimeoutMs?: number;
  /**
   * The pool every connection's request bodies are reserved from.
   * @default a pool of this connection's own, for one body of `maxBodyBytes`
   */
  readonly bodyPool?: BodyPool;
}

/** What a closing connection may still receive before it is cut off, in bytes. */
const DROPPED_BYTES_BEFORE_RESET = 64 * 1024;

/** The pool's bytes reserved for a body's values at a time (while they are counted). */
const VALUE_RESERVATION_STEP = 16 * 1024;

/** The routes the connection serves. */
export type Routes = (request: WebhookRequest) => WebhookAnswer | Promise<WebhookAnswer>;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const TARGET = /^[\x21-\x7e]+$/;
const DIGITS = /^[0-9]{1,15}$/;
const CRLF2 = Buffer.from("\r\n\r\n");

const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Content Too Large",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

const TEXT_TYPE = "text/plain; charset=utf-8";
const UTF8 = new TextDecoder();

let dateSecond = 0;
let dateText = "";
/** The `Date` field's value, made once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

/** A request head, parsed. */
interface Head {
  readonly method: string;
  readonly target: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  readonly minor: number;
  readonly contentLength: number;
  readonly close: boolean;
  readonly expectContinue: boolean;
}

/** A request that cannot be served, with the status that says why. */
class BadRequest {
  constructor(readonly status: number, readonly message: string) {}
}

/** Parses a request head (without its final empty line), as Latin-1 text. */
export function parseHead(text: string): Head | BadRequest {
  const lines = text.split("\r\n");
  const requestLine = lines[0]!;
  const first = requestLine.indexOf(" ");
  const last = requestLine.lastIndexOf(" ");
  if (first <= 0 || last === first) return new BadRequest(400, "malformed request line");
  const method = requestLine.slice(0, first);
  const target = requestLine.slice(first + 1, last);
  const version = requestLine.slice(last + 1);
  if (!TOKEN.test(method) || !TARGET.test(target)) {
    return new BadRequest(400, "malformed request line");
  }
  let minor: number;
  if (version === "HTTP/1.1") minor = 1;
  else if (version === "HTTP/1.0") minor = 0;
  else if (/^HTTP\/[0-9]\.[0-9]$/.test(version)) {
    return new BadRequest(505, "only HTTP/1.1 is served");
  } else return new BadRequest(400, "malformed request line");
  let contentLength: string | undefined;
  let transferEncoding = false;
  let hosts = 0;
  let connection = "";
  let expect: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    if (colon <= 0) return new BadRequest(400, "malformed header field");
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) return new BadRequest(400, "malformed header field");
    const value = line.slice(colon + 1).trim();
    if (!FIELD_VALUE.test(value)) return new BadRequest(400, "malformed header field");
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === "host") hosts++;
        break;
      case 6:
        if (name.toLowerCase() === "expect") expect = value.toLowerCase();
        break;
      case 10:
        if (name.toLowerCase() === "connection") connection += `,${value.toLowerCase()}`;
        break;
      case 14:
        if (name.toLowerCase() === "content-length") {
          if (!DIGITS.test(value)) return new BadRequest(400, "malformed Content-Length");
          if (contentLength !== undefined && contentLength !== value) {
            return new BadRequest(400, "conflicting Content-Length");
          }
          contentLength = value;
        }
        break;
      case 17:
        if (name.toLowerCase() === "transfer-encoding") transferEncoding = true;
        break;
    }
  }
  if (transferEncoding) {
    return contentLength === undefined
      ? new BadRequest(501, "Transfer-Encoding is not supported: send Content-Length")
      : new BadRequest(400, "both Transfer-Encoding and Content-Length");
  }
  if (minor === 1 && hosts !== 1) return new BadRequest(400, "a request needs one Host field");
  const tokens = connection.split(",").map((t) => t.trim());
  const close = minor === 1 ? tokens.includes("close") : !tokens.includes("keep-alive");
  if (expect !== undefined && expect !== "100-continue") {
    return new BadRequest(417, "only 100-continue is understood");
  }
  return {
    method,
    target,
    minor,
    contentLength: contentLength === undefined ? 0 : Number(contentLength),
    close,
    expectContinue: expect !== undefined && minor === 1,
  };
}

type Phase =
  /** Waiting for the first byte of a request. */
  | "idle"
  /** Reading a request's head. */
  | "head"
  /** Reading a request's body. */
  | "body"
  /** The routes have the request, or its answer waits for the client to read. */
  | "answering"
  /** Closed or closing: nothing more is read. */
  | "done";

/** One connection. The server feeds it with the socket's events. */
export class Http1Connection {
  readonly #socket: Socket;
  readonly #routes: Routes;
  readonly #maxHead: number;
  readonly #maxBody: number;
  readonly #requestTimeoutMs: number;
  readonly #idleTimeoutMs: number;
  #phase: Phase = "idle";
  /** Bytes received and not yet used, in the order received. */
  #chunks: Buffer[] = [];
  /** Their length. */
  #size = 0;
  #head: Head | undefined;
  readonly #pool: BodyPool;
  /** What the body being read holds of the pool (given to the routes with the body). */
  #reservation: BodyReservation | undefined;
  /** The body being read: its shape, counted as it arrives. */
  #scanner: JsonShapeScanner | undefined;
  /** Bytes of the body being read received so far (all counted by the scanner). */
  #bodyReceived = 0;
  /** Of the reservation, the bytes for the body's values. */
  #valuesReserved = 0;
  /** Bytes received and dropped since the connection began to close. */
  #dropped = 0;
  /** The socket has closed. */
  #gone = false;
  /** Aborted when the socket closes; made when a request first asks (one a connection). */
  #goneController: AbortController | undefined;

  /** The signal that the client has gone, for the request being answered. */
  get #goneSignal(): AbortSignal {
    this.#goneController ??= new AbortController();
    if (this.#gone && !this.#goneController.signal.aborted) {
      this.#goneController.abort(new ClientGoneError());
    }
    return this.#goneController.signal;
  }
  /** An answer waits for the client to read the ones before it. */
  #blocked = false;
  /** When the current phase ends by timeout (ms, `Date.now()` clock). */
  #deadline: number;
  /** The server is shutting down: answer what is in progress, then close. */
  #draining = false;
  /** The client ended its side: answer what is in progress, then close. */
  #ended = false;

  constructor(socket: Socket, routes: Routes, limits: Http1Limits) {
    this.#socket = socket;
    this.#routes = routes;
    this.#maxHead = limits.maxHeadBytes ?? 16 * 1024;
    this.#maxBody = limits.maxBodyBytes;
    this.#requestTimeoutMs = limits.requestTimeoutMs ?? 30_000;
    this.#idleTimeoutMs = limits.idleTimeoutMs ?? 120_000;
    this.#pool = limits.bodyPool ??
      new BodyPool(bodyCost(this.#maxBody, bodyShapeLimits(this.#maxBody).maxValues));
    this.#deadline = Date.now() + this.#idleTimeoutMs;
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("end", () => {
      this.#ended = true;
      if (this.#phase !== "answering") this.#close();
    });
    socket.on("error", () => this.#destroy());
    socket.on("close", () => {
      this.#phase = "done";
      this.#gone = true;
      this.#releaseBody();
      this.#goneController?.abort(new ClientGoneError());
    });
  }

  /**
   * Ends the connection when `now` is past its deadline: 408 for a request in progress, a close
   * for an idle connection, and the end of a socket whose client did not close its side or has
   * not read its answers for as long as an idle connection may wait.
   */
  expire(now: number): void {
    if (now < this.#deadline) return;
    if (this.#phase === "idle") this.#close();
    else if (this.#phase === "head" || this.#phase === "body") {
      this.#fail(408, "the request took too long to arrive");
    } else if ((this.#phase === "done" && !this.#gone) || this.#blocked) this.#destroy();
  }

  /** Closes the connection once the request in progress (if any) is answered. */
  drain(): void {
    this.#draining = true;
    if (this.#phase === "idle") this.#close();
  }

  #receive(chunk: Buffer): void {
    if (this.#phase === "done") {
      // Closing: what still arrives is dropped, and a client that keeps sending is cut off
      // (a paused socket would not stop the TLS layer from reading and keeping it).
      this.#dropped += chunk.length;
      if (this.#dropped > DROPPED_BYTES_BEFORE_RESET && !this.#gone) this.#destroy();
      return;
    }
    // A body's bytes are counted (and their values reserved) before they are kept.
    if (this.#phase === "body" && !this.#scan(chunk)) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#phase === "answering") {
      // One request head (and a chunk) at most is read ahead while the answer is made: the
      // next body is read only once its bytes are reserved. Pausing the socket does not stop
      // the TLS layer from reading (one client sent 2.5 GB in 3 s to a paused socket, all
      // kept), so a client that sends more than that is cut off.
      if (this.#size > this.#maxHead) this.#socket.pause();
      if (this.#size > this.#maxHead + DROPPED_BYTES_BEFORE_RESET) this.#destroy();
      return;
    }
    this.#advance();
  }

  /**
   * Counts the shape of the body's bytes in `bytes` (its first bytes belong to the body being
   * read) and reserves its values from the pool. False when the body is refused: over its shape
   * (the routes answer) or past what the pool can hold (503); the connection then closes.
   */
  #scan(bytes: Buffer): boolean {
    const rest = this.#head!.contentLength - this.#bodyReceived;
    const scanner = this.#scanner;
    const reservation = this.#reservation;
    if (rest <= 0 || scanner === undefined || reservation === undefined) return true;
    const part = bytes.length > rest ? bytes.subarray(0, rest) : bytes;
    try {
      scanner.feed(part);
    } catch (error) {
      if (!(error instanceof JsonShapeError)) throw error;
      this.#dispatch(this.#head!, error);
      return false;
    }
    this.#bodyReceived += part.length;
    const needed = scanner.values * BODY_VALUE_COST - this.#valuesReserved;
    if (needed > 0) {
      // In steps, so that the pool is not asked on every chunk (less, when less is free).
      const step = Math.ceil(needed / VALUE_RESERVATION_STEP) * VALUE_RESERVATION_STEP;
      const taken = Math.max(needed, Math.min(step, this.#pool.free));
      if (!reservation.grow(taken)) {
        this.#fail(503, "the webhook holds as many request bodies as it may; try again");
        return false;
      }
      this.#valuesReserved += taken;
    }
    return true;
  }

  /** Gives back what the body being read holds of the pool. */
  #releaseBody(): void {
    this.#reservation?.release();
    this.#reservation = undefined;
    this.#scanner = undefined;
  }

  /** The bytes received, as one buffer (copied only when they came in several chunks). */
  #joined(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }

  /** Drops the first `count` bytes received. */
  #consume(count: number): void {
    const rest = this.#joined().subarray(count);
    this.#chunks = rest.length ? [rest] : [];
    this.#size = rest.length;
  }

  /** `#advance` is running (an answer given at once must not start it again within itself). */
  #advancing = false;
  /** `#advance` was asked again while it ran: it goes on with the next request. */
  #again = false;

  /**
   * Reads what the buffer holds, one request after another while their answers are given at
   * once: a loop, not a recursion, however many requests a client pipelines.
   */
  #advance(): void {
    if (this.#advancing) {
      this.#again = true;
      return;
    }
    this.#advancing = true;
    try {
      do {
        this.#again = false;
        this.#advanceOnce();
      } while (this.#again);
    } finally {
      this.#advancing = false;
    }
  }

  /** Reads what the buffer holds: the next head, the current body, then the routes. */
  #advanceOnce(): void {
    if (this.#phase === "idle") {
      // Empty lines before a request line are ignored (RFC 9112, 2.2).
      const bytes = this.#joined();
      let start = 0;
      while (start + 1 < bytes.length && bytes[start] === 13 && bytes[start + 1] === 10) {
        start += 2;
      }
      if (start > 0) this.#consume(start);
      if (this.#size === 0) return;
      this.#phase = "head";
      this.#deadline = Date.now() + this.#requestTimeoutMs;
    }
    if (this.#phase === "head") {
      // The head is looked for in at most maxHead bytes and a chunk: copies stay bounded.
      const bytes = this.#joined();
      const end = bytes.indexOf(CRLF2);
      if (end < 0) {
        if (bytes.length > this.#maxHead) this.#fail(431, "the request head is too large");
        return;
      }
      if (end > this.#maxHead) return this.#fail(431, "the request head is too large");
      const parsed = parseHead(bytes.toString("latin1", 0, end));
      this.#consume(end + 4);
      if (parsed instanceof BadRequest) return this.#fail(parsed.status, parsed.message);
      this.#head = parsed;
      if (parsed.contentLength > this.#maxBody) {
        // Not read: the routes answer 413 and the connection closes.
        return this.#dispatch(parsed, undefined);
      }
      if (!this.#startBody(parsed.contentLength)) return;
      this.#phase = "body";
      if (parsed.expectContinue && parsed.contentLength > this.#size) {
        this.#socket.write("HTTP/1.1 100 Continue\r\n\r\n");
      }
    }
    if (this.#phase === "body") {
      // Chunks are joined once the whole body is here, not on every chunk.
      const head = this.#head!;
      if (this.#size < head.contentLength) return;
      const bytes = this.#joined();
      const body = bytes.subarray(0, head.contentLength);
      this.#consume(head.contentLength);
      this.#dispatch(head, body);
    }
  }

  /**
   * Reserves a body of `length` bytes from the pool and starts counting its shape, with what
   * already arrived of it. False when it is refused (503, or the routes answer its shape).
   */
  #startBody(length: number): boolean {
    this.#bodyReceived = 0;
    this.#valuesReserved = 0;
    if (length === 0) return true;
    // The pool's capacity bounds the values of one body too: a body within its shape always
    // fits an empty pool, so 503 only ever means "busy".
    const shape: JsonShapeLimits = bodyShapeLimits(length);
    const fits = Math.floor((this.#pool.capacity - length * BODY_BYTE_COST) / BODY_VALUE_COST);
    this.#reservation = this.#pool.tryReserve(length * BODY_BYTE_COST);
    if (this.#reservation === undefined) {
      this.#fail(503, "the webhook holds as many request bodies as it may; try again");
      return false;
    }
    this.#scanner = new JsonShapeScanner(
      { maxDepth: shape.maxDepth, maxValues: Math.max(0, Math.min(shape.maxValues, fits)) },
      "the request body",
    );
    if (this.#size === 0) return true;
    return this.#scan(this.#joined());
  }

  /**
   * Hands the request to the routes with its body (undefined: too large to read; a
   * {@linkcode JsonShapeError}: refused mid-stream), and what it holds of the pool, given back
   * once the answer is written.
   */
  #dispatch(head: Head, body: Buffer | JsonShapeError | undefined): void {
    this.#phase = "answering";
    const reservation = this.#reservation;
    this.#reservation = undefined;
    this.#scanner = undefined;
    const refused = !(body instanceof Buffer);
    // deno-lint-ignore no-this-alias
    const connection = this;
    const request: WebhookRequest = {
      method: head.method,
      path: pathOf(head.target),
      // Asked for only by a review that waits (a warm one never does): made on demand.
      get gone() {
        return connection.#goneSignal;
      },
      // The body is all here: parsed at once, not behind a promise. Its shape was counted as it
      // arrived and its values reserved: the parse is bounded.
      json: (limit) => {
        if (body instanceof JsonShapeError) throw body;
        if (body === undefined || body.length > limit) throw new RequestBodyTooLargeError();
        // Decoded as `parseJsonWithin` decodes (a leading byte order mark is dropped).
        return JSON.parse(UTF8.decode(body));
      },
    };
    const failed = () =>
      this.#answer(
        head,
        { status: 500, contentType: TEXT_TYPE, body: "internal error\n" },
        true,
        reservation,
      );
    let answer: WebhookAnswer | Promise<WebhookAnswer>;
    try {
      answer = this.#routes(request);
    } catch {
      return failed();
    }
    // An answer the routes had at once leaves in this turn (a warm review).
    if (answer instanceof Promise) {
      answer.then((a) => this.#answer(head, a, refused, reservation), failed);
    } else this.#answer(head, answer, refused, reservation);
  }

  #answer(
    head: Head,
    answer: WebhookAnswer,
    mustClose: boolean,
    reservation: BodyReservation | undefined,
  ): void {
    // The routes are done with the body: its reservation is given back, whether or not the
    // client is still there to read the answer.
    reservation?.release();
    // The review is logged and counted even when its client has gone.
    if (this.#phase === "done") return answer.written?.();
    const close = mustClose || head.close || this.#draining || this.#ended;
    const written = this.#write(answer, close, head.method === "HEAD");
    answer.written?.();
    if (close) return this.#close();
    this.#deadline = Date.now() + this.#idleTimeoutMs;
    const next = () => {
      if (this.#phase !== "answering") return;
      this.#blocked = false;
      this.#phase = "idle";
      this.#deadline = Date.now() + this.#idleTimeoutMs;
      this.#socket.resume();
      this.#advance();
    };
    // The next request waits (and at most one is read ahead) while the client does not read
    // the answers written.
    if (written) next();
    else {
      this.#blocked = true;
      this.#socket.once("drain", next);
    }
  }

  /** Writes an answer in one write; false when the socket's buffer is full. */
  #write(answer: WebhookAnswer, close: boolean, headOnly: boolean): boolean {
    const length = Buffer.byteLength(answer.body);
    const text = `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? "Unknown"}\r\n` +
      `content-type: ${answer.contentType}\r\ncontent-length: ${length}\r\n` +
      `date: ${httpDate()}\r\n${close ? "connection: close\r\n" : ""}\r\n` +
      (headOnly ? "" : answer.body);
    return this.#socket.write(text);
  }

  /** Answers a request that cannot be served, and closes. */
  #fail(status: number, message: string): void {
    if (this.#phase === "done") return;
    this.#write({ status, contentType: TEXT_TYPE, body: `${message}\n` }, true, false);
    this.#close();
  }

  #close(): void {
    if (this.#phase === "done") return;
    this.#phase = "done";
    this.#chunks = [];
    this.#size = 0;
    this.#releaseBody();
    // A client that does not close its side in time is cut off by `expire`, one that goes on
    // sending (the rest of a body refused unread) once it has sent a little more.
    this.#deadline = Date.now() + 5_000;
    this.#socket.end();
  }

  #destroy(): void {
    this.#phase = "done";
    this.#releaseBody();
    this.#socket.destroy();
  }
}
