import assert from "node:assert/strict";
import { parseYaml } from "../yaml.ts";
import { OidcTokenSaveError, saveOidcTokens, setOidcTokensInText } from "./oidc_persist.ts";

const KUBECONFIG = `# my clusters
users:
- name: other
  user:
    token: keep-me
- name: me
  user:
    auth-provider:
      name: oidc
      config:
        client-id: kube # the client
        id-token: old-id
        refresh-token: old-refresh
`;

Deno.test("setOidcTokensInText() replaces the user's tokens and keeps the rest", () => {
  const text = setOidcTokensInText(KUBECONFIG, "me", { idToken: "new-id", refreshToken: "new-r" });
  assert.match(text, /^# my clusters/);
  assert.match(text, /client-id: kube # the client/);
  const doc = parseYaml(text) as {
    users: Array<{ user: { token?: string; "auth-provider"?: { config: unknown } } }>;
  };
  assert.equal(doc.users[0]!.user.token, "keep-me");
  assert.deepEqual(doc.users[1]!.user["auth-provider"]?.config, {
    "client-id": "kube",
    "id-token": "new-id",
    "refresh-token": "new-r",
  });
});

Deno.test("setOidcTokensInText() refuses a user without an oidc auth provider", () => {
  assert.throws(
    () => setOidcTokensInText(KUBECONFIG, "other", { idToken: "a", refreshToken: "b" }),
    OidcTokenSaveError,
  );
});

Deno.test("saveOidcTokens() rewrites the file in place with its permissions", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/config`;
    await Deno.writeTextFile(file, KUBECONFIG, { mode: 0o600 });
    await saveOidcTokens(file, "me", { idToken: "new-id", refreshToken: "new-r" });
    assert.match(await Deno.readTextFile(file), /refresh-token: new-r/);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
