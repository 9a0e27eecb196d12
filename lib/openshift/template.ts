/**
 * OpenShift Templates (`template.openshift.io/v1`): a template's objects with its parameters
 * filled in, as `oc process` does: `${NAME}` inside strings, `${{NAME}}` for a whole non-string
 * value, each parameter from the values given, else its `value`, else generated from its
 * `from` expression (`generate: expression`, character classes with a count such as
 * `[a-zA-Z0-9]{16}`); a required parameter without any is an error.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";
import type { KubeObject, ResourceType } from "../kube/mod.ts";

/** Templates. */
export const TEMPLATES: ResourceType = {
  group: "template.openshift.io",
  version: "v1",
  plural: "templates",
  kind: "Template",
  namespaced: true,
};

/** A template parameter. */
export interface TemplateParameter {
  readonly name: string;
  readonly value?: string;
  readonly generate?: string;
  readonly from?: string;
  readonly required?: boolean;
}

/** A template cannot be processed. */
export class TemplateError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "TemplateError";
  }
}

function generate(expression: string): string {
  let out = "";
  for (const m of expression.matchAll(/\[([^\]]+)\]\{(\d+)\}|([^[]+)/g)) {
    if (m[3]) {
      out += m[3];
      continue;
    }
    const chars: string[] = [];
    const cls = m[1]!;
    for (let i = 0; i < cls.length; i++) {
      if (cls[i + 1] === "-" && i + 2 < cls.length) {
        for (let c = cls.charCodeAt(i); c <= cls.charCodeAt(i + 2); c++) {
          chars.push(String.fromCharCode(c));
        }
        i += 2;
      } else chars.push(cls[i]!);
    }
    const random = crypto.getRandomValues(new Uint32Array(Number(m[2])));
    for (const r of random) out += chars[r % chars.length];
  }
  return out;
}

/** The objects of `template` with its parameters filled in from `values`. */
export function processTemplate(
  template: KubeObject,
  values: Readonly<Record<string, string>> = {},
): KubeObject[] {
  const name = template.metadata.name;
  const params = new Map<string, string>();
  for (const p of (template.parameters ?? []) as TemplateParameter[]) {
    const value = values[p.name] ?? p.value ??
      (p.generate === "expression" && p.from ? generate(p.from) : undefined);
    if (value === undefined || value === "") {
      if (p.required) {
        throw new TemplateError(`Template "${name}" needs a value for its parameter ${p.name}`);
      }
      params.set(p.name, "");
    } else params.set(p.name, value);
  }
  const fill = (node: unknown): unknown => {
    if (typeof node === "string") {
      const whole = /^\$\{\{([A-Za-z0-9_]+)\}\}$/.exec(node);
      if (whole && params.has(whole[1]!)) {
        const text = params.get(whole[1]!)!;
        try {
          return JSON.parse(text);
        } catch {
          return text;
        }
      }
      return node.replace(/\$\{([A-Za-z0-9_]+)\}/g, (m, p: string) => params.get(p) ?? m);
    }
    if (Array.isArray(node)) return node.map(fill);
    if (node && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fill(v)]));
    }
    return node;
  };
  return ((template.objects ?? []) as unknown[]).map((o) => fill(o) as KubeObject);
}
