/**
 * The CEL conformance cases (`@bufbuild/cel-spec`'s copy of cel-spec's test data) of the parts
 * of the language the attestation conditions rely on, run through the environment and the cost
 * estimate of `condition.ts`: strings, comparisons, logic, lists and maps, `has` and field
 * selection, the macros, literals and variables. Cases that need protobuf messages, a container
 * or extension libraries are outside what conditions use and are left out.
 */
import assert from "node:assert/strict";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";
import {
  celEnv,
  celUint,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  parse,
  plan,
} from "@bufbuild/cel";
import type { CelInput } from "@bufbuild/cel";
import { decodeBase64 } from "../base64.ts";
import { estimateCost } from "./cost.ts";
import { jsonShape } from "./shapes.ts";

/** The suites (and their sections) run: what conditions over statements use. */
const SUITES: Readonly<Record<string, readonly string[] | "all">> = {
  basic: "all",
  comparisons: [
    "eq_literal",
    "ne_literal",
    "lt_literal",
    "gt_literal",
    "lte_literal",
    "gte_literal",
    "in_list_literal",
    "in_map_literal",
    "bound",
  ],
  logic: "all",
  lists: "all",
  macros: "all",
  // quoted_map_fields (backquoted field names, a recent CEL addition) is not supported by
  // @bufbuild/cel 0.6.1: a key such as "a/b" is read as `m["a/b"]`.
  fields: ["map_fields", "map_has", "in"],
  string: ["size", "starts_with", "ends_with", "matches", "concatenation", "contains"],
};

type Json = Record<string, unknown>;

/** An ExprValue's `value` (JSON form) as a CEL input, or undefined when it is a message. */
function input(value: Json): CelInput | undefined {
  const [kind, v] = Object.entries(value)[0] ?? [];
  switch (kind) {
    case "int64Value":
      return BigInt(v as string);
    case "uint64Value":
      return celUint(BigInt(v as string));
    case "doubleValue":
      return typeof v === "string" ? Number(v) : v as number;
    case "stringValue":
      return v as string;
    case "bytesValue":
      return decodeBase64(v as string);
    case "boolValue":
      return v as boolean;
    case "nullValue":
      return null;
    case "listValue": {
      const values = ((v as Json).values as Json[] | undefined) ?? [];
      const list = values.map(input);
      return list.some((e) => e === undefined) ? undefined : list as CelInput[];
    }
    case "mapValue": {
      const map = new Map();
      for (const entry of ((v as Json).entries as Json[] | undefined) ?? []) {
        const key = input(entry.key as Json);
        const val = input(entry.value as Json);
        if (key === undefined || val === undefined) return undefined;
        map.set(isCelUint(key) ? key : key, val);
      }
      return map as unknown as CelInput;
    }
    default:
      return undefined;
  }
}

/** A canonical text of a CEL value, to compare results with expected values. */
function canonical(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "bigint") return `int:${value}`;
  if (typeof value === "number") return `double:${Object.is(value, -0) ? 0 : value}`;
  if (typeof value === "string") return `string:${JSON.stringify(value)}`;
  if (typeof value === "boolean") return `bool:${value}`;
  if (value instanceof Uint8Array) return `bytes:${[...value].join(",")}`;
  if (isCelUint(value)) return `uint:${value.value}`;
  if (isCelList(value)) return `[${[...value].map(canonical).join(",")}]`;
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isCelMap(value) || value instanceof Map) {
    const entries = [...(value as Map<unknown, unknown>).entries()].map(([k, v]) =>
      `${canonical(k)}=>${canonical(v)}`
    ).sort();
    return `{${entries.join(",")}}`;
  }
  return `other:${String(value)}`;
}

interface Case {
  readonly path: string;
  readonly original: Json;
}

function collect(suite: { name: string; suites?: unknown[]; tests?: unknown[] }, path: string) {
  const out: Case[] = [];
  for (const t of (suite.tests ?? []) as { original: Json }[]) {
    out.push({ path: `${path}/${t.original.name}`, original: t.original });
  }
  for (const s of (suite.suites ?? []) as { name: string }[]) {
    out.push(...collect(s as never, `${path}/${s.name}`));
  }
  return out;
}

const ENV = celEnv();

for (const suite of tests.suites ?? []) {
  const sections = SUITES[suite.name];
  if (sections === undefined) continue;
  Deno.test(`CEL conformance: ${suite.name}`, () => {
    let ran = 0;
    const failed: string[] = [];
    for (const section of suite.suites ?? []) {
      if (sections !== "all" && !sections.includes(section.name)) continue;
      for (const { path, original } of collect(section, `${suite.name}/${section.name}`)) {
        if (original.container) continue;
        const bindings: Record<string, CelInput> = {};
        let usable = true;
        for (const [name, binding] of Object.entries((original.bindings ?? {}) as Json)) {
          const value = input(((binding as Json).value ?? {}) as Json);
          if (value === undefined) usable = false;
          else bindings[name] = value;
        }
        const expected = original.value === undefined ? undefined : input(original.value as Json);
        if (!usable || (original.value !== undefined && expected === undefined)) continue;
        if (original.value === undefined && original.evalError === undefined) continue;
        ran++;
        let result: unknown;
        try {
          const parsed = parse(original.expr as string);
          // Every case's cost can be estimated (a finite number).
          assert(Number.isFinite(estimateCost(parsed.expr, { x: jsonShape(1024) })));
          result = plan(ENV, parsed)(bindings);
        } catch (error) {
          result = error;
        }
        if (original.evalError !== undefined) {
          if (!(isCelError(result) || result instanceof Error)) failed.push(path);
        } else if (isCelError(result) || canonical(result) !== canonical(expected)) {
          failed.push(`${path}: ${String(result)}`);
        }
      }
    }
    assert(ran > 0);
    assert.deepEqual(failed, [], `${failed.length} of ${ran} cases failed`);
  });
}
