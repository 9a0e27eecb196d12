import assert from "node:assert/strict";
import { fakeKubeClient } from "../../tests/fakes/kube_transport.ts";
import { pickServedVersion } from "./discovery.ts";
import { ROUTES } from "./resources.ts";

const TEKTON = ["v1", "v1beta1", "v1alpha1"];

Deno.test("pickServedVersion() picks the first preferred version that is served", () => {
  assert.equal(pickServedVersion(["v1beta1", "v1"], TEKTON), "v1");
  assert.equal(pickServedVersion(["v1alpha1", "v1beta1"], TEKTON), "v1beta1");
  assert.equal(pickServedVersion(["v1alpha1"], TEKTON), "v1alpha1");
  assert.equal(pickServedVersion(["v2"], TEKTON), undefined);
  assert.equal(pickServedVersion([], TEKTON), undefined);
});

function discoveryServer(seen: string[]) {
  return fakeKubeClient((request) => {
    const path = new URL(request.url).pathname;
    seen.push(path);
    switch (path) {
      case "/api":
        return Response.json({ kind: "APIVersions", versions: ["v1"] });
      case "/apis":
        return Response.json({
          kind: "APIGroupList",
          groups: [
            {
              name: "tekton.dev",
              versions: [{ version: "v1beta1" }, { version: "v1" }],
              preferredVersion: { version: "v1" },
            },
            { name: "route.openshift.io", versions: [{ version: "v1" }] },
          ],
        });
      case "/apis/route.openshift.io/v1":
        return Response.json({
          kind: "APIResourceList",
          resources: [{ name: "routes", kind: "Route", namespaced: true, verbs: ["get", "list"] }],
        });
      default:
        return Response.json({ kind: "Status", code: 404 }, { status: 404 });
    }
  });
}

Deno.test("ApiDiscovery reads groups and resources once and picks served versions", async () => {
  const seen: string[] = [];
  const client = discoveryServer(seen);
  const discovery = client.discovery;
  assert.deepEqual(await discovery.servedVersions("tekton.dev"), ["v1", "v1beta1"]);
  assert.deepEqual(await discovery.servedVersions(""), ["v1"]);
  assert.deepEqual(await discovery.servedVersions("apps"), []);
  assert.equal(await discovery.newestServedVersion("tekton.dev", ["v1beta1", "v1"]), "v1beta1");
  assert.equal(await discovery.newestServedVersion("tekton.dev", TEKTON), "v1");
  assert.equal(await discovery.newestServedVersion("apps", TEKTON), undefined);
  assert.equal(await discovery.isOpenShift(), true);
  assert.equal(await client.isOpenShift(), true);
  assert.deepEqual([...await client.apiGroups()], ["tekton.dev", "route.openshift.io"]);
  assert.equal(await discovery.servesResource(ROUTES), true);
  assert.equal(await discovery.servesResource({ ...ROUTES, plural: "nothing" }), false);
  assert.equal(await discovery.resources("tekton.dev", "v2"), undefined);
  assert.deepEqual(seen.filter((p) => p === "/api" || p === "/apis"), ["/api", "/apis"]);
  assert.equal(seen.filter((p) => p === "/apis/route.openshift.io/v1").length, 1);
});

Deno.test("ApiDiscovery does not keep a failure", async () => {
  let fail = true;
  const client = fakeKubeClient((request) => {
    if (fail) return new Response("unavailable", { status: 503 });
    return Response.json(new URL(request.url).pathname === "/api" ? { versions: ["v1"] } : {});
  });
  await assert.rejects(client.discovery.groups(), /Cannot discover/);
  fail = false;
  assert.deepEqual(await client.discovery.servedVersions(""), ["v1"]);
});
