/**
 * `toolkit image-security trust-root` in-process: a sigstore trusted root put into a ConfigMap
 * (`--dry-run` prints it), and a file that is none refused as a usage error. Against a real API
 * server: `tests/image_security/trust_root_test.ts`.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";

const ROOT = new URL("../../tests/fixtures/sigstore/public_good_trusted_root.json", import.meta.url)
  .pathname;

Deno.test("trust-root --dry-run prints the ConfigMap of a trusted root, and refuses a file that is none", async () => {
  await using cli = await fakeCli();
  const printed = await cli.run(["image-security", "trust-root", "root", "-f", ROOT, "--dry-run"]);
  assert.equal(printed.status, 0, printed.err);
  assert.match(printed.out, /^kind: ConfigMap$/m);
  assert.match(printed.out, /^ {2}name: root$/m);
  assert.match(printed.out, /application\/vnd\.dev\.sigstore\.trustedroot\+json;version=0\.1/);
  assert.deepEqual(cli.kube.writes(), [], "--dry-run writes nothing");

  await Deno.writeTextFile(`${cli.dir}/root.json`, "{}");
  const bad = await cli.run(["image-security", "trust-root", "root", "-f", `${cli.dir}/root.json`]);
  assert.equal(bad.status, 2);
  assert.match(bad.err, /its mediaType null is not a sigstore trusted root/);
  assert.match(bad.err, /Run 'toolkit image-security trust-root --help' for usage/);
});
