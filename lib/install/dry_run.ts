/**
 * What `enable --dry-run` prints: the objects of an installation without key material. The
 * private keys a dry run makes (the serving certificate's `tls.key`, the client CA's `ca.key`)
 * are throwaway ones, made only to show the objects whole, and a printed private key is one
 * more copy to leak: their entries are shown, empty, so the shape of each Secret is what an
 * installation creates (and still passes the API server's validation).
 *
 * @module
 */
import type { KubeObject } from "../kube/mod.ts";
import { decodeBase64Text } from "../base64.ts";

/** The objects without private keys, and which entries were emptied. */
export interface ObjectsWithoutKeys {
  /** The objects, every Secret entry holding a private key empty. */
  readonly objects: KubeObject[];
  /** The entries emptied, as `Secret "ns/name" tls.key`. */
  readonly emptied: string[];
}

const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/** Whether a Secret's entry holds a PEM private key: base64 in `data`, text in `stringData`. */
function holdsPrivateKey(value: unknown, encoded: boolean): boolean {
  if (typeof value !== "string" || value === "") return false;
  if (!encoded) return PRIVATE_KEY.test(value);
  try {
    return PRIVATE_KEY.test(decodeBase64Text(value));
  } catch {
    return false;
  }
}

/**
 * `objects` with every Secret entry (`data` or `stringData`) that holds a PEM private key
 * emptied; the other objects as they are.
 */
export function withoutPrivateKeys(objects: readonly KubeObject[]): ObjectsWithoutKeys {
  const emptied: string[] = [];
  const result = objects.map((object) => {
    if (object.kind !== "Secret") return object;
    const name = `${
      object.metadata.namespace ? `${object.metadata.namespace}/` : ""
    }${object.metadata.name}`;
    const copy: KubeObject = { ...object };
    for (const field of ["data", "stringData"] as const) {
      const entries = object[field] as Record<string, unknown> | undefined;
      if (entries === undefined) continue;
      copy[field] = Object.fromEntries(
        Object.entries(entries).map(([key, value]) => {
          if (!holdsPrivateKey(value, field === "data")) return [key, value];
          emptied.push(`Secret "${name}" ${key}`);
          return [key, ""];
        }),
      );
    }
    return copy;
  });
  return { objects: result, emptied };
}
