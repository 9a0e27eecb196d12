/**
 * The checks of a keyless signing certificate's path that `@sigstore/verify` leaves out and
 * cosign makes (Go's `x509.Certificate.Verify` with the code-signing usage, as sigstore-go's
 * `FulcioCertificateAuthority.Verify` calls it):
 *
 * - **Critical extensions**: every certificate of the path (the leaf and the trust root's CA
 *   certificates above it) has only critical extensions that are understood
 *   ({@linkcode UNDERSTOOD_EXTENSIONS}, the ones Go handles). A critical name constraints
 *   extension with a name form that is not checked (a directory name…) counts as not
 *   understood, as in Go.
 * - **Extended key usage**: every certificate of the path that lists extended key usages lists
 *   code signing (or any usage). A leaf without the extension is accepted, as Go and cosign do.
 * - **Name constraints**: the names of each certificate below a CA with name constraints (e-mail
 *   addresses, URIs by their host, DNS names, IP addresses) are within its permitted subtrees
 *   and outside its excluded ones, with Go's matching rules (a constraint `example.com` covers
 *   the name and its subdomains, `.example.com` only subdomains; an e-mail constraint with an `@`
 *   is one mailbox). A URI without a host or with an IP address as its host cannot be matched
 *   and is refused when the path has name constraints.
 *
 * Each refusal says what is wrong and with which certificate.
 *
 * @module
 */
import type { ASN1Obj, X509Certificate } from "@sigstore/core";

const SUBJECT_ALT_NAME = "2.5.29.17";
const NAME_CONSTRAINTS = "2.5.29.30";
const EXT_KEY_USAGE = "2.5.29.37";
const ANY_EXT_KEY_USAGE = "2.5.29.37.0";
/** The code signing extended key usage (RFC 5280 §4.2.1.12). */
export const CODE_SIGNING = "1.3.6.1.5.5.7.3.3";

/** The extensions that may be critical: the ones Go's X.509 parser handles. */
export const UNDERSTOOD_EXTENSIONS: ReadonlySet<string> = new Set([
  "2.5.29.14", // subject key identifier
  "2.5.29.15", // key usage
  SUBJECT_ALT_NAME,
  "2.5.29.19", // basic constraints
  NAME_CONSTRAINTS,
  "2.5.29.31", // CRL distribution points
  "2.5.29.32", // certificate policies
  "2.5.29.33", // policy mappings
  "2.5.29.35", // authority key identifier
  "2.5.29.36", // policy constraints
  EXT_KEY_USAGE,
  "2.5.29.54", // inhibit any policy
  "1.3.6.1.5.5.7.1.1", // authority information access
]);

/** The certificate at `index` of the path, for messages. */
function which(index: number): string {
  return index === 0 ? "its certificate" : `its CA certificate ${index} (from the leaf)`;
}

/** Whether `name` (lower case) is within the domain constraint `constraint`, as Go reads it. */
function withinDomain(name: string, constraint: string): boolean {
  const c = constraint.toLowerCase();
  if (c === "") return true;
  if (!name.endsWith(c)) return false;
  return c.startsWith(".") || name.length === c.length || name[name.length - c.length - 1] === ".";
}

interface Mailbox {
  readonly local: string;
  readonly domain: string;
}

function mailbox(text: string): Mailbox | undefined {
  const at = text.lastIndexOf("@");
  if (at <= 0 || at === text.length - 1) return undefined;
  return { local: text.slice(0, at), domain: text.slice(at + 1).toLowerCase() };
}

function withinEmail(address: Mailbox, constraint: string): boolean {
  if (!constraint.includes("@")) return withinDomain(address.domain, constraint);
  const exact = mailbox(constraint);
  return exact !== undefined && exact.local === address.local && exact.domain === address.domain;
}

function withinIp(address: Uint8Array, constraint: Uint8Array): boolean {
  const half = constraint.length / 2;
  if (address.length !== half) return false;
  for (let i = 0; i < half; i++) {
    if ((address[i]! & constraint[half + i]!) !== (constraint[i]! & constraint[half + i]!)) {
      return false;
    }
  }
  return true;
}

/** The names of a certificate's subject alternative names, by form. */
interface Names {
  readonly email: string[];
  readonly dns: string[];
  readonly uri: string[];
  readonly ip: Uint8Array[];
}

const text = (obj: ASN1Obj) => new TextDecoder().decode(obj.value);

function namesOf(certificate: X509Certificate): Names | undefined {
  const san = certificate.extension(SUBJECT_ALT_NAME);
  if (san === undefined) return undefined;
  const names: Names = { email: [], dns: [], uri: [], ip: [] };
  for (const name of san.valueObj.subs[0]?.subs ?? []) {
    if (name.tag.isContextSpecific(1)) names.email.push(text(name));
    else if (name.tag.isContextSpecific(2)) names.dns.push(text(name));
    else if (name.tag.isContextSpecific(6)) names.uri.push(text(name));
    else if (name.tag.isContextSpecific(7)) names.ip.push(new Uint8Array(name.value));
  }
  return names;
}

interface Subtrees {
  readonly email: string[];
  readonly dns: string[];
  readonly uri: string[];
  readonly ip: Uint8Array[];
  /** A name form that is not checked (a directory name, an otherName…). */
  other: boolean;
}

interface Constraints {
  readonly permitted: Subtrees;
  readonly excluded: Subtrees;
}

function subtrees(obj: ASN1Obj | undefined): Subtrees {
  const out: Subtrees = { email: [], dns: [], uri: [], ip: [], other: false };
  for (const subtree of obj?.subs ?? []) {
    const base = subtree.subs[0];
    if (base === undefined) continue;
    if (base.tag.isContextSpecific(1)) out.email.push(text(base));
    else if (base.tag.isContextSpecific(2)) out.dns.push(text(base));
    else if (base.tag.isContextSpecific(6)) out.uri.push(text(base));
    else if (base.tag.isContextSpecific(7)) out.ip.push(new Uint8Array(base.value));
    else out.other = true;
  }
  return out;
}

function constraintsOf(certificate: X509Certificate): Constraints | undefined {
  const extension = certificate.extension(NAME_CONSTRAINTS);
  if (extension === undefined) return undefined;
  const parts = extension.valueObj.subs[0]?.subs ?? [];
  return {
    permitted: subtrees(parts.find((p) => p.tag.isContextSpecific(0))),
    excluded: subtrees(parts.find((p) => p.tag.isContextSpecific(1))),
  };
}

/** Why `names` break `constraints` of the CA at `caIndex`; undefined when they do not. */
function nameProblem(
  names: Names,
  constraints: Constraints,
  where: string,
  caIndex: number,
): string | undefined {
  const ca = which(caIndex);
  const check = <T>(
    form: string,
    values: readonly T[],
    show: (value: T) => string,
    permitted: readonly string[] | readonly Uint8Array[],
    excluded: readonly string[] | readonly Uint8Array[],
    within: (value: T, constraint: never) => boolean,
  ): string | undefined => {
    for (const value of values) {
      const hit = (excluded as never[]).find((c) => within(value, c));
      if (hit !== undefined) {
        return `${where} names ${form} ${show(value)}, which ${ca}'s name constraints exclude`;
      }
      if (permitted.length > 0 && !(permitted as never[]).some((c) => within(value, c))) {
        return `${where} names ${form} ${
          show(value)
        }, outside the names ${ca}'s name constraints permit`;
      }
    }
    return undefined;
  };
  const { permitted: p, excluded: x } = constraints;
  const emails: Mailbox[] = [];
  for (const email of names.email) {
    const parsed = mailbox(email);
    if (parsed === undefined) {
      return `${where} names e-mail address ${
        JSON.stringify(email)
      }, which cannot be matched against ${ca}'s name constraints`;
    }
    emails.push(parsed);
  }
  const hosts: string[] = [];
  for (const uri of names.uri) {
    let host: string;
    try {
      host = new URL(uri).hostname.toLowerCase();
    } catch {
      host = "";
    }
    if (host === "" || host.startsWith("[") || /^[0-9.]+$/.test(host)) {
      return `${where} names URI ${
        JSON.stringify(uri)
      } without a host name, which cannot be matched against ${ca}'s name constraints`;
    }
    hosts.push(host);
  }
  return check(
    "e-mail address",
    emails,
    (m) => JSON.stringify(`${m.local}@${m.domain}`),
    p.email,
    x.email,
    (m: Mailbox, c: string) => withinEmail(m, c),
  ) ??
    check(
      "URI host",
      hosts,
      (h) => JSON.stringify(h),
      p.uri,
      x.uri,
      (h: string, c: string) => withinDomain(h, c),
    ) ??
    check(
      "DNS name",
      names.dns.map((d) => d.toLowerCase()),
      (d) => JSON.stringify(d),
      p.dns,
      x.dns,
      (d: string, c: string) => withinDomain(d, c),
    ) ??
    check(
      "IP address",
      names.ip,
      (ip) => Array.from(ip).join("."),
      p.ip,
      x.ip,
      (ip: Uint8Array, c: Uint8Array) => withinIp(ip, c),
    );
}

/**
 * Why the path (the leaf first, then each issuer up to the root) is refused, or undefined when
 * it passes the checks of the module.
 */
export function certificatePathProblem(path: readonly X509Certificate[]): string | undefined {
  for (const [index, certificate] of path.entries()) {
    for (const extension of certificate.extensions) {
      const oid = extension.subs[0]!.toOID();
      const critical = extension.subs.length === 3 && extension.subs[1]!.toBoolean();
      if (!critical) continue;
      if (!UNDERSTOOD_EXTENSIONS.has(oid)) {
        return `${which(index)} has a critical extension ${oid} that is not understood`;
      }
      if (oid === NAME_CONSTRAINTS) {
        const constraints = constraintsOf(certificate)!;
        if (constraints.permitted.other || constraints.excluded.other) {
          return `${
            which(index)
          }'s critical name constraints hold a name form that is not checked (only e-mail, URI, DNS and IP constraints are)`;
        }
      }
    }
    const usages = certificate.extension(EXT_KEY_USAGE);
    if (usages !== undefined) {
      const oids = (usages.valueObj.subs[0]?.subs ?? []).map((u) => u.toOID());
      if (!oids.includes(CODE_SIGNING) && !oids.includes(ANY_EXT_KEY_USAGE)) {
        return `${which(index)}'s extended key usage (${
          oids.join(", ") || "none"
        }) does not include code signing (${CODE_SIGNING})`;
      }
    }
  }
  for (let ca = 1; ca < path.length; ca++) {
    const constraints = constraintsOf(path[ca]!);
    if (constraints === undefined) continue;
    for (let below = 0; below < ca; below++) {
      const names = namesOf(path[below]!);
      if (names === undefined) continue;
      const problem = nameProblem(names, constraints, which(below), ca);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/**
 * The paths from `leaf` through the certificates of `chains` (each a trust root CA's chain)
 * to a self-signed root: one per CA whose chain issued the leaf.
 */
export function certificatePaths(
  leaf: X509Certificate,
  chains: readonly (readonly X509Certificate[])[],
): X509Certificate[][] {
  const paths: X509Certificate[][] = [];
  for (const chain of chains) {
    const path = [leaf];
    let current = leaf;
    while (path.length <= chain.length) {
      const issuer = chain.find((c) => c.subject.equals(current.issuer) && safeVerify(current, c));
      if (issuer === undefined || issuer.equals(current)) break;
      path.push(issuer);
      current = issuer;
      if (issuer.subject.equals(issuer.issuer)) break;
    }
    if (path.length > 1) paths.push(path);
  }
  return paths;
}

function safeVerify(certificate: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return certificate.verify(issuer);
  } catch {
    return false;
  }
}
