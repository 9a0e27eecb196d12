import assert from "node:assert/strict";
import { parseYaml } from "../yaml.ts";
import { describeError } from "../errors.ts";
import { namesIn, readOnlyDir, tempDir } from "../../tests/env/files.ts";
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

Deno.test("saveOidcTokens() writes through a symbolic link; a read-only directory fails clearly", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/dotfiles`);
  await Deno.writeTextFile(`${dir.path}/dotfiles/kubeconfig`, KUBECONFIG);
  await Deno.chmod(`${dir.path}/dotfiles/kubeconfig`, 0o600);
  await Deno.symlink("dotfiles/kubeconfig", `${dir.path}/config`);
  await saveOidcTokens(`${dir.path}/config`, "me", { idToken: "id-2", refreshToken: "r-2" });
  assert.ok((await Deno.lstat(`${dir.path}/config`)).isSymlink, "the link stays a link");
  assert.match(await Deno.readTextFile(`${dir.path}/dotfiles/kubeconfig`), /refresh-token: r-2/);
  assert.equal((await Deno.stat(`${dir.path}/dotfiles/kubeconfig`)).mode! & 0o777, 0o600);

  const before = await Deno.readTextFile(`${dir.path}/dotfiles/kubeconfig`);
  await using _ = await readOnlyDir(`${dir.path}/dotfiles`);
  const error = await saveOidcTokens(`${dir.path}/config`, "me", {
    idToken: "id-3",
    refreshToken: "r-3",
  }).catch((e) => e);
  assert.ok(error instanceof OidcTokenSaveError);
  assert.match(describeError(error), /the file cannot be written: Cannot write ".*config": its/);
  assert.equal(await Deno.readTextFile(`${dir.path}/dotfiles/kubeconfig`), before);
  assert.deepEqual(await namesIn(`${dir.path}/dotfiles`), ["kubeconfig"]);
});
