import assert from "node:assert/strict";
import { collectCredentials } from "./credentials.ts";

const obj = (name: string, data: Record<string, string>) => ({ metadata: { name }, data });

Deno.test("collectCredentials() splits keys at the last underscore, ConfigMaps over Secrets", () => {
  const secrets = [
    obj("sonarqube-access", { SONARQUBE_USER: btoa("admin"), SONARQUBE_PASSWORD: btoa("pw") }),
    obj("argocd-access", { ARGOCD_USERNAME: btoa("a"), ARGOCD_URL: btoa("https://secret") }),
  ];
  const configMaps = [
    obj("argocd-config", { ARGOCD_URL: "https://argocd", url: "x", ARGOCD_NAMESPACE: "ns" }),
    obj("pact", { PACT_BROKER_URL: "https://pact" }),
  ];
  assert.deepEqual(collectCredentials(secrets, configMaps), {
    argocd: { url: "https://argocd", user: "a" },
    pact_broker: { url: "https://pact" },
    sonarqube: { user: "admin", password: "pw" },
  });
});

Deno.test("collectCredentials() leaves out cloud config, API keys, and dashboard credentials", () => {
  const secrets = [
    obj("ibmcloud-apikey", { APIKEY: btoa("k"), CLOUD_URL: btoa("u") }),
    obj("other", { IBMCLOUD_API_KEY: btoa("k"), REGISTRY_APIKEY_URL: btoa("x") }),
    obj("dashboard-access", { DASHBOARD_USER: btoa("u"), DASHBOARD_PASSWORD: btoa("p") }),
  ];
  const configMaps = [
    obj("ibmcloud-config", { CLUSTER_URL: "https://c" }),
    obj("dashboard-config", { DASHBOARD_URL: "https://d" }),
  ];
  assert.deepEqual(collectCredentials(secrets, configMaps), { dashboard: { url: "https://d" } });
});

Deno.test("collectCredentials() takes keys named like Object properties as data, never touching a prototype", () => {
  const configMaps = [
    obj("hostile", {
      __PROTO___USERNAME: "polluted",
      CONSTRUCTOR_URL: "https://c",
      TOOL_CONSTRUCTOR: "x",
      TOOL_TOSTRING: "y",
    }),
  ];
  const found = collectCredentials([], configMaps);
  assert.equal(({} as Record<string, unknown>).user, undefined);
  assert.equal(Object.getPrototypeOf(found), Object.prototype);
  assert.deepEqual(Object.keys(found), ["__proto__", "constructor"]);
  assert.deepEqual(Object.getOwnPropertyDescriptor(found, "__proto__")?.value, {
    user: "polluted",
  });
  assert.deepEqual(found.constructor, { url: "https://c" });
});
