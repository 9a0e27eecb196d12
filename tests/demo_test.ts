/**
 * `deno task demo` tells the whole story on the real environment: key, vault, signing, enable,
 * policy, a signed Pod admitted and pinned, an unsigned Pod denied, signing set up for pipelines,
 * a pipeline that signs what it builds, a push, its PipelineRun's signing and provenance steps, the
 * built image admitted, a policy requiring provenance from the Gitea repository (admitted; denied
 * when the provenance names another repository, naming the condition), a workload of a warn
 * namespace in the audit and its PolicyReport, signed, then the namespace rolled out to enforce,
 * a Kyverno ClusterPolicy imported and applied and an image it covers admitted, teardown.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "./env/mod.ts";

Deno.test({
  name: "the demo tells the whole story against the real environment and cleans up",
  ignore: e2eSkipReason() !== undefined,
  fn: async () => {
    // The README's first command, through the task (provisioning included, quick when cached).
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "demo"],
      cwd: new URL("../", import.meta.url).pathname,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, `${text}\n${new TextDecoder().decode(out.stderr)}`);
    assert.match(text, /\$ toolkit image-security keygen /);
    assert.match(text, /Stored key "demo-signer" with id [0-9a-f-]{36}/);
    assert.match(text, /Wrote key "demo-signer" .* to signing\.key\.asc \(mode 0600\)/);
    assert.match(text, /Signed 127\.0\.0\.1:\d+\/demo\/app:1 \(sha256:[0-9a-f]{64}\)/);
    assert.match(text, /Verified 127\.0\.0\.1:\d+\/demo\/app:1/);
    assert.match(text, /MutatingWebhookConfiguration "toolkit-image-security" created/);
    // The signed Pod's image, read back from the API server, is pinned to the digest.
    assert.match(text, /\n {6}127\.0\.0\.1:\d+\/demo\/app@sha256:[0-9a-f]{64}\n/);
    assert.match(
      text,
      /admission webhook "image-security\.toolkit\.dev" denied the request: policy denied the request: A signature was required, but no signature exists/,
    );
    // Only the API server may call the webhook: restarted with its client certificate, it still
    // reaches the webhook (the Pod is pinned), and a client without one gets no answer.
    assert.match(text, /API server configuration written: apiserver\/client\.key/);
    assert.match(text, /\$ toolkit-webhook .*--client-ca tls\/client-ca\.crt/);
    assert.match(
      text,
      /\$ kubectl run web-again[^\n]*\n {6}127\.0\.0\.1:\d+\/demo\/app@sha256:[0-9a-f]{64}\n/,
    );
    assert.match(text, /no answer: refused at the TLS handshake/);
    // cosign: the real cosign signs with toolkit's key; sigstoreSigned admits it, pinned, and
    // denies an image signed by another key.
    assert.match(text, /\$ cosign sign --key cosign\.key /);
    assert.match(text, /\n {6}127\.0\.0\.1:\d+\/cosign\/app@sha256:[0-9a-f]{64}\n/);
    assert.match(
      text,
      /denied the request: policy denied the request: None of the signatures were accepted, reasons: .*does not verify with the key of the requirement/,
    );
    // A multi-platform image signed recursively, admitted under everyPlatform, pinned to its
    // index, with the warning that its platforms' signatures admitted it.
    assert.match(
      text,
      /\$ toolkit image-security sign 127\.0\.0\.1:\d+\/multiarch\/app:1 --key cosign\.key --recursive/,
    );
    assert.match(text, /and its platform linux\/arm64 \(sha256:[0-9a-f]{64}\)/);
    assert.match(
      text,
      /Warning: the image index sha256:[0-9a-f]{64} was admitted by the signatures of its platforms linux\/amd64, linux\/arm64 \(multiArch: everyPlatform\)/,
    );
    assert.match(text, /\n {6}127\.0\.0\.1:\d+\/multiarch\/app@sha256:[0-9a-f]{64}\n/);
    // Signing set up for the pipelines, in one command.
    assert.match(
      text,
      /\$ toolkit image-security setup-signing --repository '127\.0\.0\.1:\d+\/shop\/\*'/,
    );
    assert.match(
      text,
      /Vault: stored the private key as "toolkit-image-signing" \(id [0-9a-f-]{36}, alias toolkit-image-signing, extractable\)/,
    );
    assert.match(text, /ClusterImagePolicy "image-signing" created/);
    // A repository connected to Tekton: the pipeline signs what it builds; the first run, then a
    // push that starts a run.
    assert.match(
      text,
      /Signing: task image-sign signs the image of task ibm-build \(IMAGE_URL, IMAGE_DIGEST\)/,
    );
    assert.match(text, /Pipeline run started at main [0-9a-f]{40}: shop-frontend-\w+/);
    assert.match(text, /Webhook created on Gitea/);
    assert.match(text, /Webhook unchanged on Gitea/);
    assert.match(text, /\n\s+shop-frontend-\w+\s+shop-frontend\s+[0-9a-f]{40}\n/);
    // That run's signing step signs the built image from the vault; its Pod is admitted, pinned.
    assert.match(
      text,
      /\$ toolkit image-security sign 127\.0\.0\.1:\d+\/shop\/shop-frontend:[0-9a-f]{12} --digest=sha256:[0-9a-f]{64} --signing-secret-dir=\/etc\/toolkit\/image-signing/,
    );
    assert.match(text, /Stored the signature in the signature extension of 127\.0\.0\.1:\d+/);
    assert.match(text, /\n {6}127\.0\.0\.1:\d+\/shop\/shop-frontend@sha256:[0-9a-f]{64}\n/);
    assert.match(
      text,
      /\$ kubectl run unsigned-shop [^\n]*\n[^\n]*denied the request: policy denied the request: A signature was required, but no signature exists/,
    );
    // The same TaskRun's provenance step attests the build with the same key.
    assert.match(
      text,
      /\$ toolkit image-security attest 127\.0\.0\.1:\d+\/shop\/shop-frontend:[0-9a-f]{12} --digest=sha256:[0-9a-f]{64} --signing-secret-dir=\/etc\/toolkit\/image-signing [^\n]*--build-repository=http:\/\/127\.0\.0\.1:\d+\/toolkit-admin\/shop-frontend\.git/,
    );
    assert.match(
      text,
      /Attested 127\.0\.0\.1:\d+\/shop\/shop-frontend@sha256:[0-9a-f]{64} \(https:\/\/slsa\.dev\/provenance\/v1\) with OpenPGP key [0-9A-F]{40}/,
    );
    // Provenance required from that repository: verify-attestation says the condition holds, the
    // built image is admitted and pinned, an image whose provenance names another repository is
    // denied, the message naming the condition.
    assert.match(
      text,
      /\$ toolkit image-security verify-attestation [^\n]* --type slsaprovenance1 --key-secret toolkit-system\/image-signing-key --policy provenance-policy\.yaml/,
    );
    assert.match(text, /Verified attestation of https:\/\/slsa\.dev\/provenance\/v1 for /);
    assert.match(text, /condition "from-shop-frontend": true/);
    assert.match(
      text,
      /\$ toolkit image-security attest 127\.0\.0\.1:\d+\/shop\/shop-frontend:elsewhere --predicate elsewhere-provenance\.json --type slsaprovenance1 --vault-key toolkit-image-signing/,
    );
    assert.match(
      text,
      /\$ kubectl run shop-built-here [^\n]*\n[^\n]*created\n[^\n]*\n {6}127\.0\.0\.1:\d+\/shop\/shop-frontend@sha256:[0-9a-f]{64}\n/,
    );
    assert.match(
      text,
      /\$ kubectl run shop-built-elsewhere [^\n]*\n[^\n]*denied the request: policy denied the request: attestation https:\/\/slsa\.dev\/provenance\/v1: condition "from-shop-frontend" is false: built from a repository other than shop-frontend/,
    );
    // A workload running in a warn namespace: admitted with a warning, in the audit and in the
    // namespace's PolicyReport; rollout --enforce refuses; signed, the audit and the report pass,
    // and rollout switches the namespace, which then denies an unsigned Pod.
    assert.match(
      text,
      /\$ kubectl create deployment legacy [^\n]*\n {6}Warning: warn mode, admitted anyway: policy denied the request: A signature was required/,
    );
    assert.match(
      text,
      /\n {6}legacy +Deployment\/legacy +legacy +127\.0\.0\.1:\d+\/demo\/legacy:1 +warn +A signature was required, but no signature exists\n/,
    );
    assert.match(
      text,
      /\n {6}Deployment\/legacy 127\.0\.0\.1:\d+\/demo\/legacy:1 warn: policy denied the request: A signature was required/,
    );
    assert.match(
      text,
      /\n {6}legacy +Deployment\/legacy +legacy +127\.0\.0\.1:\d+\/demo\/legacy:1 +fail +A signature was required[^\n]*\n {6}error: Not enforcing namespace "legacy": 1 running image would be denied/,
    );
    assert.match(
      text,
      /\n {6}legacy +Deployment\/legacy +legacy +127\.0\.0\.1:\d+\/demo\/legacy:1 +pass\n/,
    );
    assert.match(
      text,
      /\n {6}Deployment\/legacy 127\.0\.0\.1:\d+\/demo\/legacy:1 pass: verified sha256:[0-9a-f]{64}\n/,
    );
    assert.match(
      text,
      /Namespace "legacy" labelled toolkit\.dev\/enforcement=enforce \(was warn\)/,
    );
    assert.match(
      text,
      /\$ kubectl run unsigned-legacy [^\n]*\n[^\n]*denied the request: policy denied the request: A signature was required/,
    );
    // A Kyverno ClusterPolicy imported: the ClusterImagePolicy and key Secret it became, the
    // report of what was not carried over; applied, it admits the cosign-signed image, pinned.
    assert.match(text, /\$ toolkit image-security import kyverno-policy\.yaml\n/);
    assert.match(
      text,
      /kyverno\.io\/v1 ClusterPolicy verify-team-images rule team-key: converted: ClusterImagePolicy verify-team-images-team-key, Secret toolkit-system\/verify-team-images-team-key-key-0-0/,
    );
    assert.match(text, /unmapped spec\.webhookTimeoutSeconds: /);
    assert.match(
      text,
      /\n {6}kind: ClusterImagePolicy\n(?: {6}[^\n]*\n)*? {10}- name: 127\.0\.0\.1:\d+\/imported\/\*\n(?: {6}[^\n]*\n)*? {18}- type: sigstoreSigned\n {20}keySecret: verify-team-images-team-key-key-0-0\n/,
    );
    assert.match(
      text,
      /\$ toolkit image-security import kyverno-policy\.yaml --apply\n(?: {6}[^\n]*\n)*? {6}ClusterImagePolicy "verify-team-images-team-key" created\n/,
    );
    assert.match(
      text,
      /\$ kubectl run imported [^\n]*\n {6}pod\/imported created\n[^\n]*\n {6}127\.0\.0\.1:\d+\/imported\/app@sha256:[0-9a-f]{64}\n/,
    );
    assert.doesNotMatch(text, /BEGIN PGP PRIVATE KEY BLOCK/);
    assert.match(text, /MutatingWebhookConfiguration "toolkit-image-security" deleted/);
    assert.match(
      text,
      /stopped the webhook, Gitea, Tekton's sink, the vault, the registry and the cluster/,
    );
  },
});
