import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { mergeRegistriesD, parseRegistriesYaml, selectLookaside } from "../lookaside/mod.ts";
import { defaultInstallOptions } from "./options.ts";
import {
  parseLookasideEntry,
  registriesDChecksum,
  registriesDFiles,
  RELEASE_SIGNATURES_URL,
} from "./registries_d_config_map.ts";

Deno.test("the registries.d files are what containers/image reads: toolkit's store and --lookaside", () => {
  const options = defaultInstallOptions({
    lookaside: [
      { scope: "quay.io/team", url: "https://sigs.example.com/quay" },
      { scope: "registry.example.com:5000", url: "http://sigs.internal" },
    ],
  });
  const files = registriesDFiles(options);
  assert.deepEqual(Object.keys(files), ["lookaside.yaml", "toolkit-release.yaml"]);
  const config = mergeRegistriesD(
    Object.entries(files).map(([name, text]) => parseRegistriesYaml(text, name)),
  );
  const read = (image: string) => selectLookaside(config, parseReference(image), "read")?.base.href;
  assert.equal(read("ghcr.io/toolkit-dev/toolkit-webhook:0.1.0"), `${RELEASE_SIGNATURES_URL}`);
  assert.equal(read("quay.io/team/app:1"), "https://sigs.example.com/quay");
  assert.equal(read("registry.example.com:5000/any/thing:2"), "http://sigs.internal/");
  assert.equal(read("docker.io/library/nginx:1"), undefined);
});

Deno.test("without --lookaside only toolkit's store is configured", () => {
  assert.deepEqual(Object.keys(registriesDFiles(defaultInstallOptions())), [
    "toolkit-release.yaml",
  ]);
});

Deno.test("the checksum follows the files", () => {
  const none = registriesDChecksum(defaultInstallOptions());
  const one = registriesDChecksum(
    defaultInstallOptions({ lookaside: [{ scope: "quay.io", url: "https://a" }] }),
  );
  assert.match(none, /^[0-9a-f]{64}$/);
  assert.notEqual(none, one);
  assert.equal(none, registriesDChecksum(defaultInstallOptions()));
});

Deno.test("--lookaside entries are SCOPE=URL with a registry scope and an http(s) URL", () => {
  assert.deepEqual(parseLookasideEntry("quay.io/team=https://sigs.example.com"), {
    scope: "quay.io/team",
    url: "https://sigs.example.com",
  });
  assert.deepEqual(parseLookasideEntry("localhost:5000=http://127.0.0.1:8080/sigs"), {
    scope: "localhost:5000",
    url: "http://127.0.0.1:8080/sigs",
  });
  for (
    const [text, problem] of [
      ["quay.io/team", /expected SCOPE=URL/],
      ["=https://x", /expected SCOPE=URL/],
      ["Quay.IO/Team=https://x", /not a registry host or repository/],
      ["quay.io/team=not a url", /is not a URL/],
      ["quay.io/team=file:///var/lib/sigstore", /http\(s\) stores only, not a file: URL/],
    ] as const
  ) {
    assert.throws(() => parseLookasideEntry(text), problem, text);
  }
});
