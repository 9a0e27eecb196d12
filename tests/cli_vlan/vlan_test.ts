/**
 * `toolkit vlan` with the `ibmcloud` stand-in (tests/fakes/ibmcloud_cli.ts) first on PATH: every
 * region, the zone by -d, the VLANs chosen by flag or automatically, the output formats, a region
 * or resource group other than the target's without changing it, and the errors.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { installIbmcloud } from "../fakes/ibmcloud_cli.ts";
import { namesIn, readOnlyDir } from "../env/files.ts";
import { commandContext } from "../../cli/context.ts";

async function setUp(target: { region: string; resourceGroup?: string } | undefined) {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-vlan-" });
  await Deno.mkdir(`${dir}/bin`);
  await installIbmcloud(`${dir}/bin`, `${dir}/home`, target);
  const env = { PATH: `${dir}/bin:/usr/bin:/bin`, HOME: `${dir}/home` };
  return {
    dir,
    run: async (args: string[], extra: Record<string, string> = {}) => {
      const io = bufferedIO({ env: { ...env, ...extra }, cwd: dir });
      const status = await runCli(["vlan", ...args], commandContext(io));
      return { status, out: io.out(), err: io.err() };
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("vlan prints igc's config for the one zone with VLANs of a region, in every format", async () => {
  await using t = await setUp({ region: "ca-tor", resourceGroup: "dev-rg" });
  const r = await t.run([]);
  assert.equal(r.status, 0, r.err);
  assert.equal(
    r.out,
    [
      "# Vlan config",
      "# The following values tell the IBMCloud terraform provider the details about the new",
      "# cluster it will create.",
      "# If `cluster_exists` is set to `true` then these values are not needed",
      "#",
      "# These values apply to the following config:",
      "# resource group: dev-rg",
      "# region: ca-tor",
      "#",
      "# The vlans selected are (id/num/router):",
      "# public_vlan: 3100001/11/fcr01a.tor01",
      "# private_vlan: 3100002/12/bcr01a.tor01",
      "#",
      'vlan_datacenter="tor01"',
      'public_vlan_id="3100001"',
      'private_vlan_id="3100002"',
      "",
    ].join("\n"),
  );
  assert.equal(
    (await t.run(["--format", "tfvars"])).out,
    'vlan_datacenter="tor01"\npublic_vlan_id="3100001"\nprivate_vlan_id="3100002"\n',
  );
  assert.equal(JSON.parse((await t.run(["--format", "json"])).out).private_vlan_id, "3100002");
  const file = await t.run(["-o", "vlan.tfvars"]);
  assert.equal(file.out, "");
  assert.match(await Deno.readTextFile(`${t.dir}/vlan.tfvars`), /vlan_datacenter="tor01"/);
});

Deno.test("vlan -o writes through a symbolic link; a read-only directory is a clear failure", async () => {
  await using t = await setUp({ region: "ca-tor", resourceGroup: "dev-rg" });
  await Deno.mkdir(`${t.dir}/terraform`);
  await Deno.writeTextFile(`${t.dir}/terraform/vlan.tfvars`, "old\n");
  await Deno.chmod(`${t.dir}/terraform/vlan.tfvars`, 0o640);
  await Deno.symlink("terraform/vlan.tfvars", `${t.dir}/vlan.tfvars`);
  const r = await t.run(["-o", "vlan.tfvars", "--format", "tfvars"]);
  assert.equal(r.status, 0, r.err);
  assert.ok((await Deno.lstat(`${t.dir}/vlan.tfvars`)).isSymlink, "the link stays a link");
  assert.match(await Deno.readTextFile(`${t.dir}/terraform/vlan.tfvars`), /vlan_datacenter/);
  assert.equal((await Deno.stat(`${t.dir}/terraform/vlan.tfvars`)).mode! & 0o777, 0o640);

  await Deno.writeTextFile(`${t.dir}/terraform/vlan.tfvars`, "keep\n");
  await using _ = await readOnlyDir(`${t.dir}/terraform`);
  const failed = await t.run(["-o", "vlan.tfvars"]);
  assert.equal(failed.status, 1, failed.err);
  assert.match(failed.err, /Cannot write "vlan.tfvars": its directory ".*terraform" cannot be/);
  assert.equal(await Deno.readTextFile(`${t.dir}/terraform/vlan.tfvars`), "keep\n");
  assert.deepEqual(await namesIn(`${t.dir}/terraform`), ["vlan.tfvars"]);
});

Deno.test("vlan takes -r and --resource-group without changing the target, for every region", async () => {
  await using t = await setUp({ region: "us-south" });
  for (const [region, zone] of [["br-sao", "sao01"], ["jp-osa", "osa21"], ["ca-tor", "tor01"]]) {
    const r = await t.run(["-r", region!, "--resource-group", "prod", "--format", "json"]);
    assert.equal(r.status, 0, r.err);
    const out = JSON.parse(r.out);
    assert.equal(out.vlan_datacenter, zone);
    assert.equal(out.resource_group, "prod");
  }
  const target = JSON.parse(await Deno.readTextFile(`${t.dir}/home/.bluemix/target.json`));
  assert.deepEqual(target, { region: "us-south", resourceGroup: "default" });
});

Deno.test("vlan: -d and the VLAN flags choose; without a terminal a choice is an error listing them", async () => {
  await using t = await setUp({ region: "us-south" });
  let r = await t.run([]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Choose the data center with -d: dal10, dal12 \(there is no terminal/);
  r = await t.run(["-d", "dal10", "--format", "tfvars"]);
  assert.equal(
    r.out,
    'vlan_datacenter="dal10"\npublic_vlan_id="2558531"\nprivate_vlan_id="2558537"\n',
  );
  r = await t.run(["-d", "dal12"]);
  assert.equal(r.status, 2);
  assert.match(
    r.err,
    /Choose the private vlan with --private-vlan: 2711002\/902\/bcr01a\.dal12, 2711003\/903\/bcr01a\.dal12/,
  );
  r = await t.run(["-d", "dal12", "--private-vlan", "2711003", "--format", "json"]);
  assert.equal(JSON.parse(r.out).private_vlan_id, "2711003");
  r = await t.run(["-d", "dal12", "--private-vlan", "999"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /no private VLAN 999/);
  r = await t.run(["-d", "nope10"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Region us-south has no zone "nope10": its zones are dal10, dal12, dal13/);
});

Deno.test("vlan reports a missing CLI, a logged-out CLI, no zone, no VLANs and vpc clearly", async () => {
  await using t = await setUp(undefined);
  let r = await t.run([]);
  assert.equal(r.status, 1);
  assert.match(r.err, /ibmcloud is not logged in: run ibmcloud login/);
  r = await t.run([], { PATH: "/nonexistent" });
  assert.equal(r.status, 1);
  assert.match(r.err, /Cannot find the ibmcloud CLI on PATH/);
  await using s = await setUp({ region: "eu-es" });
  r = await s.run([]);
  assert.equal(r.status, 1);
  assert.match(r.err, /no classic zone in region eu-es/);
  await using u = await setUp({ region: "us-south" });
  r = await u.run(["-d", "dal13"]);
  assert.equal(r.status, 1);
  assert.match(r.err, /no VLANs in zone dal13/);
  r = await u.run(["-p", "vpc"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /no VLANs \(VPC uses subnets\)/);
});

Deno.test("vlan -o is the format, --output-file the file; igc's -o FILE still writes, deprecated", async () => {
  await using t = await setUp({ region: "ca-tor", resourceGroup: "dev-rg" });
  const json = await t.run(["-o", "json"]);
  assert.equal(json.status, 0, json.err);
  assert.equal(JSON.parse(json.out).vlan_datacenter, "tor01");
  assert.deepEqual((await namesIn(t.dir)).filter((n) => n === "json"), [], "no file named json");
  const yaml = await t.run(["-o", "yaml"]);
  assert.match(yaml.out, /^vlan_datacenter: "?tor01"?$/m);
  const tfvars = await t.run(["-o", "tfvars", "--output-file", "vlan.tfvars"]);
  assert.equal(tfvars.status, 0, tfvars.err);
  assert.equal(tfvars.out, "");
  assert.doesNotMatch(tfvars.err, /deprecated/);
  assert.equal(
    await Deno.readTextFile(`${t.dir}/vlan.tfvars`),
    'vlan_datacenter="tor01"\npublic_vlan_id="3100001"\nprivate_vlan_id="3100002"\n',
  );
  const igc = await t.run(["-o", "igc.tfvars"]);
  assert.equal(igc.status, 0, igc.err);
  assert.match(
    igc.err,
    /-o FILE is igc's spelling, deprecated: use --output-file igc\.tfvars \(-o is the output format: text, tfvars, json, yaml\)/,
  );
  assert.match(await Deno.readTextFile(`${t.dir}/igc.tfvars`), /^# Vlan config/);
  const both = await t.run(["-o", "x.tfvars", "--output-file", "y.tfvars"]);
  assert.equal(both.status, 2);
  assert.match(both.err, /-o is the format/);
});
