/**
 * The sigstore-conformance suite's bundle verification cases (tests/fixtures/sigstore), verified
 * offline with the trust root each case names (or the public-good one): every case whose name
 * ends in `_fail` is refused, every other one verifies.
 */
import assert from "node:assert/strict";
import { parseCosignStatement } from "../signature/cosign_statement.ts";
import { compileIdentities } from "./identities.ts";
import { readSigstorePublicKeys } from "./public_keys.ts";
import { parseTrustRoot } from "./trust_root.ts";
import { type SigstoreTrust, verifySigstoreBundle } from "./verify.ts";

const ROOT = new URL("../../tests/fixtures/sigstore/", import.meta.url);
const CASES = new URL("conformance/", ROOT);
const DEFAULT_IDENTITY =
  "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
const DEFAULT_ISSUER = "https://token.actions.githubusercontent.com";

async function optional(url: URL): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(url);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Verifies one case; resolves with the reason it was refused, or undefined when it verified. */
async function verifyCase(name: string): Promise<string | undefined> {
  const dir = new URL(`${name}/`, CASES);
  const text = (bytes: Uint8Array | undefined) =>
    bytes === undefined ? undefined : new TextDecoder().decode(bytes).trim();
  const rootBytes = await optional(new URL("trusted_root.json", dir)) ??
    await Deno.readFile(new URL("public_good_trusted_root.json", ROOT));
  let trustRoot;
  try {
    trustRoot = await parseTrustRoot(rootBytes, name);
  } catch (error) {
    return (error as Error).message;
  }
  const keyPem = text(await optional(new URL("key.pub", dir)));
  let keys;
  try {
    keys = keyPem === undefined ? undefined : await readSigstorePublicKeys(keyPem);
  } catch (error) {
    return (error as Error).message; // managed-key-wrong-key_fail: not a point on the curve
  }
  const trust: SigstoreTrust = keys !== undefined ? { keys, tlog: "required", trustRoot } : {
    keyless: {
      trustRoot,
      identities: compileIdentities([{
        issuer: text(await optional(new URL("issuer", dir))) ?? DEFAULT_ISSUER,
        subject: text(await optional(new URL("identity", dir))) ?? DEFAULT_IDENTITY,
      }]),
    },
    tlog: "required",
  };
  const artifact = await optional(new URL("artifact", dir)) ??
    await Deno.readFile(new URL("a.txt", CASES));
  const bytes = await Deno.readFile(new URL("bundle.sigstore.json", dir));
  const result = await verifySigstoreBundle(bytes, trust, artifact);
  if (!result.verified) return result.reason;
  // A DSSE envelope's artifact is the statement's subject.
  const json = JSON.parse(new TextDecoder().decode(bytes));
  if (json.dsseEnvelope) {
    const payload = Uint8Array.from(atob(json.dsseEnvelope.payload), (c) => c.charCodeAt(0));
    const subjects = parseStatementSubjects(payload);
    const wanted = `sha256:${await sha256Hex(artifact)}`;
    if (!subjects.includes(wanted)) return `the statement is not about ${wanted}`;
  }
  return undefined;
}

/** The subject digests of a statement of any predicate (the suite's are SLSA provenance). */
function parseStatementSubjects(payload: Uint8Array): string[] {
  try {
    return [...parseCosignStatement(payload).subjectDigests];
  } catch {
    const statement = JSON.parse(new TextDecoder().decode(payload));
    return (statement.subject as { digest: Record<string, string> }[]).flatMap((s) =>
      Object.entries(s.digest).map(([algorithm, hex]) => `${algorithm}:${hex}`)
    );
  }
}

Deno.test("every sigstore-conformance bundle case verifies or is refused as the suite says", async (t) => {
  const names: string[] = [];
  for await (const entry of Deno.readDir(CASES)) if (entry.isDirectory) names.push(entry.name);
  names.sort();
  assert.ok(names.length >= 70, `only ${names.length} cases found`);
  for (const name of names) {
    await t.step(name, async () => {
      const reason = await verifyCase(name);
      if (name.endsWith("_fail")) assert.notEqual(reason, undefined, "verified, but must fail");
      else assert.equal(reason, undefined);
    });
  }
});

Deno.test("verifySigstoreBundle() refuses a public-good bundle for another identity or issuer", async () => {
  const trustRoot = await parseTrustRoot(
    await Deno.readFile(new URL("public_good_trusted_root.json", ROOT)),
    "public good",
  );
  const bytes = await Deno.readFile(new URL("happy-path-v0.3/bundle.sigstore.json", CASES));
  const artifact = await Deno.readFile(new URL("a.txt", CASES));
  for (
    const identity of [
      { issuer: DEFAULT_ISSUER, subject: `${DEFAULT_IDENTITY}x` },
      { issuer: "https://accounts.google.com", subject: DEFAULT_IDENTITY },
      { issuer: DEFAULT_ISSUER, subjectRegExp: "^https://github\\.com/someone-else/" },
    ]
  ) {
    const result = await verifySigstoreBundle(bytes, {
      keyless: { trustRoot, identities: compileIdentities([identity]) },
      tlog: "required",
    }, artifact);
    assert.equal(result.verified, false);
    assert.match(!result.verified ? result.reason : "", /not an accepted identity/);
  }
  const accepted = await verifySigstoreBundle(bytes, {
    keyless: {
      trustRoot,
      identities: compileIdentities([{
        issuer: DEFAULT_ISSUER,
        subjectRegExp:
          "^https://github\\.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/",
      }]),
    },
    tlog: "required",
  }, artifact);
  assert.deepEqual(accepted, {
    verified: true,
    subject: DEFAULT_IDENTITY,
    issuer: DEFAULT_ISSUER,
    signedAt: (accepted as { signedAt?: Date }).signedAt,
  });
});
