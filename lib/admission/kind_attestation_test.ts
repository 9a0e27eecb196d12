import assert from "node:assert/strict";
import * as nodeCrypto from "node:crypto";
import * as openpgp from "openpgp";
import { encodeBase64 } from "../base64.ts";
import { parseReference } from "../image/mod.ts";
import type { AttestationRequirement } from "../policy/mod.ts";
import { createRegistryClient, type StoredCosignSignature } from "../registry/mod.ts";
import { readBudget } from "../read_budget.ts";
import { dssePae, readPublicKeys } from "../signature/mod.ts";
import { readSigstorePublicKeys } from "../sigstore/mod.ts";
import { generateKeyPair } from "../signing/mod.ts";
import { PolicyConfigError } from "./errors.ts";
import { attestationKind } from "./kind_attestation.ts";
import { trustedKeys } from "./keys.ts";
import { sigstoreKeySet } from "./sigstore_material.ts";
import type { ImageToVerify, KindServices } from "./requirement_kind.ts";
import { fakeMatch, fakePlanContext, fakeServices } from "../../tests/fakes/requirement_kinds.ts";
import { pullCredentials } from "./credentials.ts";
import { filePolicySource } from "./file_source.ts";
import { createImageVerifier } from "./verifier.ts";
import {
  cosignLayout,
  mergeLayouts,
  serveReferrersRegistry,
} from "../../tests/fakes/cosign_registry.ts";
import {
  bundleSignature,
  cosignPayload,
  cosignStatement,
  legacySignature,
} from "../../tests/fakes/sigstore_instance.ts";
import { countRoundTrips } from "../../tests/fakes/round_trips.ts";
import { CosignListings } from "../registry/mod.ts";
import { cosignDockerReference } from "../signature/mod.ts";
import { sigstoreSignedKind } from "./kind_sigstore_signed.ts";
import { verifyKinds } from "./kind_dispatch.ts";

const SLSA = "https://slsa.dev/provenance/v1";
const SPDX = "https://spdx.dev/Document";
const DIGEST = `sha256:${"ab".repeat(32)}`;
const PAYLOAD_TYPE = "application/vnd.in-toto+json";

function statement(predicateType: string, predicate: unknown, digest = DIGEST): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({
    _type: "https://in-toto.io/Statement/v1",
    subject: [{ name: "registry.example/team/app", digest: { sha256: digest.slice(7) } }],
    predicateType,
    predicate,
  }));
}

const provenance = (repository: string) => ({
  buildDefinition: {
    buildType: "https://toolkit.dev/tekton/image-build/v1",
    externalParameters: { repository, revision: "main" },
  },
  runDetails: { builder: { id: "https://tekton.example/cluster" } },
});

function envelope(payload: Uint8Array, sigs: Uint8Array[], keyid = ""): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({
    payloadType: PAYLOAD_TYPE,
    payload: encodeBase64(payload),
    signatures: sigs.map((sig) => ({ keyid, sig: encodeBase64(sig) })),
  }));
}

const pemPair = nodeCrypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
const otherPem = nodeCrypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
const pemOf = (pair: typeof pemPair) =>
  pair.publicKey.export({ type: "spki", format: "pem" }).toString();

function pemSigned(payload: Uint8Array, pair = pemPair): StoredCosignSignature {
  const sig = nodeCrypto.sign("sha256", dssePae(PAYLOAD_TYPE, payload), pair.privateKey);
  return { format: "legacy", payload: envelope(payload, [sig]), annotations: {}, where: "" };
}

const gpg = await generateKeyPair({ name: "Builder", email: "builder@example.com" });

async function gpgSigned(payload: Uint8Array): Promise<StoredCosignSignature> {
  const privateKey = await openpgp.readPrivateKey({ armoredKey: gpg.privateKeyArmored });
  const message = await openpgp.createMessage({ binary: dssePae(PAYLOAD_TYPE, payload) });
  const sig = await openpgp.sign({
    message,
    signingKeys: privateKey,
    detached: true,
    format: "binary",
  }) as Uint8Array;
  return { format: "legacy", payload: envelope(payload, [sig]), annotations: {}, where: "" };
}

/**
 * Services whose key Secrets hold the PEM key (`pem`) or the OpenPGP key (`gpg`), read as the
 * CLI reads them; `withBoth`: through the attestation key source, whose Secret `both` holds both.
 */
async function services(withBoth = false): Promise<KindServices> {
  const { services } = fakeServices();
  const pem = await sigstoreKeySet(await readSigstorePublicKeys(pemOf(pemPair)));
  const pgp = await trustedKeys(await readPublicKeys(gpg.publicKeyArmored));
  const all: KindServices = {
    ...services,
    clock: () => new Date(),
    sigstoreKeys: {
      sigstoreKeys: (_namespace, name) =>
        name === "pem" ? Promise.resolve(pem) : Promise.reject(
          new PolicyConfigError(`Cannot use key Secret "${name}": not PEM`),
        ),
    },
    attestationKeys: {
      attestationKeys: (_namespace, name) =>
        name === "both"
          ? Promise.resolve({ pem, pgp, id: `${pem.id}/${pgp.id}` })
          : Promise.reject(new PolicyConfigError(`Cannot use key Secret "${name}": no keys`)),
    },
    keys: {
      keys: (_namespace, name) =>
        name === "gpg" ? Promise.resolve(pgp) : Promise.reject(
          new PolicyConfigError(`Cannot use key Secret "${name}": not OpenPGP`),
        ),
    },
  };
  if (withBoth) return all;
  const { attestationKeys: _, ...without } = all;
  return without;
}

/** Serves `stored` attestations (of `type`, legacy `.att` layers) and verifies with `requirements`. */
async function verify(
  requirements: AttestationRequirement[],
  stored: { type: string; attestations: StoredCosignSignature[] }[],
  withBoth = false,
) {
  // One `.att` manifest holds every legacy attestation, a layer each (the layer's
  // predicateType annotation is not relied on).
  const all = stored.flatMap((s) => s.attestations);
  const layout = await cosignLayout(DIGEST, all, { attestationType: stored[0]?.type ?? SLSA });
  await using server = serveReferrersRegistry({ layout });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const s = await services(withBoth);
  const context = fakePlanContext(s);
  const plans = await Promise.all(requirements.map((r) => attestationKind.plan(r, context)));
  const image: ImageToVerify = {
    reference: parseReference(`${server.host}/team/app:1`),
    digest: DIGEST,
    client,
    store: () => Promise.resolve(undefined),
    signal: new AbortController().signal,
    budget: readBudget(16 * 1024 * 1024),
  };
  return await attestationKind.verify(plans, image, s);
}

const FROM_TEAM_APP = {
  name: "from-our-repo",
  expression:
    'predicate.buildDefinition.externalParameters.repository == "https://git.example/team/app"',
  message: "built from a repository other than team/app",
};

const requirement = (
  fields: Partial<AttestationRequirement> = {},
): AttestationRequirement => ({
  type: "attestation",
  predicateType: SLSA,
  keySecret: "pem",
  conditions: [FROM_TEAM_APP],
  ...fields,
});

Deno.test("attestationKind admits an attestation signed with a PEM key whose conditions hold", async () => {
  const outcome = await verify([requirement()], [{
    type: SLSA,
    attestations: [pemSigned(statement(SLSA, provenance("https://git.example/team/app")))],
  }]);
  assert.equal(outcome.allowed, true);
});

Deno.test("attestationKind admits an attestation signed with an OpenPGP key (toolkit's)", async () => {
  const outcome = await verify([requirement({ keySecret: "gpg" })], [{
    type: SLSA,
    attestations: [await gpgSigned(statement(SLSA, provenance("https://git.example/team/app")))],
  }]);
  assert.deepEqual(outcome.allowed, true);
});

Deno.test("attestationKind denies, naming the predicate type and the condition", async () => {
  const other = [pemSigned(statement(SLSA, provenance("https://git.example/team/other")))];
  assert.deepEqual(await verify([requirement()], [{ type: SLSA, attestations: other }]), {
    allowed: false,
    cause: "policy",
    reason:
      `attestation ${SLSA}: condition "from-our-repo" is false: built from a repository other than team/app`,
  });
  const { message: _, ...plain } = FROM_TEAM_APP;
  assert.deepEqual(
    await verify([requirement({ conditions: [plain] })], [{ type: SLSA, attestations: other }]),
    {
      allowed: false,
      cause: "policy",
      reason: `attestation ${SLSA}: condition "from-our-repo" is false`,
    },
  );
  // No attestation at all, or only of another type.
  assert.deepEqual(await verify([requirement()], []), {
    allowed: false,
    cause: "policy",
    reason: `attestation ${SLSA}: no attestation of type ${SLSA} exists`,
  });
  const sbom = [pemSigned(statement(SPDX, { name: "sbom" }))];
  assert.deepEqual(
    await verify([requirement()], [{ type: SPDX, attestations: sbom }]),
    {
      allowed: false,
      cause: "policy",
      reason: `attestation ${SLSA}: no attestation of type ${SLSA} exists`,
    },
  );
});

Deno.test("attestationKind denies a wrong key and a tampered statement", async () => {
  const good = provenance("https://git.example/team/app");
  const wrongKey = await verify([requirement()], [{
    type: SLSA,
    attestations: [pemSigned(statement(SLSA, good), otherPem)],
  }]);
  assert.equal(wrongKey.allowed, false);
  assert.match(
    (wrongKey as { reason: string }).reason,
    /^attestation https:\/\/slsa\.dev\/provenance\/v1: no attestation of type https:\/\/slsa\.dev\/provenance\/v1 is signed by a key of Secret toolkit-system\/pem \(layer sha256:[0-9a-f]{64} of sha256-[0-9a-f]{64}\.att: the envelope's signature does not verify with the PEM key of the requirement\)$/,
  );
  // The signature of one statement, the payload of another.
  const signed = pemSigned(statement(SLSA, good));
  const json = JSON.parse(new TextDecoder().decode((signed as { payload: Uint8Array }).payload));
  json.payload = encodeBase64(statement(SLSA, provenance("https://git.example/evil/app")));
  const tampered: StoredCosignSignature = {
    format: "legacy",
    payload: new TextEncoder().encode(JSON.stringify(json)),
    annotations: {},
    where: "",
  };
  const outcome = await verify([requirement()], [{ type: SLSA, attestations: [tampered] }]);
  assert.equal(outcome.allowed, false);
  assert.match((outcome as { reason: string }).reason, /is signed by a key of Secret/);
  // The statement of another image.
  const otherImage = await verify([requirement()], [{
    type: SLSA,
    attestations: [pemSigned(statement(SLSA, good, `sha256:${"cd".repeat(32)}`))],
  }]);
  assert.match((otherImage as { reason: string }).reason, /its statement's subject is sha256:cdcd/);
});

Deno.test("attestationKind binds several attestations in one condition", async () => {
  const both = {
    type: SLSA,
    attestations: [
      pemSigned(statement(SLSA, provenance("https://git.example/team/app"))),
      pemSigned(statement(SPDX, { name: "sbom-of-app" })),
    ],
  };
  const withSbom = requirement({
    conditions: [{
      name: "has-sbom",
      expression: `attestations["${SPDX}"].exists(s, s.predicate.name == "sbom-of-app")`,
    }],
  });
  assert.equal((await verify([withSbom], [both])).allowed, true);
  const withOtherSbom = requirement({
    conditions: [{
      name: "has-sbom",
      expression:
        `"${SPDX}" in attestations && attestations["${SPDX}"].exists(s, s.predicate.name == "x")`,
    }],
  });
  assert.deepEqual(await verify([withOtherSbom], [both]), {
    allowed: false,
    cause: "policy",
    reason: `attestation ${SLSA}: condition "has-sbom" is false`,
  });
});

Deno.test("attestationKind.plan() refuses what it cannot use, naming the policy", async () => {
  const context = fakePlanContext(await services());
  await assert.rejects(
    attestationKind.plan(requirement({ keySecret: "neither" }), context),
    (e: unknown) =>
      e instanceof PolicyConfigError &&
      e.message.startsWith(
        'Cannot use ClusterImagePolicy "p": an attestation requirement of "registry.example/*" has no usable key in Secret toolkit-system/neither',
      ),
  );
  await assert.rejects(
    attestationKind.plan(
      requirement({
        conditions: [{
          name: "too-costly",
          expression: "predicate.a.all(x, predicate.a.all(y, predicate.a.all(z, x == y)))",
        }],
      }),
      context,
    ),
    /an attestation requirement of "registry.example\/\*" is refused: Cannot use the CEL condition "too-costly": its estimated cost \d+ is more than the limit 10000000/,
  );
  const plan = await attestationKind.plan(requirement(), context);
  assert.match(attestationKind.planKey(plan), /^key:sha256:[0-9a-f]{64}\/-\/optional\/-\//);
});

Deno.test("attestationKind reads one Secret of PEM and OpenPGP keys: either signs", async () => {
  const good = statement(SLSA, provenance("https://git.example/team/app"));
  for (const signed of [pemSigned(good), await gpgSigned(good)]) {
    const outcome = await verify([requirement({ keySecret: "both" })], [{
      type: SLSA,
      attestations: [signed],
    }], true);
    assert.equal(outcome.allowed, true, JSON.stringify(outcome));
  }
});

/**
 * A policy source whose cluster Secret `pem` holds pemPair's public key, and a verifier of the
 * registry at `host` reading it.
 */
function pemVerifier(host: string) {
  const source = filePolicySource({
    policies: [],
    secrets: [{
      metadata: { name: "pem", namespace: "toolkit-system" },
      data: { key: encodeBase64(new TextEncoder().encode(pemOf(pemPair))) },
    }],
    serviceAccounts: [],
    namespaces: [],
  });
  const verifier = createImageVerifier({
    source,
    clusterKeyNamespace: "toolkit-system",
    insecureRegistries: [host],
    flightTimeoutMs: 10_000,
    verdictCache: { ttlMs: 60_000, maxEntries: 10 },
    digestCache: { ttlMs: 60_000, maxEntries: 10 },
  });
  return { source, verifier };
}

Deno.test("the verifier verifies a policy of attestation requirements only: no attestation, denied (never admitted for want of a signature requirement)", async () => {
  const empty = await cosignLayout(DIGEST, []);
  await using server = serveReferrersRegistry({ layout: empty });
  const { source, verifier } = pemVerifier(server.host);
  for (const mutateImage of [true, false]) {
    const verdict = await verifier.verify({
      reference: parseReference(`${server.host}/team/app@${DIGEST}`),
      match: {
        ...fakeMatch(),
        policy: { mutateImage, simple: { requirements: [requirement()] } },
      },
      namespace: "dev",
      credentials: () => pullCredentials(source, "dev", [], "default"),
    });
    assert.deepEqual(verdict, {
      allowed: false,
      reason: `attestation ${SLSA}: no attestation of type ${SLSA} exists`,
      cause: "policy",
      digest: DIGEST,
    });
  }
});

/**
 * An image signed with cosign (legacy `.sig` with the payload `cosign sign` writes, or a bundle
 * referrer) and attested (`.att` layer or bundle referrer, or not) with the same PEM key, on the
 * stand-in registry (referrers API and fallback index).
 */
async function signedAndAttested(
  attested: "none" | "legacy" | "bundle",
  signed: "legacy" | "bundle" = "legacy",
) {
  const key = { ...pemPair, publicPem: pemOf(pemPair) };
  const layout = { blobs: new Map(), manifests: new Map() } as Awaited<
    ReturnType<typeof cosignLayout>
  >;
  const server = serveReferrersRegistry({ layout });
  const signature = signed === "legacy"
    ? legacySignature({
      signer: { key },
      payload: cosignPayload(cosignDockerReference(server.host, "team/app"), DIGEST),
    })
    : bundleSignature({ signer: { key }, statement: cosignStatement(DIGEST) });
  const provenanceOfApp = statement(SLSA, provenance("https://git.example/team/app"));
  const attestations = attested === "legacy"
    ? [pemSigned(provenanceOfApp)]
    : attested === "bundle"
    ? [bundleSignature({ signer: { key }, statement: provenanceOfApp })]
    : [];
  const filled = mergeLayouts(
    await cosignLayout(DIGEST, [signature]),
    await cosignLayout(DIGEST, attestations, { attestationType: SLSA }),
  );
  for (const [d, b] of filled.blobs) layout.blobs.set(d, b);
  for (const [d, m] of filled.manifests) layout.manifests.set(d, m);
  return server;
}

Deno.test("an attestation beside a signature: its round trips overlap the signature's, the referrers listed once", async () => {
  const s = await services();
  const context = fakePlanContext(s);
  const signatureGroup = {
    kind: sigstoreSignedKind,
    plans: [await sigstoreSignedKind.plan({ type: "sigstoreSigned", keySecret: "pem" }, context)],
  };
  const attestationGroup = {
    kind: attestationKind,
    plans: [await attestationKind.plan(requirement(), context)],
  };
  const counted: Record<string, { roundTrips: number; requests: string[] }> = {};
  const cases = [
    ["legacy", "none"],
    ["legacy", "legacy"],
    ["legacy", "bundle"],
    ["bundle", "none"],
    ["bundle", "bundle"],
  ] as const;
  for (const [signed, attested] of cases) {
    await using server = await signedAndAttested(attested, signed);
    using client = createRegistryClient({ insecureRegistries: [server.host] });
    using counter = countRoundTrips(client);
    const image: ImageToVerify = {
      reference: parseReference(`${server.host}/team/app:1`),
      digest: DIGEST,
      client: counter.client,
      store: () => Promise.resolve(undefined),
      signal: new AbortController().signal,
      budget: readBudget(16 * 1024 * 1024),
      listings: new CosignListings(),
    };
    const groups = attested === "none" ? [signatureGroup] : [signatureGroup, attestationGroup];
    const outcome = await verifyKinds(groups, image, s);
    assert.equal(outcome.allowed, true, JSON.stringify(outcome));
    const requests = server.requests.map((r) =>
      r.path.replace(/sha256-[0-9a-f]{64}/g, "T").replace(/sha256:[0-9a-f]{64}/g, "D")
    );
    counted[`${signed}+${attested}`] = { roundTrips: counter.roundTrips(), requests };
    // One referrers list and one fallback index, whichever kinds read them.
    const count = (pattern: RegExp) => requests.filter((r) => pattern.test(r)).length;
    assert.equal(count(/\/referrers\//), 1, requests.join(" "));
    assert.equal(count(/\/manifests\/T$/), 1, requests.join(" "));
  }
  const trips = (key: string) => counted[key]!.roundTrips;
  const requests = (key: string) => counted[key]!.requests.length;
  // The .sig manifest with the payload cosign writes, the lists beside them: one round trip.
  assert.equal(trips("legacy+none"), 1);
  assert.equal(requests("legacy+none"), 4);
  // The .att manifest goes out with the .sig; its envelope is named by it: one more, and two
  // requests (.att, its envelope).
  assert.equal(trips("legacy+legacy"), 2);
  assert.equal(requests("legacy+legacy"), 6);
  // A bundle's blob is named by its referrer's manifest, named by the list: two more than the
  // .sig's (.att, the referrer's manifest, its blob).
  assert.equal(trips("legacy+bundle"), 3);
  assert.equal(requests("legacy+bundle"), 7);
  // A signature bundle: the lists, then its manifest, then its blob; the attestation's manifest
  // and blob go out beside the signature's, never after: no round trip more.
  assert.equal(trips("bundle+none"), 3);
  assert.equal(requests("bundle+none"), 6);
  assert.equal(trips("bundle+bundle"), 3);
  assert.equal(requests("bundle+bundle"), 9);
});

Deno.test("the verifier lists an image's referrers once for its signature and attestation requirements", async () => {
  await using server = await signedAndAttested("bundle");
  const { source, verifier } = pemVerifier(server.host);
  const verdict = await verifier.verify({
    reference: parseReference(`${server.host}/team/app@${DIGEST}`),
    match: {
      ...fakeMatch(),
      policy: {
        simple: {
          requirements: [{ type: "sigstoreSigned", keySecret: "pem" }, requirement()],
        },
      },
    },
    namespace: "dev",
    credentials: () => pullCredentials(source, "dev", [], "default"),
  });
  assert.equal(verdict.allowed, true, JSON.stringify(verdict));
  const paths = server.requests.map((r) => r.path);
  assert.equal(paths.filter((p) => p.includes("/referrers/")).length, 1, paths.join(" "));
  assert.equal(
    paths.filter((p) => p.endsWith(`/manifests/sha256-${DIGEST.slice(7)}`)).length,
    1,
    paths.join(" "),
  );
});
