/**
 * The Kyverno fixtures (tests/fixtures/import/kyverno) checked against the CRDs of the Kyverno
 * version they come from (the `github.com/kyverno/kyverno@v1.19.1` Go module, which
 * tests/env/provision.sh downloads for its PolicyReport CRDs): each document's version is served,
 * and every field of its spec is one the CRD's schema declares (with the type it declares), so the
 * importers are tested on policies Kyverno itself accepts, not on misspelt ones.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { parseYamlDocuments } from "../../lib/yaml.ts";
import { provisionedDir } from "../env/tools.ts";

const KYVERNO = "github.com/kyverno/kyverno@v1.19.1";
const FIXTURES = new URL("../fixtures/import/kyverno/", import.meta.url);
const CRD_FILES: Record<string, string> = {
  ClusterPolicy: "kyverno/kyverno.io_clusterpolicies.yaml",
  Policy: "kyverno/kyverno.io_policies.yaml",
  ImageValidatingPolicy: "policies.kyverno.io/policies.kyverno.io_imagevalidatingpolicies.yaml",
  NamespacedImageValidatingPolicy:
    "policies.kyverno.io/policies.kyverno.io_namespacedimagevalidatingpolicies.yaml",
};

function crdRoot(): string | undefined {
  const dir = `${dirname(provisionedDir())}/go/mod/${KYVERNO}/config/crds`;
  try {
    return Deno.statSync(dir).isDirectory ? dir : undefined;
  } catch {
    return undefined;
  }
}

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
};

/** The fields of `value` that `schema` does not declare, or declares with another type. */
function problems(value: unknown, schema: Schema, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  if (schema["x-kubernetes-int-or-string"]) {
    if (typeof value !== "string" && typeof value !== "number") {
      out.push(`${path}: not int-or-string`);
    }
    return;
  }
  const type = schema.type;
  if (type === "object" || schema.properties) {
    if (typeof value !== "object" || Array.isArray(value)) {
      return void out.push(`${path}: not an object`);
    }
    if (schema["x-kubernetes-preserve-unknown-fields"] && !schema.properties) return;
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const declared = schema.properties?.[key] ??
        (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
      if (declared) problems(child, declared, `${path}.${key}`, out);
      else if (
        !schema["x-kubernetes-preserve-unknown-fields"] && schema.additionalProperties !== true
      ) {
        out.push(`${path}.${key}: not in the CRD's schema`);
      }
    }
  } else if (type === "array") {
    if (!Array.isArray(value)) return void out.push(`${path}: not a list`);
    value.forEach((item, i) => schema.items && problems(item, schema.items, `${path}[${i}]`, out));
  } else if (type === "string" && typeof value !== "string") {
    out.push(`${path}: not a string`);
  } else if (type === "boolean" && typeof value !== "boolean") {
    out.push(`${path}: not a boolean`);
  } else if ((type === "integer" || type === "number") && typeof value !== "number") {
    out.push(`${path}: not a number`);
  }
}

async function fixtureDocuments(): Promise<[string, Record<string, unknown>][]> {
  const out: [string, Record<string, unknown>][] = [];
  const visit = async (dir: URL): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await visit(url);
      else if (entry.name.endsWith(".yaml")) {
        for (const doc of parseYamlDocuments(await Deno.readTextFile(url))) {
          const o = doc as Record<string, unknown>;
          if (o && typeof o.kind === "string" && o.kind in CRD_FILES) out.push([url.pathname, o]);
        }
      }
    }
  };
  await visit(FIXTURES);
  return out;
}

const root = crdRoot();

Deno.test({
  name:
    "every Kyverno fixture is a served version and declares only fields of Kyverno v1.19.1's CRDs",
  ignore: root === undefined && Deno.env.get("CI") !== "true",
  fn: async () => {
    assert.ok(
      root,
      `the ${KYVERNO} module is not in the Go module cache: run tests/env/provision.sh`,
    );
    const versions = new Map<string, Map<string, { served: boolean; schema: Schema }>>();
    for (const [kind, file] of Object.entries(CRD_FILES)) {
      const [crd] = parseYamlDocuments(await Deno.readTextFile(`${root}/${file}`)) as {
        spec: {
          versions: { name: string; served: boolean; schema: { openAPIV3Schema: Schema } }[];
        };
      }[];
      versions.set(
        kind,
        new Map(
          crd!.spec.versions.map((
            v,
          ) => [v.name, { served: v.served, schema: v.schema.openAPIV3Schema }]),
        ),
      );
    }
    const documents = await fixtureDocuments();
    assert.ok(documents.length >= 100, `${documents.length} documents`);
    const found: string[] = [];
    for (const [file, doc] of documents) {
      const version = String(doc.apiVersion).split("/")[1] ?? "";
      const entry = versions.get(String(doc.kind))?.get(version);
      if (!entry?.served) {
        found.push(`${file}: ${doc.apiVersion} ${doc.kind} is not served`);
        continue;
      }
      const out: string[] = [];
      problems(doc.spec, entry.schema.properties?.spec ?? {}, "spec", out);
      found.push(...out.map((p) => `${file}: ${p}`));
    }
    assert.deepEqual(found, []);
  },
});
