/**
 * The shape every importer of a peer's policies shares: what one source rule became (toolkit
 * objects and findings), and the importer interface the list in `importers.ts` holds.
 *
 * @module
 */

/** One field of the source that was not carried over as it was. */
export interface ImportFinding {
  /** The field's path in the source document, e.g. `spec.rules[0].verifyImages[0].attestors[0].entries[0].keys.kms`. */
  readonly path: string;
  /** unmapped: no equivalent, dropped; weaker: toolkit checks less; stronger: toolkit checks more; refused: the rule could not be converted. */
  readonly kind: "unmapped" | "weaker" | "stronger" | "refused";
  readonly reason: string;
}

/** Where an imported rule came from. */
export interface ImportSource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  /** The rule's name within the document, when the document has rules. */
  readonly rule?: string;
  /** The document's index in the input stream (from 0). */
  readonly document: number;
}

/** What one source rule (or whole policy, when it has no rules) became. */
export interface ImportedRule {
  readonly source: ImportSource;
  /** toolkit objects: ClusterImagePolicy/ImagePolicy (toolkit's schema: lib/policy), key Secrets, trust-root ConfigMaps, Namespace labels… Empty when refused. */
  readonly objects: readonly Record<string, unknown>[];
  readonly findings: readonly ImportFinding[];
  /** Set when this rule was refused (a finding of kind "refused" says why). */
  readonly refused: boolean;
}

/** What importers may use besides the document. */
export interface ImportContext {
  /** Namespace for the key Secrets / trust roots of cluster-scoped policies (toolkit's controller namespace). */
  readonly controllerNamespace: string;
  /** Reads a file a source names by path (Connaisseur values can reference files); may be absent. */
  readonly readFile?: (path: string) => Promise<Uint8Array>;
}

/** One source format: which documents it reads and how it converts them. */
export interface PolicyImporter {
  /** e.g. "kyverno-clusterpolicy". */
  readonly name: string;
  /** Whether this importer reads the document (by apiVersion/kind, or shape for Helm values). */
  accepts(document: unknown): boolean;
  /** Converts every rule; never throws for bad input: refuses the rule with a finding. */
  convert(
    document: Record<string, unknown>,
    index: number,
    context: ImportContext,
  ): Promise<readonly ImportedRule[]>;
  /**
   * True when the source applies every matching rule to an image (all must pass), as
   * policy-controller and Kyverno do; toolkit applies only the most specific matching pattern,
   * so {@linkcode importDocuments} reports overlapping patterns of such rules as weaker.
   * Absent: the source, like toolkit, picks one rule per image.
   */
  readonly everyMatchingRuleApplies?: boolean;
}

/** What {@linkcode importDocuments} returns. */
export interface ImportResult {
  readonly rules: readonly ImportedRule[];
  /** The indices of the documents no importer accepts. */
  readonly unknown: readonly number[];
}
