import assert from "node:assert/strict";
import { encodeBase64 } from "../base64.ts";
import { parseYamlDocuments } from "../yaml.ts";
import { API_GROUP, validatePolicy } from "../policy/mod.ts";
import { importDocuments } from "./import_documents.ts";
import type { ImportedRule } from "./types.ts";
import { parseTrustRoot } from "../sigstore/trust_root.ts";
import { testFulcio, testKeyPair, testRekor } from "../../tests/fakes/sigstore_instance.ts";

const context = { controllerNamespace: "toolkit-system" };
const FIXTURES = new URL("../../tests/fixtures/import/connaisseur/", import.meta.url);
const FIXTURE_FILES = [
  "values.yaml",
  "values-v3.3.0.yaml",
  "values-v2.8.0.yaml",
  "docs-examples.yaml",
  "docs-fragments.yaml",
];

async function fixture(file: string): Promise<unknown[]> {
  return parseYamlDocuments(await Deno.readTextFile(new URL(file, FIXTURES)));
}

/** The leaf field paths of a document, in the importer's notation (`a.b[0].c`). */
function leaves(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    return entries.flatMap(([k, v]) => leaves(v, path === "" ? k : `${path}.${k}`));
  }
  return [path];
}

/** The fields the importer maps (its field table); every other one must be in a finding. */
const MAPPED = [
  /^(application\.)?policy\[\d+\]\.(pattern|validator|with\.(trustRoot|trust_root|threshold|required(\[\d+\])?|verifyInTransparencyLog|verify_in_transparency_log|mode))$/,
  /^(application\.)?validators\[\d+\]\.host\.(rekorPubkey|fulcioCert|ctLogPubkey)$/,
  /^(application\.)?validators\[\d+\]\.(name|type|approve|(trustRoots|trust_roots)\[\d+\]\.(name|key|keyless\.(issuer|subject|issuerRegex|subjectRegex)))$/,
  /^((application\.)?features\.)?detectionMode$/,
];

function covered(leaf: string, rules: readonly ImportedRule[], document: number): boolean {
  const mine = rules.filter((r) => r.source.document === document);
  const prefix = (p: string) => leaf === p || leaf.startsWith(`${p}.`) || leaf.startsWith(`${p}[`);
  if (mine.some((r) => r.findings.some((f) => prefix(f.path)))) return true;
  // A refused rule is refused whole.
  const rule = /^((?:application\.)?policy\[\d+\])/.exec(leaf)?.[1];
  if (
    rule &&
    mine.some((r) => r.refused && r.source.rule?.startsWith(rule.replace(/^application\./, "")))
  ) {
    return true;
  }
  return MAPPED.some((re) => re.test(leaf));
}

Deno.test("every Connaisseur fixture converts or refuses every rule, with paths, none silently partial", async () => {
  let converted = 0, refused = 0;
  for (const file of FIXTURE_FILES) {
    // Each document is the values of its own installation: imported on its own (two installations
    // imported together with the same pattern would clash, as import refuses).
    for (const [index, document] of (await fixture(file)).entries()) {
      const result = await importDocuments([document], context);
      assert.deepEqual(result.unknown, [], `${file}#${index}: a document no importer accepts`);
      for (const rule of result.rules) {
        const where = `${file}#${index} ${rule.source.rule}`;
        assert.equal(rule.source.apiVersion, "connaisseur/helm-values", where);
        for (const finding of rule.findings) {
          assert.ok(
            finding.path !== "" && finding.reason !== "",
            `${where}: ${JSON.stringify(finding)}`,
          );
        }
        if (rule.refused) {
          refused++;
          assert.deepEqual(rule.objects, [], where);
          assert.ok(rule.findings.some((f) => f.kind === "refused"), where);
          continue;
        }
        if (rule.source.rule !== "settings") converted++;
        for (const object of rule.objects) {
          if (object.kind === "ClusterImagePolicy") validatePolicy(object, [API_GROUP]);
          else assert.ok(object.kind === "Secret", `${where}: ${object.kind}`);
        }
      }
      for (const leaf of leaves(document)) {
        assert.ok(
          covered(leaf, result.rules, 0),
          `${file}#${index}: ${leaf} is neither mapped nor reported`,
        );
      }
    }
  }
  assert.ok(converted >= 15, `converted ${converted}`);
  assert.ok(refused >= 15, `refused ${refused}`);
});

function requirementsOf(rule: ImportedRule): Record<string, unknown>[] {
  const policy = rule.objects.find((o) => o.kind === "ClusterImagePolicy") as {
    spec: {
      repositories: {
        name: string;
        policy: { simple: { requirements: Record<string, unknown>[] } };
      }[];
    };
  };
  return policy.spec.repositories[0]!.policy.simple.requirements;
}

Deno.test("the chart's values: deny catch-all, allow registry.k8s.io, digest and notaryv1 rules refused", async () => {
  const { rules } = await importDocuments(await fixture("values.yaml"), context);
  const byRule = (n: number) => rules.find((r) => r.source.rule?.startsWith(`policy[${n}]`))!;
  assert.deepEqual(requirementsOf(byRule(0)), [{ type: "reject" }]);
  assert.match(byRule(1).findings[0]!.reason, /digest/);
  assert.equal(byRule(1).findings[0]!.path, "application.policy[1].pattern");
  assert.equal(byRule(2).findings[0]!.path, "application.validators[2]");
  assert.match(byRule(2).findings[0]!.reason, /notaryv1/);
  assert.deepEqual(requirementsOf(byRule(3)), [{ type: "insecureAcceptAnything" }]);
});

Deno.test("multi-signature rules: every root, the required roots, or refused thresholds", async () => {
  const documents = await fixture("docs-fragments.yaml");
  const policies: ImportedRule[] = [];
  for (const document of documents.slice(2, 6)) {
    const { rules } = await importDocuments([document], context);
    policies.push(...rules.filter((r) => r.source.rule !== "settings"));
  }
  assert.equal(policies[0]!.refused, false);
  assert.equal(requirementsOf(policies[0]!).length, 3); // trustRoot "*": all three
  assert.equal(policies[1]!.refused, true); // threshold 2 of 3
  assert.equal(policies[1]!.findings[0]!.path, "application.policy[0].with.threshold");
  assert.deepEqual(
    requirementsOf(policies[2]!).map((r) => r.keySecret),
    ["connaisseur-multicosigner-alice", "connaisseur-multicosigner-bob"],
  );
  assert.equal(requirementsOf(policies[3]!).length, 3); // threshold 3 of 3
});

Deno.test("keyless trust roots become identities; detectionMode warns; insecureValidateOnly keeps tags", async () => {
  const values = {
    application: {
      validators: [{
        name: "default",
        type: "cosign",
        trustRoots: [
          { name: "a", keyless: { issuerRegex: "github", subject: "me@example.com" } },
          {
            name: "b",
            keyless: { issuer: "https://accounts.google.com", subjectRegex: "@example\\.com$" },
          },
        ],
      }],
      policy: [{
        pattern: "reg.example.com/*",
        with: { trustRoot: "*", threshold: 1, mode: "insecureValidateOnly" },
      }],
      features: { detectionMode: true },
    },
  };
  const { rules } = await importDocuments([values], context);
  const rule = rules[0]!;
  assert.equal(rule.refused, false);
  const policy = (rule.objects[0] as {
    spec: { repositories: { name: string; policy: Record<string, unknown> }[] };
  })
    .spec.repositories[0]!;
  assert.equal(policy.name, "reg.example.com/*");
  assert.equal(policy.policy.mode, "warn");
  assert.equal(policy.policy.mutateImage, false);
  assert.deepEqual(requirementsOf(rule), [{
    type: "sigstoreSigned",
    tlog: "required",
    keyless: {
      trustRootRef: {
        kind: "ConfigMap",
        name: "sigstore-public-good",
        namespace: "toolkit-system",
      },
      identities: [
        { issuerRegExp: "github", subject: "me@example.com" },
        { issuer: "https://accounts.google.com", subjectRegExp: "@example\\.com$" },
      ],
    },
  }]);
});

Deno.test("the older top-level validators/policy of Connaisseur 2.x/3.x are read", async () => {
  const { rules, unknown } = await importDocuments([{
    validators: [{ name: "deny", type: "static", approve: false }],
    policy: [{ pattern: "*:*", validator: "deny" }],
    detectionMode: false,
    namespacedValidation: { enabled: true, mode: "validate" },
  }], context);
  assert.deepEqual(unknown, []);
  assert.deepEqual(requirementsOf(rules[0]!), [{ type: "reject" }]);
  const settings = rules.find((r) => r.source.rule === "settings")!;
  assert.ok(
    settings.findings.some((f) => f.path === "namespacedValidation.mode" && f.kind === "stronger"),
  );
});

Deno.test("a rule Connaisseur and toolkit choose differently is reported with the image", async () => {
  const { rules } = await importDocuments([{
    application: {
      validators: [
        { name: "allow", type: "static", approve: true },
        { name: "deny", type: "static", approve: false },
      ],
      // reg.example.com/team/x/y:1: Connaisseur picks the rule of more components (deny),
      // toolkit the one of more literal characters (allow).
      policy: [
        { pattern: "reg.example.com/team/*:*", validator: "allow" },
        { pattern: "reg.example.com/*/*/*:*", validator: "deny" },
      ],
    },
  }], context);
  const deny = rules.find((r) => r.source.rule?.startsWith("policy[1]"))!;
  const finding = deny.findings.find((f) => f.reason.includes("Connaisseur applies policy[1]"));
  assert.ok(finding, JSON.stringify(deny.findings));
  assert.equal(finding.kind, "weaker");
  assert.equal(finding.path, "application.policy[1].pattern");
  assert.match(finding.reason, /toolkit policy\[0\]/);
});

/** A fresh ECDSA P-256 public key as PEM (SPKI), as Connaisseur's trust roots hold them. */
async function ecdsaPublicKeyPem(): Promise<string> {
  const { publicKey } = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
  const der = new Uint8Array(await crypto.subtle.exportKey("spki", publicKey));
  return `-----BEGIN PUBLIC KEY-----\n${
    encodeBase64(der).replace(/(.{64})/g, "$1\n").replace(/\n$/, "")
  }\n-----END PUBLIC KEY-----\n`;
}

Deno.test("keys: one Secret per root that must sign, one Secret of every key for any of them", async () => {
  // Real keys: a key Secret's keys are read as the webhook reads them.
  const keys = { a: await ecdsaPublicKeyPem(), b: await ecdsaPublicKeyPem() };
  const key = (n: "a" | "b") => keys[n];
  const { rules } = await importDocuments([{
    application: {
      validators: [{
        name: "default",
        type: "cosign",
        trustRoots: [{ name: "a", key: key("a") }, { name: "b", key: key("b") }, {
          name: "kms",
          key: "awskms:///arn:aws:kms:us-east-1:1:key/1",
        }],
      }],
      policy: [
        { pattern: "reg.example.com/any/*", with: { trustRoot: "*", threshold: 1 } },
        {
          pattern: "reg.example.com/a/*",
          with: { trustRoot: "a", verifyInTransparencyLog: false },
        },
      ],
    },
  }], context);
  const [any, a] = rules;
  assert.equal(any!.refused, true); // the KMS root is among "any of them"
  assert.equal(
    any!.findings.find((f) => f.kind === "refused")!.path,
    "application.validators[0].trustRoots[2].key",
  );
  assert.deepEqual(requirementsOf(a!), [{
    type: "sigstoreSigned",
    tlog: "optional",
    keySecret: "connaisseur-default-a",
    keySecretNamespace: "toolkit-system",
  }]);
  const secret = a!.objects.find((o) => o.kind === "Secret") as { stringData: { key: string } };
  assert.equal(secret.stringData.key, key("a"));
});

Deno.test("Connaisseur 2.x spellings: trust_roots, with.trust_root, host as the Rekor URL", async () => {
  const key = (await ecdsaPublicKeyPem()).trimEnd();
  const { rules } = await importDocuments([{
    validators: [{
      name: "signed",
      type: "cosign",
      host: "rekor.internal.example",
      trust_roots: [{ name: "team", key }],
    }],
    policy: [{ pattern: "reg.example.com/*:*", validator: "signed", with: { trust_root: "team" } }],
  }], context);
  const rule = rules[0]!;
  assert.equal(rule.refused, false, JSON.stringify(rule.findings));
  assert.deepEqual(requirementsOf(rule), [{
    type: "sigstoreSigned",
    tlog: "required",
    trustRootRef: {
      kind: "ConfigMap",
      name: "connaisseur-signed-trust-root",
      namespace: "toolkit-system",
    },
    keySecret: "connaisseur-signed-team",
    keySecretNamespace: "toolkit-system",
  }]);
  assert.ok(
    rule.findings.some((f) => f.path === "validators[0].host" && /Rekor server/.test(f.reason)),
  );
  assert.ok(
    rule.findings.some((f) =>
      f.path === "validators[0].host" &&
      /create ConfigMap toolkit-system\/connaisseur-signed-trust-root/.test(f.reason)
    ),
  );
});

Deno.test("host.rekorPubkey, fulcioCert and ctLogPubkey become the trust root's ConfigMap", async () => {
  const fulcio = await testFulcio();
  const rekor = testRekor();
  const ctLog = testKeyPair("ecdsa-p256");
  const validator = (host: Record<string, unknown>) => ({
    name: "private",
    type: "cosign",
    host,
    trustRoots: [{
      name: "default",
      keyless: { issuer: "https://oidc.example.com", subject: "ci@example.com" },
    }],
  });
  const values = (host: Record<string, unknown>) => ({
    application: {
      validators: [validator(host)],
      policy: [{ pattern: "reg.example.com/*", validator: "private" }],
    },
  });
  const full = {
    rekor: "rekor.example.com",
    rekorPubkey: rekor.key.publicPem,
    fulcioCert: fulcio.chain.map((c) => c.toString("pem")).join("\n"),
    ctLogPubkey: ctLog.publicPem,
  };
  const { rules: [rule] } = await importDocuments([values(full)], context);
  assert.equal(rule!.refused, false, JSON.stringify(rule!.findings));
  const configMap = rule!.objects.find((o) => o.kind === "ConfigMap")!;
  assert.deepEqual(
    (configMap.metadata as Record<string, unknown>).name,
    "connaisseur-private-trust-root",
  );
  assert.equal((configMap.metadata as Record<string, unknown>).namespace, "toolkit-system");
  const text = (configMap.data as Record<string, string>)["trusted_root.json"]!;
  const parsed = await parseTrustRoot(text, "test");
  assert.deepEqual(parsed.counts, {
    certificateAuthorities: 1,
    tlogs: 1,
    ctlogs: 1,
    timestampAuthorities: 0,
  });
  const json = JSON.parse(text);
  assert.equal(json.tlogs[0].baseUrl, "https://rekor.example.com");
  assert.equal(json.certificateAuthorities[0].certChain.certificates.length, 2);
  const [requirement] = requirementsOf(rule!);
  assert.deepEqual((requirement!.keyless as Record<string, unknown>).trustRootRef, {
    kind: "ConfigMap",
    name: "connaisseur-private-trust-root",
    namespace: "toolkit-system",
  });
  // The keys are mapped: only host.rekor (never queried) is reported.
  assert.deepEqual(
    rule!.findings.filter((f) => f.path.includes(".host")).map((f) => f.path),
    ["application.validators[0].host.rekor"],
  );

  // Without the CT log key: Connaisseur uses the public-good one, toolkit checks no SCT.
  const { rules: [partial] } = await importDocuments(
    [values({ rekorPubkey: full.rekorPubkey, fulcioCert: full.fulcioCert })],
    context,
  );
  assert.equal(partial!.refused, false);
  assert.ok(partial!.objects.some((o) => o.kind === "ConfigMap"));
  assert.deepEqual(
    partial!.findings.filter((f) => f.path === "application.validators[0].host").map((f) => f.kind),
    ["weaker"],
  );

  // Elided or broken keys: the rule is refused with the field's path.
  const { rules: [elided] } = await importDocuments(
    [values({ ...full, rekorPubkey: "-----BEGIN PUBLIC KEY-----\n...\n-----END PUBLIC KEY-----" })],
    context,
  );
  assert.equal(elided!.refused, true, JSON.stringify(elided!.findings));
  assert.equal(
    elided!.findings.find((f) => f.kind === "refused")?.path,
    "application.validators[0].host.rekorPubkey",
  );
  const { rules: [noCa] } = await importDocuments(
    [values({ ...full, fulcioCert: full.rekorPubkey })],
    context,
  );
  assert.equal(noCa!.refused, true);
  assert.equal(
    noCa!.findings.find((f) => f.kind === "refused")!.path,
    "application.validators[0].host.fulcioCert",
  );
});
