import assert from "node:assert/strict";
import { collectEndpoints, ingressUrls, routeUrl } from "./app_urls.ts";

Deno.test("ingressUrls() uses https for TLS hosts and keeps a simple path", () => {
  assert.deepEqual(
    ingressUrls({
      metadata: { name: "i" },
      spec: {
        tls: [{ hosts: ["a.example.com"] }],
        rules: [
          { host: "a.example.com", http: { paths: [{ path: "/api/" }] } },
          { host: "b.example.com", http: { paths: [{ path: "/(.*)" }] } },
          { http: { paths: [] } },
        ],
      },
    }),
    ["https://a.example.com/api", "http://b.example.com"],
  );
});

Deno.test("ingressUrls() falls back to the load balancer address", () => {
  assert.deepEqual(
    ingressUrls({
      metadata: { name: "i" },
      spec: {},
      status: { loadBalancer: { ingress: [{ hostname: "lb.example.com" }] } },
    }),
    ["http://lb.example.com"],
  );
});

Deno.test("routeUrl() and collectEndpoints() name endpoints by their app label", () => {
  const route = {
    metadata: { name: "r", labels: { app: "shop" } },
    spec: { host: "shop.example.com", tls: { termination: "edge" } },
  };
  assert.equal(routeUrl(route), "https://shop.example.com");
  assert.equal(routeUrl({ metadata: { name: "x" }, spec: {} }), undefined);
  assert.deepEqual(collectEndpoints([], [route]), [
    { name: "shop", kind: "Route", url: "https://shop.example.com" },
  ]);
});
