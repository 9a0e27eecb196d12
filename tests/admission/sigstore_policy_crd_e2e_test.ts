/**
 * The `sigstoreSigned` requirement in the CRDs (deploy/crds, generated from lib/policy/crds.ts)
 * against the real kube-apiserver: valid keyed and keyless policies are stored, each mistake the
 * schema and its CEL rules catch is refused at `kubectl apply` with the path of the field, as
 * `validatePolicy()` (webhook, `check`) reports it.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";

function policy(name: string, requirements: unknown[]): string {
  return JSON.stringify({
    apiVersion: "toolkit.dev/v1",
    kind: "ClusterImagePolicy",
    metadata: { name },
    spec: { repositories: [{ name: "reg.test/*", policy: { simple: { requirements } } }] },
  });
}

const KEYLESS = {
  trustRootRef: { name: "sigstore-public-good" },
  identities: [{
    issuer: "https://token.actions.githubusercontent.com",
    subjectRegExp: "^https://github\\.com/org/repo/",
  }],
};

Deno.test({
  name:
    "the API server stores valid sigstoreSigned policies and refuses wrong ones with the field's path",
  ignore: e2eSkipReason(["kube-apiserver", "etcd"]) !== undefined,
  async fn() {
    await using world = await startWorld({ images: false });
    const { cluster } = world;
    const apply = (text: string) => cluster.kubectl(["apply", "-f", "-"], { stdin: text });
    for (
      const [name, requirements] of [
        ["keyed", [{ type: "sigstoreSigned", keySecret: "cosign-pub" }]],
        ["keyed-tlog", [{
          type: "sigstoreSigned",
          keySecret: "cosign-pub",
          tlog: "required",
          trustRootRef: { kind: "ConfigMap", name: "root", key: "trusted_root.json" },
          signedIdentity: { type: "matchRepository" },
        }]],
        ["keyless", [{ type: "sigstoreSigned", keyless: KEYLESS }, {
          type: "signedBy",
          keySecret: "gpg",
        }]],
      ] as const
    ) {
      const result = await apply(policy(name, [...requirements]));
      assert.equal(result.code, 0, `${name}: ${result.stderr}`);
    }
    const refused: [unknown, RegExp][] = [
      [{ type: "sigstoreSigned" }, /sigstoreSigned needs keySecret \(keyed\) or keyless, not both/],
      [
        { type: "sigstoreSigned", keySecret: "k", keyless: KEYLESS },
        /sigstoreSigned needs keySecret \(keyed\) or keyless, not both/,
      ],
      [{ type: "sigstoreSigned", keySecret: "k", tlog: "always" }, /tlog: Unsupported value/],
      [
        { type: "sigstoreSigned", keySecret: "k", tlog: "required" },
        /trustRootRef: Invalid value.*tlog: required with a keySecret needs trustRootRef/,
      ],
      [
        { type: "signedBy", keySecret: "k", tlog: "optional" },
        /keyless, tlog and trustRootRef are for sigstoreSigned/,
      ],
      [
        { type: "sigstoreSigned", keyless: { ...KEYLESS, identities: [{ issuer: "i" }] } },
        /identities\[0\]: Invalid value.*one of subject and subjectRegExp is required/,
      ],
      [
        { type: "sigstoreSigned", keyless: { ...KEYLESS, identities: [] } },
        /identities: Invalid value: 0: .*should have at least 1 items/,
      ],
      [
        { type: "sigstoreSigned", keyless: { identities: KEYLESS.identities } },
        /keyless.trustRootRef: Required value/,
      ],
      [
        {
          type: "sigstoreSigned",
          keyless: { ...KEYLESS, trustRootRef: { name: "r", kind: "Pod" } },
        },
        /trustRootRef.kind: Unsupported value: "Pod"/,
      ],
    ];
    for (const [index, [requirement, message]] of refused.entries()) {
      const result = await apply(policy(`bad-${index}`, [requirement]));
      assert.notEqual(result.code, 0, `bad-${index} was stored`);
      assert.match(result.stderr, message, `bad-${index}`);
    }
  },
});
