import assert from "node:assert/strict";
import { RegistryError } from "./errors.ts";
import { createRegistryLocator, insecureRegistryEntry } from "./registry_url.ts";

Deno.test("createRegistryLocator() reaches insecure registries over HTTP, every other over HTTPS", () => {
  const { registryUrl, isInsecureHost } = createRegistryLocator(["Reg.Example:05000", "plain"]);
  assert.equal(registryUrl("reg.example:5000"), "http://reg.example:5000");
  assert.equal(registryUrl("reg.example:5001"), "https://reg.example:5001");
  assert.equal(registryUrl("PLAIN:8080"), "http://plain:8080");
  assert.equal(registryUrl("docker.io"), "https://registry-1.docker.io");
  assert.equal(isInsecureHost("plain:1"), true);
  assert.equal(isInsecureHost("reg.example"), false);
  assert.throws(
    () => registryUrl("a/b"),
    /^RegistryError: Cannot reach registry "a\/b": not a valid registry host$/,
  );
  assert.equal(createRegistryLocator().registryUrl("quay.io"), "https://quay.io");
});

Deno.test("createRegistryLocator() refuses an insecure registry named with port 443", () => {
  assert.throws(() => createRegistryLocator(["reg:443"]), RegistryError);
  assert.deepEqual(insecureRegistryEntry(" reg:5000 "), { hostPort: "reg:5000" });
});
