/**
 * `deno task demo` tells the whole story on the real environment: key, vault, signing, enable,
 * policy, a signed Pod admitted and pinned, an unsigned Pod denied, teardown.
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
    // cosign: the real cosign signs with toolkit's key; sigstoreSigned admits it, pinned, and
    // denies an image signed by another key.
    assert.match(text, /\$ cosign sign --key cosign\.key /);
    assert.match(text, /\n {6}127\.0\.0\.1:\d+\/cosign\/app@sha256:[0-9a-f]{64}\n/);
    assert.match(
      text,
      /denied the request: policy denied the request: None of the signatures were accepted, reasons: .*does not verify with the key of the requirement/,
    );
    // A repository connected to Tekton: the first run, then a push that starts a run.
    assert.match(text, /Pipeline run started: shop-frontend-\w+/);
    assert.match(text, /Webhook created on Gitea/);
    assert.match(text, /Webhook unchanged on Gitea/);
    assert.match(text, /\n\s+shop-frontend-\w+\s+shop-frontend\s+[0-9a-f]{40}\n/);
    assert.match(text, /MutatingWebhookConfiguration "toolkit-image-security" deleted/);
    assert.match(
      text,
      /stopped the webhook, Gitea, Tekton's sink, the vault, the registry and the cluster/,
    );
  },
});
