import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { encodeBase64 } from "../base64.ts";
import { parseTrustRoot } from "../sigstore/trust_root.ts";
import { importDocuments } from "./import_documents.ts";

const GOLDEN = new URL(
  "../../tests/fixtures/import/policy-controller/test/testdata/trustroot/golden/",
  import.meta.url,
);
const b64 = async (file: string) => encodeBase64(await Deno.readTextFile(new URL(file, GOLDEN)));

Deno.test("a policy-controller TrustRoot's sigstoreKeys become the ConfigMap of its trusted_root.json", async () => {
  const authority = async (name: string, file: string) => ({
    subject: { organization: `${name}-org`, commonName: name },
    uri: `https://${name}.example.com`,
    certChain: await b64(file),
  });
  const log = async (name: string, file: string) => ({
    baseURL: `https://${name}.example.com`,
    hashAlgorithm: "sha-256",
    publicKey: await b64(file),
  });
  const document = {
    apiVersion: "policy.sigstore.dev/v1alpha1",
    kind: "TrustRoot",
    metadata: { name: "my-sigstore-keys" },
    spec: {
      sigstoreKeys: {
        certificateAuthorities: [await authority("fulcio", "fulcio.crt.pem")],
        tLogs: [await log("rekor", "rekor.pem")],
        ctLogs: [await log("ctfe", "ctfe.pem")],
        timestampAuthorities: [await authority("tsa", "tsa.crt.pem")],
      },
    },
  };
  const result = await importDocuments([document], { controllerNamespace: "toolkit-system" });
  const rule = result.rules[0]!;
  assert.equal(rule.refused, false, JSON.stringify(rule.findings));
  const configMap = rule.objects[0]!;
  assert.deepEqual(configMap.metadata, {
    name: "my-sigstore-keys",
    namespace: "toolkit-system",
    annotations: {
      "toolkit.dev/imported-from": "policy.sigstore.dev/v1alpha1 TrustRoot my-sigstore-keys",
    },
  });
  const text = (configMap.data as Record<string, string>)["trusted_root.json"]!;
  const parsed = await parseTrustRoot(text, "test");
  assert.deepEqual(parsed.counts, {
    certificateAuthorities: 1,
    tlogs: 1,
    ctlogs: 1,
    timestampAuthorities: 1,
  });
  const root = JSON.parse(text);
  const rekorDer = Uint8Array.from(atob(root.tlogs[0].publicKey.rawBytes), (c) => c.charCodeAt(0));
  assert.equal(root.tlogs[0].logId.keyId, createHash("sha256").update(rekorDer).digest("base64"));
  assert.equal(root.tlogs[0].hashAlgorithm, "SHA2_256");
  assert.match(root.tlogs[0].publicKey.keyDetails, /^PKIX_/);
});

Deno.test("a TrustRoot of a TUF repository, or whose keys are no PEM, is refused with the path", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ remote: { mirror: "https://tuf.example.com", root: "eA==" } }, "spec.remote"],
    [
      { sigstoreKeys: { tLogs: [{ baseURL: "https://r", publicKey: "REKOR_PUBLIC_KEY" }] } },
      "spec.sigstoreKeys.tLogs[0].publicKey",
    ],
  ];
  for (const [spec, path] of cases) {
    const document = {
      apiVersion: "policy.sigstore.dev/v1alpha1",
      kind: "TrustRoot",
      metadata: { name: "t" },
      spec,
    };
    const rule = (await importDocuments([document], { controllerNamespace: "x" })).rules[0]!;
    assert.equal(rule.refused, true, path);
    assert.equal(rule.findings.at(-1)!.path, path);
  }
});
