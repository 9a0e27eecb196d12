/**
 * Error classes shared by the CLI, the webhook and the library.
 *
 * Expected outcomes (an image denied by policy, a signature that does not verify) are returned
 * as data. Errors are for failures: each carries a `cause` where there is one, and a message in
 * the form `Cannot <action> "<value>": <detail>`.
 *
 * No message quotes input that may be secret: text that does not parse is described by
 * {@linkcode InputSyntaxError} (kind, line, column; see {@linkcode parseJson} and `yaml.ts`),
 * and text from a server goes into a message only through {@linkcode safeExcerpt}.
 *
 * @module
 */

/** Base class of every error toolkit throws on purpose. */
export class ToolkitError extends Error {
  /**
   * True when the message already says what its cause says (in its own words), so that
   * {@linkcode describeError} does not repeat the cause's (`…; pass --context: fetch failed`).
   */
  readonly messageTellsCause: boolean;

  /**
   * Creates an error with a message and an optional cause; `messageTellsCause` when the message
   * says what the cause says.
   */
  constructor(message: string, options?: ErrorOptions & { readonly messageTellsCause?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolkitError";
    this.messageTellsCause = options?.messageTellsCause ?? false;
  }
}

/**
 * A mistake in how a command was called (unknown flag, missing argument, bad value).
 * The CLI prints the message with a hint to `--help` and exits with status 2.
 */
export class UsageError extends ToolkitError {
  /** Creates a usage error. */
  constructor(message: string, options?: ErrorOptions & { readonly messageTellsCause?: boolean }) {
    super(message, options);
    this.name = "UsageError";
  }
}

/** A feature that is registered but not built yet: says so and fails, never a fake success. */
export class NotImplementedError extends ToolkitError {
  /** Creates the error for the named feature. */
  constructor(feature: string) {
    super(`"${feature}" is not available in this version of toolkit yet`);
    this.name = "NotImplementedError";
  }
}

/**
 * Returns the message of any thrown value, following `cause` links ("a: b: c") up to an error
 * whose message tells its cause already ({@linkcode ToolkitError.messageTellsCause}). A JSON or YAML
 * parser's error in the chain is described by {@linkcode safeSyntaxError}, without the input
 * its own message quotes.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 8; depth++) {
    const message = isInputEchoingError(current)
      ? safeSyntaxError(current, "YAML").message
      : current instanceof Error
      ? current.message
      : String(current);
    if (message && !parts.some((p) => p.includes(message))) parts.push(message);
    if (current instanceof ToolkitError && current.messageTellsCause) break;
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ");
}

/** What the codes of {@linkcode InputSyntaxError} mean, in words (others are spelled out). */
const SYNTAX_ERROR_DESCRIPTIONS: Readonly<Record<string, string>> = {
  BAD_INDENT: "bad indentation",
  BLOCK_AS_IMPLICIT_KEY: "nested mappings are not allowed in compact mappings",
  DUPLICATE_KEY: "map keys must be unique",
  MULTILINE_IMPLICIT_KEY: "implicit keys need to be on a single line",
  MISSING_CHAR: "a closing character is missing",
  TAB_AS_INDENT: "tabs are not allowed as indentation",
  MULTIPLE_DOCS: "the text holds more than one document",
  BAD_ALIAS: "an alias does not resolve",
  UNEXPECTED_END: "unexpected end of input",
  TEXT_AFTER_VALUE: "unexpected text after the value",
  CONTROL_CHARACTER_IN_STRING: "a control character in a string",
  UNTERMINATED_STRING: "unterminated string",
  EXPECTED_PROPERTY_NAME: "expected a property name",
  UNEXPECTED_TOKEN: "unexpected character",
};

/**
 * Input that does not parse as JSON or YAML. The message says where (line and column) and what
 * kind of mistake, and never quotes the input: the text may be a Secret, a kubeconfig or a
 * response holding tokens, and the parsers' own messages quote the offending line.
 */
export class InputSyntaxError extends ToolkitError {
  /** The format that was expected. */
  readonly format: "JSON" | "YAML";
  /** The line of the mistake (1-based), when known. */
  readonly line: number | undefined;
  /** The column of the mistake (1-based), when known. */
  readonly column: number | undefined;
  /** The document of a multi-document YAML stream (1-based), when known. */
  readonly document: number | undefined;
  /** The kind of mistake: a YAML error code (`BAD_INDENT`) or a JSON one (`UNEXPECTED_TOKEN`). */
  readonly code: string;

  /** Creates the error; the message is built from the fields alone. */
  constructor(
    format: "JSON" | "YAML",
    code: string,
    position: {
      document?: number | undefined;
      line?: number | undefined;
      column?: number | undefined;
    } = {},
  ) {
    const where = (position.document === undefined ? "" : ` in document ${position.document}`) +
      (position.line === undefined ? "" : ` at line ${position.line}`) +
      (position.column === undefined ? "" : `, column ${position.column}`);
    const what = SYNTAX_ERROR_DESCRIPTIONS[code] ?? code.toLowerCase().replaceAll("_", " ");
    super(`invalid ${format}${where}: ${what}`);
    this.name = "InputSyntaxError";
    this.format = format;
    this.code = code;
    this.document = position.document;
    this.line = position.line;
    this.column = position.column;
  }
}

/** The kinds of V8's `JSON.parse` messages, in the order they are tried. */
const JSON_ERROR_KINDS: readonly [RegExp, string][] = [
  [/^Unexpected end of JSON input/, "UNEXPECTED_END"],
  [/^Unexpected non-whitespace character after JSON/, "TEXT_AFTER_VALUE"],
  [/^Bad control character/, "CONTROL_CHARACTER_IN_STRING"],
  [/^Bad (?:Unicode )?escape/, "BAD_ESCAPE"],
  [/^Unterminated string/, "UNTERMINATED_STRING"],
  [/^Expected property name/, "EXPECTED_PROPERTY_NAME"],
  [/^Expected/, "UNEXPECTED_TOKEN"],
  [/^Unexpected token/, "UNEXPECTED_TOKEN"],
];

/** Line and column (1-based) of `offset` in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastNewline = before.lastIndexOf("\n");
  return { line: before.split("\n").length, column: offset - lastNewline };
}

/** True for an error a YAML or JSON parser threw, whose message may quote its input. */
export function isInputEchoingError(error: unknown): error is Error {
  if (!(error instanceof Error) || error instanceof InputSyntaxError) return false;
  if (error instanceof SyntaxError && error.message.includes("JSON")) return true;
  return /^YAML/.test(error.name) && typeof (error as { code?: unknown }).code === "string";
}

/**
 * Turns a parser's error into an {@linkcode InputSyntaxError} that does not quote the input:
 * the kind of a `JSON.parse` error and its position (turned into line and column when `text`
 * is given), or the code and position of a `yaml` package error. Any other error becomes a
 * generic `SYNTAX_ERROR` of `format`.
 */
export function safeSyntaxError(
  error: unknown,
  format: "JSON" | "YAML",
  text?: string,
): InputSyntaxError {
  if (error instanceof InputSyntaxError) return error;
  const message = error instanceof Error ? error.message : "";
  const yamlCode = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (typeof yamlCode === "string" && /^[A-Z0-9_]{1,40}$/.test(yamlCode)) {
    const linePos = (error as { linePos?: { line?: unknown; col?: unknown }[] }).linePos;
    const first = Array.isArray(linePos) ? linePos[0] : undefined;
    return new InputSyntaxError("YAML", yamlCode, {
      line: typeof first?.line === "number" ? first.line : undefined,
      column: typeof first?.col === "number" ? first.col : undefined,
    });
  }
  if (error instanceof SyntaxError && message.includes("JSON")) {
    const code = JSON_ERROR_KINDS.find(([pattern]) => pattern.test(message))?.[1] ?? "SYNTAX_ERROR";
    const at = /at position (\d+)/.exec(message);
    const offset = at ? Number(at[1]) : code === "UNEXPECTED_END" && text ? text.length : undefined;
    return new InputSyntaxError(
      "JSON",
      code,
      offset !== undefined && text !== undefined ? lineColumn(text, offset) : {},
    );
  }
  return new InputSyntaxError(format, "SYNTAX_ERROR");
}

/**
 * `JSON.parse` for text that may hold secrets (a Secret, a response with tokens): throws an
 * {@linkcode InputSyntaxError} that says where the text is wrong, not what it says.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw safeSyntaxError(error, "JSON", text);
  }
}

/** Keys whose values are secrets when a quoted text writes `key: value` or `key=value`. */
const SECRET_FIELD_REGEXP =
  /(["']?)((?<![\w.-])(?:[\w-]*[_.-])?(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|private[_-]?key|credentials?|auth|authorization|payload|key)(?:[_.-](?:data|value|material))?)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*"?|'[^']*'?|[^\s,;&}\])]+)/gi;
/** An `Authorization` value: `Bearer …`, `Basic …`. */
const AUTH_SCHEME_REGEXP = /\b(Bearer|Basic|Negotiate|Token)(\s+)[\w.~+/=-]+/gi;
/** A PEM block (private keys, certificates), closed or cut off. */
const PEM_REGEXP = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g;
/** A long opaque run: base64, base64url, hex, JWT parts. */
const OPAQUE_RUN_REGEXP = /(sha(?:256|384|512):)?[A-Za-z0-9+/_=-]{32,}/g;

/** True when an opaque run looks like key material or a token rather than a word or a path. */
function looksSecret(run: string): boolean {
  if (/^[0-9a-f]+$/i.test(run)) return true;
  return /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run);
}

/** How {@linkcode safeExcerpt} quotes a text. */
export interface ExcerptOptions {
  /** The most characters kept (after scrubbing). @default 200 */
  readonly maxChars?: number;
  /** Values known to be secret (the token or API key just sent), replaced wherever they occur. */
  readonly secrets?: readonly string[];
}

/**
 * The part of a text from elsewhere (a response body, a server's error message, a reason
 * phrase) that may go into an error message or a log line: on one line, at most `maxChars`
 * characters, with known secrets, the values of secret-named fields (`"password": …`,
 * `token=…`), `Bearer`/`Basic` credentials, PEM blocks and long opaque runs (base64, hex,
 * JWTs) replaced by `***`. Every message that quotes a remote body goes through here.
 */
export function safeExcerpt(text: string, options: ExcerptOptions = {}): string {
  const maxChars = options.maxChars ?? 200;
  let scrubbed = text;
  for (const secret of options.secrets ?? []) {
    if (secret.length >= 4) scrubbed = scrubbed.split(secret).join("***");
  }
  scrubbed = scrubbed
    .replace(PEM_REGEXP, "***")
    .replace(AUTH_SCHEME_REGEXP, "$1$2***")
    .replace(SECRET_FIELD_REGEXP, "$1$2$1$3***")
    .replace(
      OPAQUE_RUN_REGEXP,
      (run: string, digestPrefix?: string) => digestPrefix || !looksSecret(run) ? run : "***",
    )
    // deno-lint-ignore no-control-regex
    .replace(/[\s\u0000-\u001f\u007f]+/g, " ")
    .trim();
  const chars = Array.from(scrubbed);
  return chars.length > maxChars ? `${chars.slice(0, maxChars).join("")}…` : scrubbed;
}
