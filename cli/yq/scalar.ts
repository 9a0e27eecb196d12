/**
 * How `toolkit yq` writes a value given on the command line: as it was typed. igc let yargs turn
 * number-like values into numbers (`1.10` became `1.1`, `3.0` became `3`); here the text is kept,
 * and only the style (plain or quoted) is chosen:
 *
 * - a new value is written plain when it reads back as one plain scalar (`1.10`, `true`, `abc`),
 *   else quoted (`""`, `a: b`, `#x`, ` x`);
 * - a value that replaces a string stays a string: it keeps the quotes the old value had, and a
 *   plain string whose new text YAML would read as another type (`1.10`, `true`, and what YAML
 *   1.1 readers such as Kubernetes take for booleans or numbers: `yes`, `on`, `010`) is quoted;
 * - a value that replaces a number, boolean or null is written as typed;
 * - `--tag !!str|!!int|!!float|!!bool|!!null` says what the value is: `!!str` quotes when needed,
 *   the others refuse text that is not of that type (`!!float 1` is written with its tag);
 * - a multi-line value is a string, written in the old value's style or as a literal block;
 * - in a JSON file, a new value is a JSON number, boolean or null when typed as one, else a
 *   string in double quotes.
 *
 * @module
 */
import { type Document, parseDocument, Scalar, stringify } from "yaml";
import { UsageError } from "../../lib/errors.ts";

/** The types `--tag` checks the value against. */
export const FORCED_TAGS = ["!!str", "!!int", "!!float", "!!bool", "!!null"] as const;

/** A tag given with `--tag`: one of {@link FORCED_TAGS}, or another written as it is. */
export type ForcedTag = string;

/** `--style`: how a value is written. */
export type ValueStyle = "single" | "double" | "folded" | "literal" | "flow" | "tagged";

/** A tag as YAML writes one: `!!name`, `!name`, `!<uri>`. */
const TAG = /^!(!?[A-Za-z0-9\-_.~:/#%;?@&=+$,]*|<[^<>\s]+>)$/;

/** An anchor or alias name: no spaces and no flow indicators. */
const ANCHOR = /^[^\s,[\]{}*&!]+$/;

/**
 * Checks a `--tag` (any YAML tag) and an anchor name.
 *
 * @throws {UsageError} naming what is wrong.
 */
export function checkTagAndAnchor(tag: string | undefined, anchor: string | undefined): void {
  if (tag !== undefined && !TAG.test(tag)) {
    throw new UsageError(`--tag must be a YAML tag (!!str, !!int, !mine), not "${tag}"`);
  }
  if (anchor !== undefined && !ANCHOR.test(anchor)) {
    throw new UsageError(
      `"${anchor}" cannot be an anchor name (no spaces, commas, brackets, braces, * & or !)`,
    );
  }
}

/** What a scalar reads as: the core types, or another (a timestamp, a custom tag). */
export type ScalarKind = "str" | "int" | "float" | "bool" | "null" | "other";

/** The YAML version whose rules decide what a plain scalar reads as. */
export type YamlVersion = "1.1" | "1.2";

/** The scalar a new value replaces: its style and what it reads as. */
export interface ExistingScalar {
  /** Its style in the file. */
  readonly style: Scalar.Type;
  /** What it reads as. */
  readonly kind: ScalarKind;
  /** Its explicit tag in the file (`!!str` written as `tag:yaml.org,2002:str`), if any. */
  readonly tag?: string;
}

/** A value to write. */
export type Leaf =
  /**
   * One line of YAML written as it is; `tag` is an explicit tag and `anchor` an anchor name
   * to put before it.
   */
  | {
    readonly text: string;
    readonly tag?: string;
    readonly anchor?: string;
    /** The text is an alias, which takes no anchor or tag: those of the old value go. */
    readonly alias?: boolean;
  }
  /** A block or multi-line string, for the YAML writer to write in the node's style. */
  | { readonly node: Scalar };

/** How {@link leafFor} writes a value. */
export interface LeafOptions {
  /** `--tag`. */
  readonly tag?: ForcedTag | undefined;
  /** The scalar the value replaces, if any. */
  readonly existing?: ExistingScalar | undefined;
  /** The value goes inside a flow collection (`[…]`, `{…}`). */
  readonly inFlow?: boolean;
  /** The quote for a value that needs quotes and has no old style to keep. @default '"' */
  readonly quote?: "'" | '"';
  /** The file is JSON: a new value is a JSON number, boolean or null as typed, else a string. */
  readonly json?: boolean;
  /** `--style`. */
  readonly style?: ValueStyle | undefined;
  /** `--anchorName`. */
  readonly anchor?: string | undefined;
  /** `--makeAlias`: the value is the name of an anchor. */
  readonly alias?: boolean;
}

const KIND_OF_TAG: Readonly<Record<string, ScalarKind>> = {
  "tag:yaml.org,2002:str": "str",
  "tag:yaml.org,2002:int": "int",
  "tag:yaml.org,2002:float": "float",
  "tag:yaml.org,2002:bool": "bool",
  "tag:yaml.org,2002:null": "null",
  "!": "str",
};

const KIND_OF_FORCED: Readonly<Record<string, ScalarKind>> = {
  "!!str": "str",
  "!!int": "int",
  "!!float": "float",
  "!!bool": "bool",
  "!!null": "null",
};

const TYPE_WORDS: Readonly<Record<ScalarKind, string>> = {
  str: "a string",
  int: "an integer",
  float: "a number",
  bool: "a boolean (true or false)",
  null: "null (null, ~ or nothing)",
  other: "a value",
};

/** The kind a tag name (`tag:yaml.org,2002:int`) stands for. */
export function kindOfTag(tag: string): ScalarKind {
  return KIND_OF_TAG[tag] ?? "other";
}

/** Characters that need double quotes (a single-quoted scalar cannot escape them). */
// deno-lint-ignore no-control-regex
const NEEDS_ESCAPES = /[\u0000-\u0008\u000b-\u001f\u007f\u0085\u2028\u2029\ufeff]/;

/** The tag that a plain scalar's text resolves to in `doc`'s schema. */
function resolvedTag(doc: Document, text: string): string {
  for (const tag of doc.schema.tags) {
    if ("test" in tag && tag.default && tag.test?.test(text)) return tag.tag;
  }
  return "tag:yaml.org,2002:str";
}

/**
 * What `text` reads as when written plain, under the rules of YAML `version`, or `undefined`
 * when written plain it is not one plain scalar of that very text (it is empty, has a comment,
 * a `: `, a leading indicator, surrounding spaces, or, in a flow collection, `,[]{}`).
 */
export function plainKind(
  text: string,
  version: YamlVersion = "1.2",
  inFlow = false,
): ScalarKind | undefined {
  if (text === "" || /[\r\n]/.test(text)) return undefined;
  const source = inFlow ? `[${text}]` : text;
  const offset = inFlow ? 1 : 0;
  const doc = parseDocument(source, { version });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return undefined;
  let node: unknown = doc.contents;
  if (inFlow) {
    const items = (node as { items?: unknown[] } | null)?.items;
    if (!Array.isArray(items) || items.length !== 1) return undefined;
    node = items[0];
  }
  if (!(node instanceof Scalar) || node.type !== "PLAIN" || node.tag !== undefined) {
    return undefined;
  }
  const range = node.range;
  if (!range || range[0] !== offset || range[1] !== offset + text.length) return undefined;
  if (node.comment || node.anchor) return undefined;
  return kindOfTag(resolvedTag(doc, text));
}

/** What a parsed scalar of a document of YAML `version` is, for {@link leafFor}. */
export function existingScalar(node: Scalar, version: YamlVersion = "1.2"): ExistingScalar {
  const style = node.type ?? "PLAIN";
  const tag = node.tag;
  let kind: ScalarKind;
  if (tag !== undefined) kind = kindOfTag(tag);
  else if (style !== "PLAIN") kind = "str";
  else kind = plainKind(String(node.source ?? node.value), version) ?? "str";
  return { style, kind, ...(tag !== undefined ? { tag } : {}) };
}

/** `value` in quotes: single when asked and possible, else double. One line, never folded. */
export function quoted(value: string, quote: "'" | '"'): string {
  const node = new Scalar(value);
  node.type = quote === "'" && !NEEDS_ESCAPES.test(value) ? "QUOTE_SINGLE" : "QUOTE_DOUBLE";
  return stringify(node, { lineWidth: 0 }).replace(/\n$/, "");
}

/** A string written plain when every YAML reader reads it as that string, else quoted. */
function asString(value: string, options: LeafOptions, quote: "'" | '"'): Leaf {
  const inFlow = options.inFlow ?? false;
  if (plainKind(value, "1.2", inFlow) === "str" && plainKind(value, "1.1", inFlow) === "str") {
    return { text: value };
  }
  return { text: quoted(value, quote) };
}

/** What a JSON literal (number, `true`, `false`, `null`) reads as; `undefined` for other text. */
function jsonKind(value: string): ScalarKind | undefined {
  if (/^-?(0|[1-9][0-9]*)$/.test(value)) return "int";
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(value)) return "float";
  if (value === "true" || value === "false") return "bool";
  return value === "null" ? "null" : undefined;
}

/** The error of a value that does not fit the explicit tag the old value keeps in the file. */
function taggedError(tag: string, value: string, kind: ScalarKind): UsageError {
  return new UsageError(
    `The value in the file is tagged ${tag.replace("tag:yaml.org,2002:", "!!")} and "${value}" ` +
      `is not ${TYPE_WORDS[kind]}; give --tag to change its type`,
  );
}

/**
 * How to write `value` (see the module documentation): as typed, or as `--style`,
 * `--anchorName` and `--makeAlias` say; `[]` and `{}` are an empty sequence and mapping.
 *
 * @throws {UsageError} when `--tag` names a type the value is not, or when the old value's
 * explicit tag (kept in the file) does not fit the new one.
 */
export function leafFor(value: string, options: LeafOptions = {}): Leaf {
  const { tag, style, anchor } = options;
  checkTagAndAnchor(tag, anchor);
  if (options.alias) {
    if (anchor !== undefined) throw new UsageError("An alias cannot have an anchor (--anchorName)");
    checkTagAndAnchor(undefined, value);
    return { text: `*${value}`, alias: true };
  }
  const withAnchor = (leaf: Leaf): Leaf => {
    if (anchor === undefined) return leaf;
    if ("node" in leaf) {
      leaf.node.anchor = anchor;
      return leaf;
    }
    return { ...leaf, anchor };
  };
  const empty = value === "[]" ? "!!seq" : value === "{}" ? "!!map" : undefined;
  if (
    empty && (tag === undefined || tag === empty) &&
    !/single|double|folded|literal/.test(style ?? "")
  ) {
    return withAnchor({ text: value });
  }
  const known = tag === undefined || tag in KIND_OF_FORCED;
  const checked = known ? tag : undefined;
  switch (style) {
    case "single":
    case "double": {
      const text = quoted(value, style === "single" ? "'" : '"');
      if (checked !== undefined && checked !== "!!str") typedLeaf(value, options); // checks it
      const explicit = tag !== undefined && tag !== "!!str" ? tag : undefined;
      return withAnchor(explicit ? { text, tag: explicit } : { text });
    }
    case "literal":
    case "folded": {
      if (checked !== undefined && checked !== "!!str") {
        throw new UsageError(`A ${style} block is a string; it cannot be ${tag}`);
      }
      const node = new Scalar(value);
      node.type = style === "literal" ? "BLOCK_LITERAL" : "BLOCK_FOLDED";
      if (tag !== undefined && tag !== "!!str") node.tag = tag;
      return withAnchor({ node });
    }
    case "tagged": {
      const leaf = typedLeaf(value, { ...options, tag: checked });
      if ("node" in leaf) {
        leaf.node.tag = tag ?? "tag:yaml.org,2002:str";
        return withAnchor(leaf);
      }
      const kind = leaf.tag ?? tag ?? `!!${leafKind(leaf.text, options)}`;
      return withAnchor({ text: leaf.text, tag: kind });
    }
  }
  if (!known) {
    // Another tag (!!binary, !mine): the value written with it, as typed.
    const leaf = typedLeaf(value, { ...options, tag: undefined, existing: undefined });
    return withAnchor("node" in leaf ? leaf : { text: leaf.text, tag });
  }
  return withAnchor(typedLeaf(value, options));
}

/** What a leaf's text reads as (`str` for a quoted one, `other` becomes `str`). */
function leafKind(text: string, options: LeafOptions): ScalarKind {
  const kind = plainKind(text, "1.2", options.inFlow ?? false) ?? "str";
  return kind === "other" ? "str" : kind;
}

/** {@link leafFor} for a value written as typed, or with a checked `--tag`. */
function typedLeaf(value: string, options: LeafOptions): Leaf {
  const { tag, existing } = options;
  const inFlow = options.inFlow ?? false;
  const oldQuote = existing?.style === "QUOTE_SINGLE"
    ? "'"
    : existing?.style === "QUOTE_DOUBLE"
    ? '"'
    : undefined;
  const quote = oldQuote ?? options.quote ?? '"';
  const meant = tag ? KIND_OF_FORCED[tag] : existing?.kind;

  if (/[\r\n]/.test(value)) {
    if (meant !== undefined && meant !== "str" && meant !== "other") {
      if (tag) {
        throw new UsageError(
          `A value of several lines cannot be ${TYPE_WORDS[meant]} (--tag ${tag})`,
        );
      }
      if (existing?.tag !== undefined) throw taggedError(existing.tag, value, meant);
    }
    const node = new Scalar(value);
    node.type = inFlow
      ? "QUOTE_DOUBLE"
      : existing && existing.style !== "PLAIN"
      ? existing.style
      : "BLOCK_LITERAL";
    return { node };
  }

  if (options.json && !oldQuote && existing?.tag === undefined && meant !== "str") {
    // JSON's own literals as typed (when they are what the type asks); anything else a string.
    const literal = jsonKind(value);
    if (literal !== undefined && (meant === undefined || meant === literal)) return { text: value };
    if (tag && tag !== "!!str") {
      throw new UsageError(`"${value}" is not ${TYPE_WORDS[meant!]} (--tag ${tag})`);
    }
    return { text: quoted(value, '"') };
  }
  if (options.json) return { text: quoted(value, '"') };

  const typed = plainKind(value, "1.2", inFlow);
  if (meant === undefined) {
    return typed !== undefined ? { text: value } : { text: quoted(value, quote) };
  }

  if (meant === "str") {
    if (oldQuote) return { text: quoted(value, oldQuote) };
    // The old value's explicit tag stays in the file and keeps the new text a string.
    if (!tag && existing?.tag !== undefined && typed !== undefined) return { text: value };
    return asString(value, options, quote);
  }

  if (typed === meant) return { text: value };
  if (meant === "other") {
    return typed !== undefined ? { text: value } : { text: quoted(value, quote) };
  }
  if (tag) {
    if (meant === "float" && typed === "int") return { text: value, tag: "!!float" };
    if (meant === "null" && value === "") return { text: "null" };
    throw new UsageError(`"${value}" is not ${TYPE_WORDS[meant]} (--tag ${tag})`);
  }
  if (existing?.tag !== undefined && existing.kind === meant) {
    throw taggedError(existing.tag, value, meant);
  }
  return typed !== undefined ? { text: value } : { text: quoted(value, quote) };
}
