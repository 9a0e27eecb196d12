import assert from "node:assert/strict";
import { NAMESPACES, SECRETS } from "../../lib/kube/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { fakeCli, type RunOptions } from "../../tests/fakes/cli.ts";
import { canary } from "../../tests/fakes/secret_canary.ts";
import { toolKeyPrefix, toolName } from "./tool_config.ts";
import { toolLabels } from "./common.ts";

Deno.test("toolName() and toolKeyPrefix() follow the tool-config chart", () => {
  assert.equal(toolName(" My_Tool "), "my-tool");
  assert.equal(toolKeyPrefix("my-tool"), "MY_TOOL");
});

Deno.test("toolLabels() carries both label schemes, so sync and credentials see the tool", () => {
  const labels = toolLabels("x-config");
  assert.equal(labels.group, "catalyst-tools");
  assert.equal(labels.grouping, "garage-cloud-native-toolkit");
});

Deno.test("tool-config replaces a tool's credentials only with --replace", async () => {
  await using cli = await fakeCli();
  cli.kube.seed(NAMESPACES, { metadata: { name: "tools" } });
  const base = ["tool-config", "my-tool", "--username", "admin"];
  const created = await cli.run([...base, "--password", "pw"]);
  assert.equal(created.status, 0, created.err);
  const again = await cli.run([...base, "--password", "pw"]);
  assert.equal(again.status, 0, again.err);
  const refused = await cli.run([...base, "--password", "other"]);
  assert.equal(refused.status, 2, refused.err);
  assert.match(
    refused.err,
    /Secret "tools\/my-tool-access" already holds other credentials \(user "admin"\); pass --replace/,
  );
  const data = () =>
    cli.kube.get(SECRETS, "tools", "my-tool-access")?.data as Record<string, string>;
  assert.equal(decodeBase64Text(data().MY_TOOL_PASSWORD!), "pw");
  const replaced = await cli.run([...base, "--password", "other", "--replace"]);
  assert.equal(replaced.status, 0, replaced.err);
  assert.equal(decodeBase64Text(data().MY_TOOL_PASSWORD!), "other");
});

Deno.test("tool-config takes the password from --password-file, TOOLKIT_TOOL_PASSWORD or --password -, and warns once for --password PW", async () => {
  await using cli = await fakeCli();
  cli.kube.seed(NAMESPACES, { metadata: { name: "tools" } });
  const password = canary();
  await Deno.writeTextFile(`${cli.dir}/pw`, `${password}\n`);
  const stored = () =>
    decodeBase64Text(
      (cli.kube.get(SECRETS, "tools", "my-tool-access")?.data as Record<string, string>)
        .MY_TOOL_PASSWORD!,
    );
  const base = ["tool-config", "my-tool", "--username", "admin", "--replace", "-v"];
  const sources: [string[], RunOptions][] = [
    [[...base, "--password-file", "pw"], {}],
    [base, { env: { TOOLKIT_TOOL_PASSWORD: password } }],
    [[...base, "--password", "-"], { stdin: password }],
    [[...base, "--password", "-"], { answers: [password] }],
  ];
  for (const [args, options] of sources) {
    await cli.run([...base, "--password", "before"]);
    const r = await cli.run(args, options);
    assert.equal(r.status, 0, r.err);
    assert.doesNotMatch(r.err, /warning: the tool password/);
    assert.ok(!(r.out + r.err).includes(password), r.err);
    assert.equal(stored(), password);
  }
  const value = await cli.run([...base, "--password", password]);
  assert.equal(value.status, 0, value.err);
  assert.equal(
    value.err.match(/warning: the tool password given as --password's value/g)?.length,
    1,
  );
  assert.match(
    value.err,
    /pass --password-file FILE, set TOOLKIT_TOOL_PASSWORD, or give --password -/,
  );
  assert.ok(!value.err.includes(password));

  const refused: [string[], RunOptions, number, RegExp][] = [
    [
      [...base, "--password", password, "--password-file", "pw"],
      {},
      2,
      /Give the tool password once/,
    ],
    [
      [...base, "--password-file", "pw"],
      { env: { TOOLKIT_TOOL_PASSWORD: password } },
      2,
      /both --password-file and \$TOOLKIT_TOOL_PASSWORD/,
    ],
    [[...base, "--password-file", "nope"], {}, 1, /Cannot read --password-file "nope"/],
    [
      ["tool-config", "my-tool", "--password-file", "pw"],
      {},
      2,
      /--username and --password go together/,
    ],
  ];
  for (const [args, options, status, says] of refused) {
    const r = await cli.run(args, options);
    assert.equal(r.status, status, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, says);
    assert.ok(!(r.out + r.err).includes(password));
  }
});
