import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { assertNoCanary, canary, thrown } from "../../tests/fakes/secret_canary.ts";
import {
  candidateScopes,
  formatRegistriesYaml,
  loadRegistriesD,
  mergeRegistriesD,
  parseRegistriesYaml,
  RegistriesConfigError,
  type RegistriesD,
  selectLookaside,
  usesSigstoreAttachments,
} from "./registries_d.ts";

Deno.test("parseRegistriesYaml() reads both spellings and the staging URLs", () => {
  const config = parseRegistriesYaml(
    [
      "default-docker:",
      "  sigstore: file:///var/lib/containers/sigstore",
      "  sigstore-staging: file:///var/lib/containers/staging",
      "docker:",
      "  registry.example.com:",
      "    lookaside: https://sigs.example.com/lookaside",
      "    lookaside-staging: file:///srv/staging",
      "    use-sigstore-attachments: true",
      "  quay.io/team:",
      "    sigstore: http://127.0.0.1:8080/team",
    ].join("\n"),
    "/etc/containers/registries.d/a.yaml",
  );
  assert.deepEqual(config.defaultDocker, {
    lookaside: "file:///var/lib/containers/sigstore",
    lookasideStaging: "file:///var/lib/containers/staging",
    source: "/etc/containers/registries.d/a.yaml",
  });
  assert.deepEqual(config.docker.get("registry.example.com"), {
    lookaside: "https://sigs.example.com/lookaside",
    lookasideStaging: "file:///srv/staging",
    useSigstoreAttachments: true,
    source: "/etc/containers/registries.d/a.yaml",
  });
  assert.equal(config.docker.get("quay.io/team")?.lookaside, "http://127.0.0.1:8080/team");
  assert.deepEqual(config.warnings, []);
});

Deno.test("parseRegistriesYaml() accepts empty files, empty scopes and empty URLs", () => {
  assert.equal(parseRegistriesYaml("", "e.yaml").docker.size, 0);
  assert.equal(parseRegistriesYaml("# only a comment\n", "e.yaml").docker.size, 0);
  const config = parseRegistriesYaml(
    "docker:\n  a.example.com:\n  b.example.com:\n    lookaside: ''\n",
    "e.yaml",
  );
  assert.deepEqual(config.docker.get("a.example.com"), { source: "e.yaml" });
  assert.deepEqual(config.docker.get("b.example.com"), { source: "e.yaml" });
});

Deno.test("parseRegistriesYaml() ignores unknown keys with a warning", () => {
  const config = parseRegistriesYaml(
    "privileged: true\ndocker:\n  a.example.com:\n    lookside: file:///x\n",
    "w.yaml",
  );
  assert.deepEqual(config.warnings, [
    "w.yaml: ignored unknown key privileged",
    'w.yaml: ignored unknown key docker."a.example.com".lookside',
  ]);
});

const BAD_FILES: Array<[string, string, RegExp]> = [
  ["invalid YAML", "docker: [\n", /invalid YAML/],
  [
    "a duplicate key",
    "docker:\n  a.io:\n    lookaside: file:///a\n  a.io:\n    lookaside: file:///b\n",
    /invalid YAML.*[Mm]ap keys must be unique/s,
  ],
  ["a top level that is a list", "- a\n- b\n", /top level must be a mapping/],
  ["docker as a list", "docker:\n  - a.io\n", /docker must be a mapping of scopes/],
  ["a section that is a string", "default-docker: file:///x\n", /default-docker must be a mapping/],
  [
    "a URL that is a number",
    "default-docker:\n  lookaside: 5\n",
    /default-docker.lookaside must be a URL string/,
  ],
  [
    "a URL that does not parse",
    "default-docker:\n  lookaside: /no/scheme\n",
    /is not a valid URL: "\/no\/scheme"/,
  ],
  [
    "an unsupported scheme",
    "default-docker:\n  lookaside: ftp://x/y\n",
    /unsupported scheme "ftp:"/,
  ],
  [
    "a non-boolean attachments flag",
    "default-docker:\n  use-sigstore-attachments: yes\n",
    /must be true or false/,
  ],
];

Deno.test("parseRegistriesYaml() prefers the current spelling when a scope sets both, with a warning", () => {
  const parsed = parseRegistriesYaml(
    "docker:\n  a.io:\n    lookaside: file:///a\n    sigstore: file:///b\n" +
      "default-docker:\n  lookaside-staging: file:///c\n  sigstore-staging: file:///d\n",
    "/etc/containers/registries.d/both.yaml",
  );
  assert.equal(parsed.docker.get("a.io")?.lookaside, "file:///a");
  assert.equal(parsed.defaultDocker?.lookasideStaging, "file:///c");
  assert.equal(parsed.warnings.filter((w) => w.includes("sets both")).length, 2);
});

for (const [label, text, pattern] of BAD_FILES) {
  Deno.test(`parseRegistriesYaml() rejects ${label}, naming the file`, () => {
    assert.throws(() => parseRegistriesYaml(text, "/etc/containers/registries.d/bad.yaml"), (e) => {
      assert.ok(e instanceof RegistriesConfigError);
      assert.equal(e.file, "/etc/containers/registries.d/bad.yaml");
      assert.match(
        e.message,
        /^Cannot load registries.d configuration "\/etc\/containers\/registries.d\/bad.yaml": /,
      );
      assert.match(e.message, pattern);
      return true;
    });
  });
}

Deno.test("mergeRegistriesD() rejects a scope or default-docker defined in two files", () => {
  const a = parseRegistriesYaml(
    "default-docker:\n  lookaside: file:///a\ndocker:\n  x.io: {}\n",
    "a.yaml",
  );
  const b = parseRegistriesYaml("docker:\n  x.io:\n    lookaside: file:///b\n", "b.yaml");
  const c = parseRegistriesYaml("default-docker:\n  lookaside: file:///c\n", "c.yaml");
  assert.throws(() => mergeRegistriesD([a, b]), (e) => {
    assert.ok(e instanceof RegistriesConfigError);
    assert.equal(e.file, "b.yaml");
    assert.match(e.message, /docker scope "x.io" is already defined in "a.yaml"/);
    return true;
  });
  assert.throws(() => mergeRegistriesD([a, c]), /"default-docker" is already defined in "a.yaml"/);
  const merged = mergeRegistriesD([b, c]);
  assert.equal(merged.docker.get("x.io")?.source, "b.yaml");
  assert.equal(merged.defaultDocker?.source, "c.yaml");
});

Deno.test("loadRegistriesD() merges every *.yaml file and skips other files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-registries-d-" });
  try {
    await Deno.writeTextFile(`${dir}/default.yaml`, "default-docker:\n  lookaside: file:///d\n");
    await Deno.writeTextFile(
      `${dir}/team.yaml`,
      "docker:\n  r.io/team:\n    lookaside: https://s/t\n",
    );
    await Deno.writeTextFile(`${dir}/ignored.yml`, "docker: [broken\n");
    await Deno.writeTextFile(`${dir}/README`, "not yaml: [\n");
    await Deno.mkdir(`${dir}/dir.yaml`);
    const config = await loadRegistriesD(dir);
    assert.equal(config.defaultDocker?.lookaside, "file:///d");
    assert.equal(config.defaultDocker?.source, `${dir}/default.yaml`);
    assert.deepEqual([...config.docker.keys()], ["r.io/team"]);

    await Deno.writeTextFile(`${dir}/zz-broken.yaml`, "docker:\n  a: [\n");
    await assert.rejects(loadRegistriesD(dir), (e) => {
      assert.ok(e instanceof RegistriesConfigError);
      assert.equal(e.file, `${dir}/zz-broken.yaml`);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadRegistriesD() gives an empty configuration for a missing directory", async () => {
  const config = await loadRegistriesD("/nonexistent/toolkit/registries.d");
  assert.equal(config.defaultDocker, undefined);
  assert.equal(config.docker.size, 0);
});

Deno.test("candidateScopes() lists identity, repository, namespaces, host and wildcards", () => {
  const d = `sha256:${"a".repeat(64)}`;
  assert.deepEqual(candidateScopes(parseReference(`registry.example.com:5000/a/b/c:v1@${d}`)), [
    `registry.example.com:5000/a/b/c@${d}`,
    "registry.example.com:5000/a/b/c:v1",
    "registry.example.com:5000/a/b/c",
    "registry.example.com:5000/a/b",
    "registry.example.com:5000/a",
    "registry.example.com:5000",
    "*.example.com",
    "*.com",
  ]);
  assert.deepEqual(candidateScopes(parseReference("busybox")), [
    "docker.io/library/busybox",
    "docker.io/library",
    "docker.io",
    "*.io",
  ]);
  assert.deepEqual(candidateScopes(parseReference("[::1]:5000/x")), ["[::1]:5000/x", "[::1]:5000"]);
});

const CONFIG: RegistriesD = mergeRegistriesD([
  parseRegistriesYaml(
    [
      "default-docker:",
      "  lookaside: file:///default",
      "docker:",
      "  registry.example.com:",
      "    lookaside: https://host/",
      "  registry.example.com/team:",
      "    lookaside: https://team/",
      "    lookaside-staging: file:///staging/team",
      "  registry.example.com/team/app:",
      "    lookaside: https://app/",
      "  registry.example.com/team/app:v2:",
      "    lookaside: https://app-v2/",
      "  registry.example.com/write-only:",
      "    lookaside-staging: file:///staging/write-only",
      "  registry.example.com/attachments-only:",
      "    use-sigstore-attachments: true",
      "  localhost:5000:",
      "    sigstore: file:///local",
      "  '*.example.org':",
      "    lookaside: https://wildcard/",
      "  docker.io/library:",
      "    lookaside: https://official/",
    ].join("\n"),
    "scopes.yaml",
  ),
]);

const SELECTIONS: Array<[string, "read" | "write", string, string]> = [
  ["registry.example.com/team/app:v1", "read", "registry.example.com/team/app", "https://app/"],
  [
    "registry.example.com/team/app:v2",
    "read",
    "registry.example.com/team/app:v2",
    "https://app-v2/",
  ],
  ["registry.example.com/team/app:v1", "write", "registry.example.com/team/app", "https://app/"],
  ["registry.example.com/team/other", "read", "registry.example.com/team", "https://team/"],
  ["registry.example.com/team/other", "write", "registry.example.com/team", "file:///staging/team"],
  ["registry.example.com/team/app/sub", "read", "registry.example.com/team/app", "https://app/"],
  // Matched at "/" boundaries only: "teamx" is not inside "team".
  ["registry.example.com/teamx/app", "read", "registry.example.com", "https://host/"],
  ["registry.example.com/team", "read", "registry.example.com/team", "https://team/"],
  // A scope with only a staging URL does not hide its parent for reading.
  ["registry.example.com/write-only/x", "read", "registry.example.com", "https://host/"],
  [
    "registry.example.com/write-only/x",
    "write",
    "registry.example.com/write-only",
    "file:///staging/write-only",
  ],
  ["registry.example.com/attachments-only/x", "read", "registry.example.com", "https://host/"],
  ["localhost:5000/x", "read", "localhost:5000", "file:///local"],
  ["localhost:5000/x", "write", "localhost:5000", "file:///local"],
  ["localhost:5001/x", "read", "default-docker", "file:///default"],
  ["localhost/x", "read", "default-docker", "file:///default"],
  ["a.b.example.org/x", "read", "*.example.org", "https://wildcard/"],
  ["a.b.example.org:443/x", "read", "*.example.org", "https://wildcard/"],
  ["example.org/x", "read", "default-docker", "file:///default"],
  ["nginx", "read", "docker.io/library", "https://official/"],
  ["user/app", "read", "default-docker", "file:///default"],
  ["registry.example.com.evil.io/team/app", "read", "default-docker", "file:///default"],
];

for (const [input, mode, scope, url] of SELECTIONS) {
  Deno.test(`selectLookaside() picks "${scope}" to ${mode} ${input}`, () => {
    const selection = selectLookaside(CONFIG, parseReference(input), mode);
    assert.ok(selection);
    assert.equal(selection.scope, scope);
    assert.equal(selection.base.href, url);
    assert.equal(selection.source, "scopes.yaml");
  });
}

Deno.test("selectLookaside() returns undefined when nothing is configured", () => {
  const empty = parseRegistriesYaml("docker:\n  a.io:\n    lookaside: file:///a\n", "x.yaml");
  assert.equal(selectLookaside(empty, parseReference("b.io/x"), "read"), undefined);
  assert.equal(selectLookaside(empty, parseReference("b.io/x"), "write"), undefined);
});

Deno.test("usesSigstoreAttachments() follows the most specific scope that sets it", () => {
  const config = parseRegistriesYaml(
    [
      "default-docker:",
      "  use-sigstore-attachments: true",
      "docker:",
      "  r.io/a:",
      "    use-sigstore-attachments: false",
      "  r.io/a/b:",
      "    lookaside: file:///x",
    ].join("\n"),
    "a.yaml",
  );
  assert.equal(usesSigstoreAttachments(config, parseReference("r.io/a/b")), false);
  assert.equal(usesSigstoreAttachments(config, parseReference("r.io/c")), true);
  assert.equal(
    usesSigstoreAttachments(parseRegistriesYaml("", "e.yaml"), parseReference("x")),
    false,
  );
});

Deno.test("parseRegistriesYaml() does not quote the line of a YAML error", () => {
  const secret = canary();
  for (
    const text of [
      `default-docker:\n  lookaside: https://u:${secret}@x: y\n`,
      `docker:\n  a.io:\n    lookaside: "https://u:${secret}@x\n`,
      `docker:\n  a.io: {lookaside: x}\n  a.io: {lookaside: ${secret}}\n`,
    ]
  ) {
    const error = thrown(() => parseRegistriesYaml(text, "s.yaml"));
    assert.ok(error instanceof RegistriesConfigError);
    assert.match(error.message, /invalid YAML at line \d+, column \d+/);
    assertNoCanary(error, secret);
  }
});

Deno.test("selectLookaside() reads scopes and images in the canonical spelling of their registry", () => {
  const config = parseRegistriesYaml(
    [
      "docker:",
      "  REG.EXAMPLE.COM:0443/team:",
      "    lookaside: https://team/",
      "  LocalHost:05000:",
      "    lookaside: https://local/",
      "  Registry-1.Docker.IO/library:",
      "    lookaside: https://official/",
      "  '*.Example.ORG':",
      "    lookaside: https://wildcard/",
      "default-docker:",
      "  lookaside: https://default/",
    ].join("\n"),
    "spellings.yaml",
  );
  const cases: Array<[string, string]> = [
    ["reg.example.com/team/app", "reg.example.com/team"],
    ["REG.example.com:443/team/app", "reg.example.com/team"],
    ["reg.example.com:8443/team/app", "default-docker"],
    ["LOCALHOST:5000/x", "localhost:5000"],
    ["localhost:005000/x", "localhost:5000"],
    ["nginx", "docker.io/library"],
    ["index.docker.io/library/nginx", "docker.io/library"],
    ["A.B.EXAMPLE.ORG/x", "*.example.org"],
  ];
  for (const [image, scope] of cases) {
    assert.equal(selectLookaside(config, parseReference(image), "read")?.scope, scope, image);
  }
});

Deno.test("parseRegistriesYaml() refuses two spellings of one scope", () => {
  assert.throws(
    () =>
      parseRegistriesYaml(
        "docker:\n  reg.io/x:\n    lookaside: file:///a\n  REG.IO:443/x:\n    lookaside: file:///b\n",
        "twice.yaml",
      ),
    (e: unknown) => e instanceof RegistriesConfigError && /same scope/.test(e.message),
  );
});

Deno.test("formatRegistriesYaml() writes what parseRegistriesYaml() reads back", () => {
  const config = {
    defaultDocker: { lookaside: "file:///var/lib/containers/sigstore", source: "a.yaml" },
    docker: new Map([
      ["reg.example.com:5000/team", {
        lookaside: "https://sigs.example.com/team",
        lookasideStaging: "file:///srv/sigstore/team",
        useSigstoreAttachments: true,
        source: "a.yaml",
      }],
      ['quay.io/odd "name"', { lookaside: "http://sigs.internal/a: b", source: "a.yaml" }],
    ]),
  };
  const text = formatRegistriesYaml(config);
  const parsed = parseRegistriesYaml(text, "a.yaml");
  assert.deepEqual(parsed, { ...config, warnings: [] });
  assert.equal(
    formatRegistriesYaml({
      docker: new Map([["quay.io", { lookaside: "https://s", source: "" }]]),
    }),
    'docker:\n  "quay.io":\n    lookaside: "https://s"\n',
  );
});
