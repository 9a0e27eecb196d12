/**
 * The report of an import: per source rule, converted or refused, the objects it became and
 * every finding with its field path and reason. `--report FILE` writes {@linkcode ImportReport}
 * as JSON; stderr gets {@linkcode formatImportReport}.
 *
 * @module
 */
import { describeSource } from "./objects.ts";
import type { ImportFinding, ImportResult, ImportSource } from "./types.ts";

/** One rule in the report. */
export interface ImportReportRule {
  readonly source: ImportSource;
  readonly status: "converted" | "refused";
  /** `Kind namespace/name` of each object made. */
  readonly objects: readonly string[];
  readonly findings: readonly ImportFinding[];
}

/** The whole report. */
export interface ImportReport {
  readonly converted: number;
  readonly refused: number;
  /** Documents no importer reads, by index in the input stream. */
  readonly unknownDocuments: readonly number[];
  readonly rules: readonly ImportReportRule[];
}

function objectLabel(object: Record<string, unknown>): string {
  const meta = (object.metadata ?? {}) as { name?: string; namespace?: string };
  const name = meta.namespace ? `${meta.namespace}/${meta.name}` : `${meta.name}`;
  return `${object.kind} ${name}`;
}

/** The report of `result`. */
export function importReport(result: ImportResult): ImportReport {
  const rules = result.rules.map((rule): ImportReportRule => ({
    source: rule.source,
    status: rule.refused ? "refused" : "converted",
    objects: rule.objects.map(objectLabel),
    findings: rule.findings,
  }));
  return {
    converted: rules.filter((r) => r.status === "converted").length,
    refused: rules.filter((r) => r.status === "refused").length,
    unknownDocuments: result.unknown,
    rules,
  };
}

/** The report as text, one block per rule, a summary line last. */
export function formatImportReport(report: ImportReport): string {
  const lines: string[] = [];
  for (const rule of report.rules) {
    const made = rule.objects.length ? `: ${rule.objects.join(", ")}` : "";
    lines.push(
      `document ${rule.source.document}: ${describeSource(rule.source)}: ${rule.status}${made}`,
    );
    for (const finding of rule.findings) {
      lines.push(`  ${finding.kind} ${finding.path || "(document)"}: ${finding.reason}`);
    }
  }
  for (const index of report.unknownDocuments) {
    lines.push(`document ${index}: not a policy any importer reads (skipped)`);
  }
  lines.push(
    `${report.converted} converted, ${report.refused} refused, ${report.unknownDocuments.length} documents skipped`,
  );
  return lines.join("\n") + "\n";
}
