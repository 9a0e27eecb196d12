/**
 * The in-memory API server answers `lib/kube`'s client as the API server does, for what the
 * commands' tests rely on (compare the end-to-end tests of `lib/kube` against a real one).
 */
import assert from "node:assert/strict";
import {
  applyObject,
  CONFIG_MAPS,
  isStatus,
  NAMESPACES,
  ROUTES,
  SECRETS,
  updateObject,
} from "../../lib/kube/mod.ts";
import { bufferedIO } from "../../cli/io.ts";
import { FakeKubeApi, writeKubeconfig } from "./kube_api.ts";

async function client(fake: FakeKubeApi) {
  const dir = await Deno.makeTempDir();
  const kubeconfig = await writeKubeconfig(dir, [{ name: "a", namespace: "team" }]);
  const c = await fake.connector(bufferedIO({ env: { KUBECONFIG: kubeconfig } }))({
    kubeconfig: undefined,
    context: undefined,
  });
  await Deno.remove(dir, { recursive: true });
  return c;
}

Deno.test("FakeKubeApi: create, apply, replace and delete answer as the API server does", async () => {
  const fake = new FakeKubeApi();
  using c = await client(fake);
  assert.equal(c.namespace, "team");
  await assert.rejects(
    c.create(CONFIG_MAPS, { metadata: { name: "x", namespace: "team" } }),
    (e) => isStatus(e, 404) && /namespaces "team" not found/.test(String(e)),
  );
  await c.create(NAMESPACES, { metadata: { name: "team" } });
  const cm = { metadata: { name: "x", namespace: "team" }, data: { a: "1" } };
  assert.equal((await applyObject(c, CONFIG_MAPS, cm)).outcome, "created");
  assert.equal((await applyObject(c, CONFIG_MAPS, cm)).outcome, "unchanged");
  assert.equal(
    (await applyObject(c, CONFIG_MAPS, { ...cm, data: { a: "2" } })).outcome,
    "updated",
  );
  await assert.rejects(c.create(CONFIG_MAPS, cm), (e) => isStatus(e, 409));
  const live = fake.get(CONFIG_MAPS, "team", "x")!;
  await c.replace(CONFIG_MAPS, { ...live, data: { a: "3" } });
  await assert.rejects(
    c.replace(CONFIG_MAPS, { ...live, data: { a: "4" } }),
    (e) => isStatus(e, 409),
  );
  const updated = await updateObject(c, CONFIG_MAPS, "team", "x", (o) => ({ ...o!, data: {} }));
  assert.equal(updated?.outcome, "updated");
  const generated = await c.create(CONFIG_MAPS, {
    metadata: { name: "", generateName: "run-", namespace: "team" },
  });
  assert.match(generated.metadata.name, /^run-[0-9a-f]{5}$/);
  await c.create(SECRETS, { metadata: { name: "s", namespace: "team" }, stringData: { k: "v" } });
  assert.deepEqual(fake.get(SECRETS, "team", "s")?.data, { k: btoa("v") });
  assert.equal(fake.get(SECRETS, "team", "s")?.type, "Opaque");
  assert.equal(await c.delete(CONFIG_MAPS, "team", "x"), true);
  assert.equal(await c.delete(CONFIG_MAPS, "team", "x"), false);
  assert.equal(await c.read(CONFIG_MAPS, "team", "x"), undefined);
});

Deno.test("FakeKubeApi: lists by label, serves discovery, refuses on request", async () => {
  const fake = new FakeKubeApi();
  fake.seed(NAMESPACES, { metadata: { name: "team" } });
  fake.seed(
    CONFIG_MAPS,
    { metadata: { name: "a", namespace: "team", labels: { group: "x" } } },
    { metadata: { name: "b", namespace: "team", labels: { group: "y" } } },
    { metadata: { name: "c", namespace: "team" } },
  );
  using c = await client(fake);
  const names = async (labelSelector: string) =>
    (await c.list(CONFIG_MAPS, "team", { labelSelector })).map((o) => o.metadata.name);
  assert.deepEqual(await names("group=x"), ["a"]);
  assert.deepEqual(await names("group!=x"), ["b", "c"]);
  assert.deepEqual(await names("group"), ["a", "b"]);
  assert.deepEqual(await names("!group"), ["c"]);
  assert.equal(await c.isOpenShift(), false);
  assert.equal(await c.serves(ROUTES), false);
  assert.equal(
    await new FakeKubeApi({ openshift: true }).transport().send({
      method: "GET",
      url: "https://x/apis/route.openshift.io/v1",
      headers: {},
    }).then((r) => r.status),
    200,
  );
  fake.refuse({ method: "PATCH", type: CONFIG_MAPS, name: "a", message: "no" });
  await assert.rejects(
    applyObject(c, CONFIG_MAPS, { metadata: { name: "a", namespace: "team" } }),
    (e) => isStatus(e, 403) && /no/.test(String(e)),
  );
  assert.deepEqual(fake.writes(), ["PATCH /api/v1/namespaces/team/configmaps/a"]);
});

Deno.test("FakeKubeApi: a watch streams what there is, then each change, until aborted", async () => {
  const fake = new FakeKubeApi();
  fake.seed(NAMESPACES, { metadata: { name: "team" } });
  fake.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "team" } });
  using c = await client(fake);
  const abort = new AbortController();
  const response = await c.open("GET", "/api/v1/namespaces/team/configmaps", {
    query: { watch: "true" },
    signal: abort.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const next = async () => {
    while (!buffer.includes("\n")) buffer += (await reader.read()).value ?? "";
    const at = buffer.indexOf("\n");
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    return JSON.parse(line);
  };
  const first = await next();
  assert.deepEqual([first.type, first.object.metadata.name], ["ADDED", "a"]);
  await c.create(CONFIG_MAPS, { metadata: { name: "b", namespace: "team" } });
  const second = await next();
  assert.deepEqual([second.type, second.object.metadata.name], ["ADDED", "b"]);
  await c.delete(CONFIG_MAPS, "team", "a");
  const third = await next();
  assert.deepEqual([third.type, third.object.metadata.name], ["DELETED", "a"]);
  abort.abort();
  assert.equal((await reader.read()).done, true);
});
