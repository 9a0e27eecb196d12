/**
 * YAML reading for every caller (policy files, kubeconfigs, registries.d, values files). The
 * `yaml` package's errors and warnings quote the offending source line, which may be a Secret's
 * `password:` or a kubeconfig's token; here every failure is an {@linkcode InputSyntaxError}
 * (line, column, kind, no source text) and warnings are never printed to the console.
 * (`prettyErrors` is on only so that the parser computes line and column; its messages are
 * never used.)
 *
 * @module
 */
import { type Document, parseAllDocuments, parseDocument, visit } from "yaml";
import { InputSyntaxError, safeSyntaxError } from "./errors.ts";

/** How YAML is read. */
export interface YamlOptions {
  /** Fail on duplicated mapping keys. @default true (as the `yaml` package) */
  readonly uniqueKeys?: boolean;
}

/** The value of one parsed document, with its errors turned into safe ones. */
function valueOf(doc: Document.Parsed): unknown {
  const first = doc.errors[0];
  if (first !== undefined) throw safeSyntaxError(first, "YAML");
  try {
    return doc.toJS();
  } catch (error) {
    // An unresolved alias or too many of them; the message names the alias.
    throw new InputSyntaxError(
      "YAML",
      error instanceof ReferenceError ? "BAD_ALIAS" : "SYNTAX_ERROR",
    );
  }
}

/**
 * Parses one YAML (or JSON) document into plain values.
 *
 * @throws {InputSyntaxError} when the text is not one valid YAML document.
 */
export function parseYaml(text: string, options: YamlOptions = {}): unknown {
  return valueOf(
    parseDocument(text, { prettyErrors: true, uniqueKeys: options.uniqueKeys ?? true }),
  );
}

/** `error` (of document `index`, 0-based) saying which document of the stream it is in. */
function inDocument(error: unknown, index: number): unknown {
  if (!(error instanceof InputSyntaxError)) return error;
  return new InputSyntaxError(error.format, error.code, {
    document: index + 1,
    line: error.line,
    column: error.column,
  });
}

/**
 * Parses every document of a YAML stream into plain values (empty documents are `null`).
 *
 * @throws {InputSyntaxError} for the first document that is not valid YAML; its `document`
 * says which (1-based).
 */
export function parseYamlDocuments(text: string, options: YamlOptions = {}): unknown[] {
  const parsed = parseAllDocuments(text, {
    prettyErrors: true,
    uniqueKeys: options.uniqueKeys ?? true,
  });
  const docs = Array.isArray(parsed) ? parsed : [parsed];
  return docs.map((doc, i) => {
    try {
      return valueOf(doc);
    } catch (error) {
      throw inDocument(error, i);
    }
  });
}

/**
 * Parses every document of a YAML stream for editing: the nodes keep their source ranges and
 * their tokens of the concrete syntax tree (`srcToken`), and comments stay attached. A stream
 * of no document (empty, or only comments) gives an empty list. An alias without its anchor
 * is an error here too.
 *
 * @throws {InputSyntaxError} for the first document that is not valid YAML; its `document`
 * says which (1-based).
 */
export function parseYamlStream(text: string): Document.Parsed[] {
  const parsed = parseAllDocuments(text, { prettyErrors: true, keepSourceTokens: true });
  const docs = Array.isArray(parsed) ? [...parsed] : [parsed];
  docs.forEach((doc, i) => {
    const first = doc.errors[0];
    if (first !== undefined) throw inDocument(safeSyntaxError(first, "YAML"), i);
    visit(doc, {
      Alias(_, alias) {
        if (alias.resolve(doc) !== undefined) return;
        const offset = alias.range?.[0] ?? 0;
        const before = text.slice(0, offset);
        throw new InputSyntaxError("YAML", "BAD_ALIAS", {
          document: i + 1,
          line: before.split("\n").length,
          column: offset - before.lastIndexOf("\n"),
        });
      },
    });
  });
  return docs;
}

/**
 * Parses one YAML document for editing (its nodes keep their source ranges).
 *
 * @throws {InputSyntaxError} when the text is not one valid YAML document.
 */
export function parseYamlDocument(text: string): Document.Parsed {
  const doc = parseDocument(text, { prettyErrors: true });
  const first = doc.errors[0];
  if (first !== undefined) throw safeSyntaxError(first, "YAML");
  return doc;
}
