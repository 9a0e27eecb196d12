/**
 * The world the admission fuzz test runs in (test helper, not exported from `mod.ts`): real
 * OpenPGP keys (valid, unknown, revoked, expired), real simple-signing signatures, a registry
 * that serves manifests by tag and digest for a few registry hosts, a lookaside store of the
 * signatures over HTTP, and the policy worlds the reviews are decided under.
 *
 * Everything runs in-process. The registry is {@linkcode serve} of `tests/fakes/loopback_server.ts`
 * with a small manifest handler, the lookaside store is {@linkcode serveDirectory} of
 * `tests/fakes/static_file_server.ts`, and a `fetch` given to the verifier stands in for DNS: it
 * sends every request for a registry host to the loopback registry, whatever the spelling of the
 * host (case, port with leading zeros, `:443`, a trailing dot, `registry-1.docker.io`), the way
 * the network would. That makes the network as permissive as it can be, so that any admission
 * the oracle disagrees with is reachable.
 *
 * The registry also serves OCI indexes (platforms signed or not, a BuildKit attestation manifest)
 * and, as cosign stores them (the `.att` tag of a digest, its layers as blobs; an empty referrers
 * list), OpenPGP-signed DSSE attestations whose predicate is `{builder}`: the `attested/*` rules
 * ask for {@linkcode FUZZ_PREDICATE_TYPE} with `predicate.builder == "good"`, the `multi/*` rules
 * for a signature, each world with its own `multiArch` and `platforms` (issues #35, #36).
 *
 * Each policy world is described twice: as Portieris-style policy documents for the code under
 * test, and as plain {@linkcode ScopeRule}s (host, repository prefix or name, tag prefix) that the
 * oracle reads without going through the policy matcher.
 *
 * @module
 */
import * as nodeCrypto from "node:crypto";
import * as openpgp from "openpgp";
import { computeDigest } from "../../lib/registry/digest.ts";
import { OCI_INDEX, OCI_MANIFEST } from "../../lib/registry/media_types.ts";
import { encodeBase64 } from "../../lib/base64.ts";
import { dssePae } from "../../lib/signature/mod.ts";
import { cosignLayout } from "../fakes/cosign_registry.ts";
import { serve, type TestServer } from "../fakes/loopback_server.ts";
import { generateKeyPair, signImage } from "../../lib/signing/mod.ts";
import { parseRegistriesYaml, type RegistriesD } from "../../lib/lookaside/mod.ts";
import { serveDirectory, type StaticServer } from "../fakes/static_file_server.ts";
import { parsePolicyManifests, type PolicyDocuments } from "../../lib/admission/file_source.ts";
import { loadAttestationConditions } from "../../lib/policy/mod.ts";

/**
 * The names of the keys in the world: OpenPGP keys, and the PEM (ECDSA P-256) keys `P` and
 * `P-unknown` that only attestations use (an attestation key Secret holds PEM and OpenPGP keys).
 */
export type KeyName =
  | "A"
  | "B"
  | "unknown"
  | "revoked"
  | "expired"
  | "A-revoked"
  | "P"
  | "P-unknown";

/**
 * Keys whose signatures the oracle counts as valid when a policy trusts them (the others are
 * unknown, revoked or expired). `A-revoked` is key A's public key with a revocation: a Secret that
 * holds it no longer trusts A's signatures, although the fingerprint is the same.
 */
export const VALID_KEYS: ReadonlySet<KeyName> = new Set<KeyName>(["A", "B", "P"]);

/** The registries of the world, by canonical host. */
export const REGISTRIES = [
  "registry.example.com",
  "localhost:5000",
  "127.0.0.1:5001",
  "docker.io",
] as const;

/** One of {@linkcode REGISTRIES}. */
export type Registry = typeof REGISTRIES[number];

/** Registries reached over plain HTTP. */
export const INSECURE_REGISTRIES: readonly string[] = ["localhost:5000", "127.0.0.1:5001"];

/** What a signature vouches for (by meaning, wherever it is stored). */
export interface SignatureRecord {
  readonly registry: Registry;
  /** The repository path of the signed identity (`signed/app`). */
  readonly repository: string;
  /** The signed digest. */
  readonly digest: string;
  /** The key that made it. */
  readonly key: KeyName;
}

/** The predicate type of the attestations the `attested/*` rules ask for. */
export const FUZZ_PREDICATE_TYPE = "https://fuzz.toolkit.dev/build/v1";

/** Another predicate type (stored, never asked for). */
export const OTHER_PREDICATE_TYPE = "https://fuzz.toolkit.dev/other/v1";

/**
 * The one condition of the `attested/*` rules the oracle understands: the predicate's `builder`
 * field is `"good"`.
 */
export const GOOD_BUILDER = "good";

/** What an attestation (an OpenPGP-signed DSSE envelope in cosign's `.att` tag) states. */
export interface AttestationRecord {
  readonly registry: Registry;
  readonly repository: string;
  /** The statement's subject digest (the digest it is stored under). */
  readonly digest: string;
  readonly key: KeyName;
  readonly predicateType: string;
  /** `predicate.builder`. */
  readonly builder: string;
}

/** One attestation of a catalogue image or platform. */
interface CatalogueAttestation {
  readonly type: string;
  readonly builder: string;
  readonly key: KeyName;
}

/** One manifest an index of the catalogue lists. */
interface CataloguePlatform {
  /** `os/architecture[/variant]`, or `unknown/unknown` with `buildkit`. */
  readonly platform: string;
  /** Keys that sign the platform's digest (lookaside, identity of the index's tag). */
  readonly signedBy: readonly KeyName[];
  readonly attestations?: readonly CatalogueAttestation[];
  /** A BuildKit attestation manifest (`vnd.docker.reference.type: attestation-manifest`). */
  readonly buildkit?: boolean;
}

/** A manifest an index of the world lists, as the oracle reads it. */
export interface IndexEntry {
  readonly platform: string;
  readonly digest: string;
  /** A BuildKit attestation manifest: never counts. */
  readonly buildkit: boolean;
}

/** One image of the catalogue: what the registry serves and what is stored beside it. */
interface CatalogueImage {
  readonly repository: string;
  readonly tag: string;
  /** How it is signed: the key and the identity (default: itself), or a special store. */
  readonly signatures: readonly CatalogueSignature[];
  /** Its attestations (cosign's `.att` tag of its digest). */
  readonly attestations?: readonly CatalogueAttestation[];
  /** When set, the image is an OCI index of these manifests. */
  readonly platforms?: readonly CataloguePlatform[];
}

type CatalogueSignature =
  | {
    readonly kind: "signed";
    readonly key: KeyName;
    readonly identity?: string;
    /**
     * Stored where the webhook never reads it: after more than an image's read budget of
     * padding, after an oversized signature, or behind a redirect loop. The oracle does not count
     * it (no signature record).
     */
    readonly unreachable?: boolean;
  }
  /** Random bytes of this size (a hostile store's padding). */
  | { readonly kind: "padding"; readonly bytes: number }
  /** The signature of another image (another digest), stored under this one, as is and corrupted. */
  | { readonly kind: "misplaced"; readonly of: string; readonly corrupt: boolean }
  /** Random bytes. */
  | { readonly kind: "garbage" };

/** Attestations of the build predicate type by key A: good, and bad. */
const GOOD_A: CatalogueAttestation = { type: FUZZ_PREDICATE_TYPE, builder: GOOD_BUILDER, key: "A" };
const BAD_A: CatalogueAttestation = { type: FUZZ_PREDICATE_TYPE, builder: "bad", key: "A" };

/**
 * Attested images and multi-platform indexes (issues #35, #36): `attested/*` is guarded by an
 * `attestation` requirement, `multi/*` by `signedBy`, each with the world's `multiArch` rule.
 */
const ATTESTED_AND_MULTI: readonly CatalogueImage[] = [
  { repository: "attested/app", tag: "1", signatures: [], attestations: [GOOD_A] },
  { repository: "attested/bad", tag: "1", signatures: [], attestations: [BAD_A] },
  {
    repository: "attested/unknown",
    tag: "1",
    signatures: [],
    attestations: [{ ...GOOD_A, key: "unknown" }],
  },
  {
    repository: "attested/other",
    tag: "1",
    signatures: [{ kind: "signed", key: "A" }],
    attestations: [{ ...GOOD_A, type: OTHER_PREDICATE_TYPE }],
  },
  {
    repository: "attested/mixed",
    tag: "1",
    signatures: [],
    attestations: [BAD_A, { ...GOOD_A, key: "B" }, { ...GOOD_A, key: "revoked" }],
  },
  { repository: "attested/none", tag: "1", signatures: [{ kind: "signed", key: "A" }] },
  { repository: "attested/pem", tag: "1", signatures: [], attestations: [{ ...GOOD_A, key: "P" }] },
  {
    repository: "attested/pem",
    tag: "2",
    signatures: [],
    attestations: [{ ...GOOD_A, key: "P-unknown" }, { ...BAD_A, key: "P" }],
  },
  {
    repository: "attested/index",
    tag: "1",
    signatures: [],
    attestations: [BAD_A],
    platforms: [
      { platform: "linux/amd64", signedBy: [], attestations: [GOOD_A] },
      { platform: "linux/arm64", signedBy: [], attestations: [GOOD_A] },
    ],
  },
  {
    repository: "attested/index",
    tag: "2",
    signatures: [],
    attestations: [GOOD_A],
    platforms: [
      { platform: "linux/amd64", signedBy: [], attestations: [GOOD_A] },
      { platform: "linux/arm64", signedBy: [], attestations: [BAD_A] },
    ],
  },
  {
    repository: "multi/all",
    tag: "1",
    signatures: [{ kind: "signed", key: "A" }],
    platforms: [
      { platform: "linux/amd64", signedBy: ["A"] },
      { platform: "linux/arm64", signedBy: ["A"] },
      { platform: "unknown/unknown", signedBy: [], buildkit: true },
    ],
  },
  {
    repository: "multi/index",
    tag: "1",
    signatures: [{ kind: "signed", key: "A" }],
    platforms: [
      { platform: "linux/amd64", signedBy: [] },
      { platform: "linux/arm64", signedBy: [] },
    ],
  },
  {
    repository: "multi/platforms",
    tag: "1",
    signatures: [],
    platforms: [
      { platform: "linux/amd64", signedBy: ["A"] },
      { platform: "linux/arm64", signedBy: ["B", "unknown"] },
    ],
  },
  {
    // Admitted by its platforms' signatures by A only: where one namespace's rule trusts A and
    // another's does not (the rotated-key world), a platform verdict must not carry over.
    repository: "multi/trap",
    tag: "1",
    signatures: [],
    platforms: [
      { platform: "linux/amd64", signedBy: ["A"] },
      { platform: "linux/arm64", signedBy: ["A"] },
    ],
  },
  {
    repository: "multi/half",
    tag: "1",
    signatures: [{ kind: "signed", key: "B" }],
    platforms: [
      { platform: "linux/amd64", signedBy: ["A"] },
      { platform: "linux/arm64", signedBy: [] },
      { platform: "linux/arm/v7", signedBy: ["revoked"] },
    ],
  },
];

/** Repositories and tags every registry serves, and their signatures. */
const CATALOGUE: readonly CatalogueImage[] = [
  { repository: "signed/app", tag: "1", signatures: [{ kind: "signed", key: "A" }] },
  { repository: "signed/app", tag: "latest", signatures: [{ kind: "signed", key: "A" }] },
  { repository: "signed/app", tag: "v1", signatures: [{ kind: "signed", key: "B" }] },
  { repository: "signed/app", tag: "v2", signatures: [{ kind: "signed", key: "A" }] },
  { repository: "signed/unsigned", tag: "1", signatures: [] },
  { repository: "signed/unsigned", tag: "v1", signatures: [] },
  { repository: "signed/unknown", tag: "1", signatures: [{ kind: "signed", key: "unknown" }] },
  { repository: "signed/revoked", tag: "1", signatures: [{ kind: "signed", key: "revoked" }] },
  { repository: "signed/expired", tag: "1", signatures: [{ kind: "signed", key: "expired" }] },
  {
    repository: "signed/misplaced",
    tag: "1",
    signatures: [
      { kind: "misplaced", of: "signed/app:1", corrupt: false },
      { kind: "misplaced", of: "signed/app:1", corrupt: true },
    ],
  },
  {
    repository: "signed/corrupt",
    tag: "1",
    signatures: [{ kind: "misplaced", of: "signed/app:latest", corrupt: true }, {
      kind: "garbage",
    }],
  },
  {
    repository: "signed/wrongid",
    tag: "1",
    signatures: [{ kind: "signed", key: "A", identity: "signed/app:1" }],
  },
  {
    repository: "signed/multi",
    tag: "1",
    signatures: [{ kind: "garbage" }, { kind: "signed", key: "unknown" }, {
      kind: "signed",
      key: "A",
    }],
  },
  { repository: "tagonly/app", tag: "1", signatures: [] },
  { repository: "tagonly/app", tag: "v1", signatures: [] },
  { repository: "tagonly/app", tag: "v2", signatures: [{ kind: "signed", key: "A" }] },
  { repository: "open/tool", tag: "1", signatures: [] },
  { repository: "iaa/tool", tag: "1", signatures: [] },
  { repository: "library/signedbox", tag: "1", signatures: [] },
  { repository: "library/signedbox", tag: "2", signatures: [{ kind: "signed", key: "A" }] },
  // Hostile stores (issue #21): sizes, counts and redirects. An image's reads are bounded (1 MiB
  // in all, 256 KiB a signature), so what lies beyond does not count.
  {
    repository: "signed/buried",
    tag: "1",
    signatures: [
      { kind: "padding", bytes: 100 * 1024 },
      { kind: "padding", bytes: 100 * 1024 },
      { kind: "signed", key: "A" },
    ],
  },
  {
    repository: "signed/flooded",
    tag: "1",
    signatures: [
      ...Array.from({ length: 11 }, () => ({ kind: "padding", bytes: 100 * 1024 } as const)),
      { kind: "signed", key: "A", unreachable: true },
    ],
  },
  {
    repository: "signed/oversized",
    tag: "1",
    signatures: [
      { kind: "padding", bytes: 300 * 1024 },
      { kind: "signed", key: "A", unreachable: true },
    ],
  },
  {
    repository: "signed/many",
    tag: "1",
    signatures: Array.from({ length: 130 }, () => ({ kind: "padding", bytes: 64 } as const)),
  },
  { repository: "signed/redirected", tag: "1", signatures: [{ kind: "signed", key: "A" }] },
  {
    repository: "signed/looped",
    tag: "1",
    signatures: [{ kind: "signed", key: "A", unreachable: true }],
  },
  ...ATTESTED_AND_MULTI,
];

/** Lookaside requests for these repositories are redirected twice; for `looped`, forever. */
const REDIRECTED_REPOSITORIES = ["signed/redirected", "signed/looped"];

/** What the oracle reads of a policy world: which images need which keys. */
export interface ScopeRule {
  /** The canonical registry. */
  readonly registry: Registry;
  /** Repositories starting with this path (`signed/`). */
  readonly repositoryPrefix?: string;
  /** Exactly this repository. */
  readonly repository?: string;
  /** Only tags starting with this (a tag-scoped pattern); digest-only references are not in scope. */
  readonly tagPrefix?: string;
  /**
   * `signed`: a signature by one of `keys`; `attested`: an attestation of
   * {@linkcode FUZZ_PREDICATE_TYPE} by one of `keys` whose builder is {@linkcode GOOD_BUILDER};
   * `open`: no checks; `accept`: insecureAcceptAnything.
   */
  readonly rule: "signed" | "attested" | "open" | "accept";
  /** For `signed` and `attested`: what an index must have (docs/admission.md). @default "index" */
  readonly multiArch?: "index" | "everyPlatform" | "either";
  /** The platforms that count (with `multiArch` other than `index`); undefined: all. */
  readonly platforms?: readonly string[];
  /** The keys that may sign (for `signed`). */
  readonly keys: readonly KeyName[];
  /** Whether admitted images are pinned. */
  readonly mutate: boolean;
}

/** A policy world: the documents and what the oracle knows of them. */
export interface PolicyWorld {
  /** A short name for messages. */
  readonly name: string;
  /** The generator classes this world belongs to (see `KNOWN_OPEN_CLASSES`). */
  readonly classes: readonly string[];
  /** The documents for the policy source. */
  readonly documents: PolicyDocuments;
  /** The cluster-wide rules (namespaces without an ImagePolicy). */
  readonly cluster: readonly ScopeRule[];
  /** The rules of namespaces that have ImagePolicies. */
  readonly namespaced: ReadonlyMap<string, readonly ScopeRule[]>;
}

/** Namespaces that are exempt: the controller's own and one labelled exempt. */
export const EXEMPT_NAMESPACES: ReadonlySet<string> = new Set(["toolkit-system", "sandbox"]);

/** The controller's namespace. */
export const CONTROLLER_NAMESPACE = "toolkit-system";

/** A value the generator puts in objects (an env var): it must never appear in a log line or an answer. */
export const OBJECT_SECRET = "fuzz-object-env-secret-51c0";

/** The password of the world's pull Secret: it must never appear in a log line or an answer. */
export const PULL_SECRET_PASSWORD = "fuzz-pull-password-7f3a9c";

/** The running world. */
export interface FuzzWorld extends AsyncDisposable {
  /** The verifier's fetch (DNS to the loopback servers). */
  readonly fetch: typeof fetch;
  /** registries.d: the lookaside store of each registry. */
  readonly registriesD: RegistriesD;
  /** The policy worlds. */
  readonly worlds: readonly PolicyWorld[];
  /** Tag → digest, by `registry/repository:tag`. */
  readonly tags: ReadonlyMap<string, string>;
  /** The `registry/repository:tag` entries that a signature by key A or no policy admits. */
  readonly favoured: readonly string[];
  /** Every manifest digest the registries serve, by `registry/repository`. */
  readonly digests: ReadonlyMap<string, readonly string[]>;
  /** The meanings of all stored signatures (of images, indexes and platform manifests). */
  readonly signatures: readonly SignatureRecord[];
  /** The meanings of all stored attestations. */
  readonly attestations: readonly AttestationRecord[];
  /** What each index lists, by the index's digest. */
  readonly indexes: ReadonlyMap<string, readonly IndexEntry[]>;
  /** Strings that must never appear in a log line or an answer (private keys, passwords). */
  readonly secrets: readonly string[];
  /** The time signatures are verified at. */
  readonly clock: () => Date;
  /** The registry's request log, cleared now and then in long runs. */
  readonly registry: TestServer;
  /** Stops the servers and removes the lookaside directory. */
  stop(): Promise<void>;
}

const encoder = new TextEncoder();

/** The one repository that needs the pull Secret (Basic auth). */
const PRIVATE_REPOSITORY = "localhost:5000/signed/multi";
const PULL_AUTHORIZATION = `Basic ${btoa(`fuzz:${PULL_SECRET_PASSWORD}`)}`;

/** `localhost:5000` → `localhost_5000`: a directory and URL path segment. */
function registryDir(registry: Registry): string {
  return registry.replace(":", "_");
}

/**
 * The canonical registry host of a host as it would be dialled: lower case (WHATWG URL host
 * parsing, which also drops leading zeros of the port and `:443` for https), one trailing dot
 * dropped, Docker Hub's aliases to `docker.io`. Undefined when the text is no host at all.
 */
export function canonicalRegistry(host: string): string | undefined {
  // Characters that would end the host in a URL (userinfo, path, query, fragment) are not a host.
  if (host === "" || /[\s/?#@%\\]/.test(host) || [...host].some((c) => c < " ")) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(`https://${host}/`);
  } catch {
    return undefined;
  }
  if (url.username !== "" || url.password !== "" || url.pathname !== "/") return undefined;
  const hostname = url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname;
  const port = url.port === "" || url.port === "443" ? "" : `:${url.port}`;
  const name = `${hostname}${port}`;
  if (["docker.io", "index.docker.io", "registry-1.docker.io"].includes(name)) return "docker.io";
  return name;
}

function manifestBytes(registry: Registry, repository: string, tag: string): Uint8Array {
  const hex = (s: string) =>
    Array.from(encoder.encode(s)).map((b) => b.toString(16).padStart(2, "0")).join("")
      .padEnd(64, "0").slice(0, 64);
  return encoder.encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: `sha256:${hex(`${registry}/${repository}:${tag}`)}`,
      size: 2,
    },
    layers: [],
    annotations: { "fuzz.image": `${registry}/${repository}:${tag}` },
  }));
}

interface KeyPairs {
  /** Armoured OpenPGP private keys. */
  readonly privateKeys: Map<KeyName, string>;
  /** Public keys as a key Secret holds them: armoured OpenPGP, or PEM. */
  readonly publicKeys: Map<KeyName, string>;
  /** The PEM keys' private keys. */
  readonly pemKeys: Map<KeyName, nodeCrypto.KeyObject>;
}

async function makeKeys(created: Date): Promise<KeyPairs> {
  const privateKeys = new Map<KeyName, string>();
  const publicKeys = new Map<KeyName, string>();
  const clock = () => created;
  for (const name of ["A", "B", "unknown", "revoked", "expired"] as const) {
    const pair = await generateKeyPair({
      name: `fuzz ${name}`,
      type: "ed25519",
      clock,
      ...(name === "expired" ? { keyExpirationTime: 3600 } : {}),
    });
    privateKeys.set(name, pair.privateKeyArmored);
    publicKeys.set(name, pair.publicKeyArmored);
  }
  const revokedKey = await openpgp.readPrivateKey({ armoredKey: privateKeys.get("revoked")! });
  const { publicKey } = await openpgp.revokeKey({
    key: revokedKey,
    date: new Date(created.getTime() + 120_000),
    format: "armored",
  });
  publicKeys.set("revoked", publicKey);
  const a = await openpgp.readPrivateKey({ armoredKey: privateKeys.get("A")! });
  const revokedA = await openpgp.revokeKey({
    key: a,
    date: new Date(created.getTime() + 180_000),
    format: "armored",
  });
  publicKeys.set("A-revoked", revokedA.publicKey);
  const pemKeys = new Map<KeyName, nodeCrypto.KeyObject>();
  for (const name of ["P", "P-unknown"] as const) {
    const pair = nodeCrypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
    pemKeys.set(name, pair.privateKey);
    publicKeys.set(name, pair.publicKey.export({ type: "spki", format: "pem" }).toString());
  }
  return { privateKeys, publicKeys, pemKeys };
}

function base64(text: string): string {
  return btoa(String.fromCharCode(...encoder.encode(text)));
}

function keySecret(name: string, keys: readonly KeyName[], pairs: KeyPairs): unknown {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name },
    data: { key: base64(keys.map((k) => pairs.publicKeys.get(k)!).join("\n")) },
  };
}

/** Writes the policy documents of one world from its rules. */
function policyDocument(
  kind: "ClusterImagePolicy" | "ImagePolicy",
  name: string,
  rules: readonly { pattern: string; rule: ScopeRule | "catch-all" }[],
  secretFor: (keys: readonly KeyName[]) => string,
  namespace?: string,
): unknown {
  return {
    apiVersion: "toolkit.dev/v1",
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      repositories: rules.map(({ pattern, rule }) => {
        if (rule === "catch-all" || rule.rule === "open") return { name: pattern, policy: {} };
        if (rule.rule === "accept") {
          return {
            name: pattern,
            policy: { simple: { requirements: [{ type: "insecureAcceptAnything" }] } },
          };
        }
        const scope = {
          ...(rule.multiArch ? { multiArch: rule.multiArch } : {}),
          ...(rule.platforms ? { platforms: rule.platforms } : {}),
        };
        const requirement = rule.rule === "attested"
          ? {
            type: "attestation",
            predicateType: FUZZ_PREDICATE_TYPE,
            keySecret: secretFor(rule.keys),
            conditions: [{
              name: "good-builder",
              expression: `predicate.builder == "${GOOD_BUILDER}"`,
              message: "not built by the good builder",
            }],
            ...scope,
          }
          : { type: "signedBy", keySecret: secretFor(rule.keys), ...scope };
        return {
          name: pattern,
          policy: {
            ...(rule.mutate ? {} : { mutateImage: false }),
            simple: { requirements: [requirement] },
          },
        };
      }),
    },
  };
}

/** How a world writes the registry part of its patterns. */
type PatternSpelling = "canonical" | "variant";

function patternHost(registry: Registry, spelling: PatternSpelling): string {
  if (spelling === "canonical") return registry;
  switch (registry) {
    case "registry.example.com":
      return "Registry.Example.COM:443";
    case "localhost:5000":
      return "LOCALHOST:05000";
    case "127.0.0.1:5001":
      return "127.0.0.1:05001";
    case "docker.io":
      return "index.docker.io";
  }
}

/** The rules of one registry and the patterns they are written as. */
function registryRules(
  registry: Registry,
  spelling: PatternSpelling,
  signers: readonly KeyName[],
  mutate: boolean,
  scope: Pick<ScopeRule, "multiArch" | "platforms">,
  attestors: readonly KeyName[] = signers,
): { pattern: string; rule: ScopeRule }[] {
  const host = patternHost(registry, spelling);
  const rules: { pattern: string; rule: ScopeRule }[] = [
    {
      pattern: `${host}/signed/*`,
      rule: { registry, repositoryPrefix: "signed/", rule: "signed", keys: signers, mutate },
    },
    {
      pattern: `${host}/signed/app:v*`,
      rule: {
        registry,
        repository: "signed/app",
        tagPrefix: "v",
        rule: "signed",
        keys: ["B"],
        mutate: true,
      },
    },
    {
      pattern: `${host}/tagonly/app:v*`,
      rule: {
        registry,
        repository: "tagonly/app",
        tagPrefix: "v",
        rule: "signed",
        keys: signers,
        mutate: true,
      },
    },
    {
      pattern: `${host}/attested/*`,
      rule: {
        registry,
        repositoryPrefix: "attested/",
        rule: "attested",
        keys: attestors,
        mutate,
        ...scope,
      },
    },
    {
      pattern: `${host}/multi/*`,
      rule: {
        registry,
        repositoryPrefix: "multi/",
        rule: "signed",
        keys: signers,
        mutate,
        ...scope,
      },
    },
    {
      pattern: `${host}/open/*`,
      rule: { registry, repositoryPrefix: "open/", rule: "open", keys: [], mutate: false },
    },
    {
      pattern: `${host}/iaa/*`,
      rule: { registry, repositoryPrefix: "iaa/", rule: "accept", keys: [], mutate: true },
    },
  ];
  if (registry === "docker.io") {
    // A bare pattern is a Docker Hub official image.
    rules.push({
      pattern: "signedbox",
      rule: {
        registry,
        repository: "library/signedbox",
        rule: "signed",
        keys: signers,
        mutate,
      },
    });
  }
  return rules;
}

interface WorldSpec {
  readonly name: string;
  readonly classes: readonly string[];
  readonly spelling: PatternSpelling;
  /** The keys of the cluster's signer Secret (key rotation changes them). */
  readonly signers: readonly KeyName[];
  /** The keys of the strict namespace's ImagePolicy. @default ["A"] */
  readonly strictSigners?: readonly KeyName[];
  readonly mutate: boolean;
  /** The keys of the `attested/*` rules' Secret. @default signers */
  readonly attestors?: readonly KeyName[];
  /** The `multiArch` and `platforms` of the `attested/*` and `multi/*` rules. */
  readonly scope: Pick<ScopeRule, "multiArch" | "platforms">;
}

const WORLD_SPECS: readonly WorldSpec[] = [
  {
    name: "canonical",
    classes: [],
    spelling: "canonical",
    signers: ["A", "revoked", "expired"],
    attestors: ["A", "P", "revoked"],
    mutate: true,
    scope: {},
  },
  {
    name: "no-pinning",
    classes: [],
    spelling: "canonical",
    signers: ["A", "revoked", "expired"],
    mutate: false,
    scope: { multiArch: "everyPlatform" },
  },
  {
    name: "rotated-key",
    classes: [],
    spelling: "canonical",
    signers: ["B", "revoked"],
    mutate: true,
    scope: { multiArch: "either" },
  },
  {
    // Key A revoked in place: the same fingerprint, so only the key material tells.
    name: "revoked-in-place",
    classes: ["revoked-in-place"],
    spelling: "canonical",
    signers: ["A-revoked", "expired"],
    strictSigners: ["A-revoked"],
    mutate: true,
    scope: { multiArch: "everyPlatform", platforms: ["linux/amd64"] },
  },
  {
    name: "pattern-spelling",
    classes: ["pattern-spelling"],
    spelling: "variant",
    signers: ["A", "revoked", "expired"],
    mutate: true,
    scope: { multiArch: "either", platforms: ["linux/arm64", "linux/s390x"] },
  },
  {
    name: "multi-arch",
    classes: [],
    spelling: "canonical",
    signers: ["A", "B"],
    strictSigners: ["A", "B"],
    attestors: ["B", "P"],
    mutate: true,
    scope: { multiArch: "everyPlatform", platforms: ["linux/amd64", "linux/arm64"] },
  },
];

/** The namespace whose ImagePolicy replaces the cluster policies. */
export const STRICT_NAMESPACE = "strict";

function buildWorld(spec: WorldSpec, pairs: KeyPairs, base: PolicyDocuments): PolicyWorld {
  const secretNames = new Map<string, KeyName[]>();
  const secretFor = (keys: readonly KeyName[]) => {
    const name = `keys-${keys.join("-").toLowerCase()}`;
    secretNames.set(name, [...keys]);
    return name;
  };
  const cluster = REGISTRIES.flatMap((r) =>
    registryRules(r, spec.spelling, spec.signers, spec.mutate, spec.scope, spec.attestors)
  );
  // The strict namespace's ImagePolicy: the same repositories, always pinned, and its own catch-all.
  const strictSigners = spec.strictSigners ?? ["A"];
  const strict = REGISTRIES.flatMap((r) =>
    registryRules(r, spec.spelling, strictSigners, true, spec.scope)
  );
  const catchAll = { pattern: "*", rule: "catch-all" as const };
  const docs = [
    policyDocument("ClusterImagePolicy", "default", [...cluster, catchAll], secretFor),
    policyDocument("ImagePolicy", "strict", [...strict, catchAll], secretFor, STRICT_NAMESPACE),
    ...[...secretNames].map(([name, keys]) => keySecret(name, keys, pairs)),
  ];
  const parsed = parsePolicyManifests(
    docs.map((d) => JSON.stringify(d)).join("\n---\n"),
    `world-${spec.name}.yaml`,
    { groups: ["toolkit.dev"] },
  );
  return {
    name: spec.name,
    classes: spec.classes,
    documents: {
      policies: parsed.policies,
      secrets: [...parsed.secrets, ...base.secrets],
      serviceAccounts: base.serviceAccounts,
      namespaces: base.namespaces,
    },
    cluster: cluster.map((r) => r.rule),
    namespaced: new Map([[STRICT_NAMESPACE, strict.map((r) => r.rule)]]),
  };
}

/** The documents every world shares: the exempt namespace, a pull Secret and its ServiceAccount. */
function baseDocuments(): PolicyDocuments {
  const auths = {
    auths: {
      "localhost:5000": { auth: btoa(`fuzz:${PULL_SECRET_PASSWORD}`) },
    },
  };
  return parsePolicyManifests(
    [
      {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "sandbox", labels: { "toolkit.dev/image-security": "exempt" } },
      },
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "regcred" },
        type: "kubernetes.io/dockerconfigjson",
        data: { ".dockerconfigjson": base64(JSON.stringify(auths)) },
      },
      {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "builder" },
        imagePullSecrets: [{ name: "regcred" }],
      },
    ].map((d) => JSON.stringify(d)).join("\n---\n"),
    "world-base.yaml",
    { groups: ["toolkit.dev"] },
  );
}

/** Flips, truncates or extends signature bytes (deterministically, from `salt`). */
function corrupt(bytes: Uint8Array, salt: number): Uint8Array {
  const copy = bytes.slice();
  switch (salt % 3) {
    case 0:
      for (let i = 0; i < 4; i++) {
        const at = (salt * 7919 + i * 104729) % copy.length;
        copy[at] = copy[at]! ^ (1 << (i + salt) % 8);
      }
      return copy;
    case 1:
      return copy.slice(0, Math.max(1, Math.floor(copy.length * 0.6)));
    default:
      return Uint8Array.from([...copy, 0x00, 0xff, 0x13]);
  }
}

/** An OpenPGP-signed DSSE envelope of an in-toto statement about `digest` (toolkit's attestations). */
async function signAttestation(
  pairs: KeyPairs,
  subject: string,
  digest: string,
  attestation: CatalogueAttestation,
  signedAt: Date,
): Promise<Uint8Array> {
  const payloadType = "application/vnd.in-toto+json";
  const payload = encoder.encode(JSON.stringify({
    _type: "https://in-toto.io/Statement/v1",
    subject: [{ name: subject, digest: { sha256: digest.slice("sha256:".length) } }],
    predicateType: attestation.type,
    predicate: { builder: attestation.builder },
  }));
  const pae = dssePae(payloadType, payload);
  const pem = pairs.pemKeys.get(attestation.key);
  const sig = pem !== undefined
    ? new Uint8Array(nodeCrypto.sign("sha256", pae, pem))
    : await openpgp.sign({
      message: await openpgp.createMessage({ binary: pae }),
      signingKeys: await openpgp.readPrivateKey({
        armoredKey: pairs.privateKeys.get(attestation.key)!,
      }),
      detached: true,
      format: "binary",
      date: signedAt,
    }) as Uint8Array;
  return encoder.encode(JSON.stringify({
    payloadType,
    payload: encodeBase64(payload),
    signatures: [{ keyid: "", sig: encodeBase64(sig) }],
  }));
}

/**
 * What every world of a process serves: keys, manifests, signatures and attestations. Signing is
 * most of a world's start, so it is done once per process ({@linkcode startFuzzWorld} memoises it);
 * nothing mutates it afterwards.
 */
interface WorldMaterial {
  readonly pairs: KeyPairs;
  readonly manifests: ReadonlyMap<string, ReadonlyMap<string, Uint8Array>>;
  readonly tags: ReadonlyMap<string, string>;
  readonly digests: ReadonlyMap<string, readonly string[]>;
  readonly indexes: ReadonlyMap<string, readonly IndexEntry[]>;
  readonly indexDigests: ReadonlySet<string>;
  readonly attTags: ReadonlyMap<string, string>;
  readonly registryBlobs: ReadonlyMap<string, Uint8Array>;
  readonly signatures: readonly SignatureRecord[];
  readonly attestations: readonly AttestationRecord[];
  /** The lookaside store's files: path under its root → bytes. */
  readonly lookasideFiles: ReadonlyMap<string, Uint8Array>;
}

async function buildMaterial(): Promise<WorldMaterial> {
  const created = new Date(Date.now() - 7 * 24 * 3600_000);
  const signedAt = new Date(created.getTime() + 60_000);
  const pairs = await makeKeys(created);
  const lookasideFiles = new Map<string, Uint8Array>();

  const manifests = new Map<string, Map<string, Uint8Array>>(); // registry/repo → digest → bytes
  const tags = new Map<string, string>(); // registry/repo:tag → digest
  const indexes = new Map<string, IndexEntry[]>(); // index digest → what it lists
  const indexDigests = new Set<string>(); // digests served as OCI indexes
  const attTags = new Map<string, string>(); // registry/repo:sha256-<hex>.att → digest
  const registryBlobs = new Map<string, Uint8Array>(); // digest → bytes (attestation layers)
  const attestations: AttestationRecord[] = [];
  const store = (repo: string, digest: string, bytes: Uint8Array) => {
    let byDigest = manifests.get(repo);
    if (!byDigest) manifests.set(repo, byDigest = new Map());
    byDigest.set(digest, bytes);
  };
  const writeLookaside = (
    registry: Registry,
    repository: string,
    digest: string,
    stored: readonly Uint8Array[],
  ) => {
    const dir = `${registryDir(registry)}/${repository}@${digest.replace(":", "=")}`;
    for (const [i, blob] of stored.entries()) lookasideFiles.set(`${dir}/signature-${i + 1}`, blob);
  };
  /** Stores the attestations of `digest` as cosign does (the `.att` tag) and records them. */
  const attest = async (
    registry: Registry,
    repository: string,
    digest: string,
    list: readonly CatalogueAttestation[],
  ) => {
    if (list.length === 0) return;
    const repo = `${registry}/${repository}`;
    const stored = [];
    for (const a of list) {
      const payload = await signAttestation(
        pairs,
        repo,
        digest,
        a,
        signedAt,
      );
      stored.push({
        format: "legacy" as const,
        payload,
        annotations: { predicateType: a.type },
        where: "",
      });
      attestations.push({
        registry,
        repository,
        digest,
        key: a.key,
        predicateType: a.type,
        builder: a.builder,
      });
    }
    const layout = await cosignLayout(digest, stored, { attestationType: FUZZ_PREDICATE_TYPE });
    for (const [d, bytes] of layout.blobs) registryBlobs.set(d, bytes);
    for (const [d, object] of layout.manifests) {
      store(repo, d, object.bytes);
      if (object.tag !== undefined) attTags.set(`${repo}:${object.tag}`, d);
    }
  };
  const digests = new Map<string, string[]>();
  const signatures: SignatureRecord[] = [];
  const blobs = new Map<string, Uint8Array>(); // registry/repo:tag → its signature by its key

  for (const registry of REGISTRIES) {
    for (const image of CATALOGUE) {
      const repo = `${registry}/${image.repository}`;
      let bytes = manifestBytes(registry, image.repository, image.tag);
      if (image.platforms !== undefined) {
        const entries: IndexEntry[] = [];
        const listed = [];
        for (const p of image.platforms) {
          const platformBytes = manifestBytes(
            registry,
            image.repository,
            `${image.tag}@${p.platform}`,
          );
          const platformDigest = await computeDigest(platformBytes);
          store(repo, platformDigest, platformBytes);
          entries.push({
            platform: p.platform,
            digest: platformDigest,
            buildkit: p.buildkit === true,
          });
          const [os, architecture, variant] = p.platform.split("/");
          listed.push({
            mediaType: OCI_MANIFEST,
            digest: platformDigest,
            size: platformBytes.byteLength,
            platform: { os, architecture, ...(variant ? { variant } : {}) },
            ...(p.buildkit
              ? { annotations: { "vnd.docker.reference.type": "attestation-manifest" } }
              : {}),
          });
        }
        bytes = encoder.encode(JSON.stringify({
          schemaVersion: 2,
          mediaType: OCI_INDEX,
          manifests: listed,
          annotations: { "fuzz.image": `${repo}:${image.tag}` },
        }));
        const digest = await computeDigest(bytes);
        indexes.set(digest, entries);
        indexDigests.add(digest);
      }
      const digest = await computeDigest(bytes);
      store(repo, digest, bytes);
      tags.set(`${repo}:${image.tag}`, digest);
      digests.set(repo, [...digests.get(repo) ?? [], digest]);
    }
    let salt = 1;
    for (const image of CATALOGUE) {
      const repo = `${registry}/${image.repository}`;
      const digest = tags.get(`${repo}:${image.tag}`)!;
      const stored: Uint8Array[] = [];
      for (const signature of image.signatures) {
        if (signature.kind === "garbage") {
          stored.push(crypto.getRandomValues(new Uint8Array(40 + salt++ * 13)));
          continue;
        }
        if (signature.kind === "padding") {
          stored.push(new Uint8Array(signature.bytes).fill(0x20 + (salt++ % 64)));
          continue;
        }
        if (signature.kind === "misplaced") {
          const other = blobs.get(`${registry}/${signature.of}`);
          if (!other) throw new Error(`the catalogue signs ${signature.of} after its use`);
          stored.push(signature.corrupt ? corrupt(other, salt++) : other);
          continue;
        }
        const identity = `${registry}/${signature.identity ?? `${image.repository}:${image.tag}`}`;
        const blob = await signImage({
          privateKey: pairs.privateKeys.get(signature.key)!,
          dockerReference: identity,
          manifestDigest: digest,
          clock: () => signedAt,
        });
        blobs.set(`${repo}:${image.tag}`, blob);
        if (!signature.unreachable) {
          signatures.push({
            registry,
            repository: (signature.identity ?? image.repository).replace(/:.*$/, ""),
            digest,
            key: signature.key,
          });
        }
        stored.push(blob);
      }
      writeLookaside(registry, image.repository, digest, stored);
      await attest(registry, image.repository, digest, image.attestations ?? []);
      for (const [i, p] of (image.platforms ?? []).entries()) {
        const platformDigest = indexes.get(digest)![i]!.digest;
        const platformSignatures: Uint8Array[] = [];
        for (const key of p.signedBy) {
          platformSignatures.push(
            await signImage({
              privateKey: pairs.privateKeys.get(key)!,
              dockerReference: `${repo}:${image.tag}`,
              manifestDigest: platformDigest,
              clock: () => signedAt,
            }),
          );
          signatures.push({
            registry,
            repository: image.repository,
            digest: platformDigest,
            key,
          });
        }
        writeLookaside(registry, image.repository, platformDigest, platformSignatures);
        await attest(registry, image.repository, platformDigest, p.attestations ?? []);
      }
    }
  }
  return {
    pairs,
    manifests,
    tags,
    digests,
    indexes,
    indexDigests,
    attTags,
    registryBlobs,
    signatures,
    attestations,
    lookasideFiles,
  };
}

let material: Promise<WorldMaterial> | undefined;

/** Builds and starts the world. */
export async function startFuzzWorld(): Promise<FuzzWorld> {
  const {
    pairs,
    manifests,
    tags,
    digests,
    indexes,
    indexDigests,
    attTags,
    registryBlobs,
    signatures,
    attestations,
    lookasideFiles,
  } = await (material ??= buildMaterial());
  const root = await Deno.makeTempDir({ prefix: "toolkit-fuzz-lookaside-" });
  for (const [path, bytes] of lookasideFiles) {
    await Deno.mkdir(`${root}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeFile(`${root}/${path}`, bytes);
  }

  const lookaside: StaticServer = serveDirectory(root);
  const registryServer = serve((request) => {
    const url = new URL(request.url);
    const slash = url.pathname.indexOf("/", 1);
    const host = decodeURIComponent(url.pathname.slice(1, slash));
    const path = url.pathname.slice(slash);
    if (host === "redirect") {
      // /redirect/<hops left>/<lookaside URL>: redirects until no hop is left (or forever).
      const [hops, ...rest] = path.slice(1).split("/");
      const target = decodeURIComponent(rest.join("/"));
      const left = hops === "loop" ? "loop" : String(Number(hops) - 1);
      const next = left === "0"
        ? target
        : `http://${url.host}/redirect/${left}/${encodeURIComponent(target)}`;
      return new Response(null, { status: 302, headers: { location: next } });
    }
    if (path === "/v2/" || path === "/v2") return Response.json({});
    const blob = /^\/v2\/(.+)\/blobs\/([^/]+)$/.exec(path);
    if (blob && registryBlobs.has(decodeURIComponent(blob[2]!))) {
      return new Response(
        registryBlobs.get(decodeURIComponent(blob[2]!)) as Uint8Array<ArrayBuffer>,
      );
    }
    if (/^\/v2\/(.+)\/referrers\/([^/]+)$/.test(path)) {
      // A registry with the referrers API and no referrers (attestations are in `.att` tags).
      return Response.json({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: [] }, {
        headers: { "content-type": OCI_INDEX },
      });
    }
    const match = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(path);
    if (!match || (request.method !== "GET" && request.method !== "HEAD")) {
      return Response.json({ errors: [{ code: "UNSUPPORTED" }] }, { status: 404 });
    }
    const repo = `${host}/${match[1]}`;
    if (
      repo === PRIVATE_REPOSITORY && request.headers.get("authorization") !== PULL_AUTHORIZATION
    ) {
      return Response.json({ errors: [{ code: "UNAUTHORIZED" }] }, {
        status: 401,
        headers: { "www-authenticate": 'Basic realm="fuzz"' },
      });
    }
    const reference = decodeURIComponent(match[2]!);
    const digest = reference.includes(":")
      ? reference
      : tags.get(`${repo}:${reference}`) ?? attTags.get(`${repo}:${reference}`);
    const bytes = digest === undefined ? undefined : manifests.get(repo)?.get(digest);
    if (bytes === undefined || digest === undefined) {
      return Response.json({ errors: [{ code: "MANIFEST_UNKNOWN" }] }, { status: 404 });
    }
    const headers = {
      "content-type": indexDigests.has(digest) ? OCI_INDEX : OCI_MANIFEST,
      "docker-content-digest": digest,
      "content-length": String(bytes.byteLength),
    };
    return new Response(request.method === "HEAD" ? null : bytes as Uint8Array<ArrayBuffer>, {
      headers,
    });
  });

  const lookasideHost = new URL(lookaside.url).host;
  const dns: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.host === lookasideHost) {
      const redirected = REDIRECTED_REPOSITORIES.find((r) => url.pathname.includes(`/${r}@`));
      if (redirected === undefined) return fetch(input, init);
      const hops = redirected === "signed/looped" ? "loop" : "2";
      return fetch(
        `http://${registryServer.host}/redirect/${hops}/${encodeURIComponent(url.href)}`,
        init,
      );
    }
    const registry = canonicalRegistry(url.host);
    if (registry === undefined || !(REGISTRIES as readonly string[]).includes(registry)) {
      return Promise.reject(new TypeError(`dns error: no such host "${url.host}"`));
    }
    const target = `http://${registryServer.host}/${
      encodeURIComponent(registry)
    }${url.pathname}${url.search}`;
    return fetch(target, init);
  };

  const registriesD = parseRegistriesYaml(
    `docker:\n${
      REGISTRIES.map((r) => `  "${r}":\n    lookaside: ${lookaside.url}/${registryDir(r)}\n`)
        .join("")
    }`,
    "fuzz-registries.yaml",
  );

  // The `attested/*` rules' CEL condition is compiled as the policies are validated.
  await loadAttestationConditions();
  const base = baseDocuments();
  const worlds = WORLD_SPECS.map((spec) => buildWorld(spec, pairs, base));
  const stop = async () => {
    await registryServer.stop();
    await lookaside.stop();
    await Deno.remove(root, { recursive: true });
  };
  return {
    fetch: dns,
    registriesD,
    worlds,
    tags,
    favoured: [...tags.keys()].filter((entry) =>
      /\/(?:signed\/app:(?:1|latest)|signed\/multi:1|tagonly\/app:v2|library\/signedbox:2|open\/tool:1|iaa\/tool:1|attested\/index:1|multi\/all:1)$/
        .test(entry)
    ),
    digests,
    signatures,
    attestations,
    indexes,
    secrets: [...pairs.privateKeys.values()].map((armored) =>
      armored.split("\n").find((line) => line.length > 60) ?? armored
    ).concat(
      [...pairs.pemKeys.values()].map((key) =>
        key.export({ type: "pkcs8", format: "pem" }).toString().split("\n")[1]!
      ),
      [PULL_SECRET_PASSWORD, btoa(`fuzz:${PULL_SECRET_PASSWORD}`), OBJECT_SECRET],
    ),
    clock: () => new Date(),
    registry: registryServer,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
